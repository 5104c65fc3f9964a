/**
 * Transactions, and several statements sent to PostgreSQL together: one write and one round trip on a server
 * (pg's own pipeline mode: every pooled connection is pipelined, so statements sent without waiting for the
 * last one's answer leave back to back). A pipeline is one transaction: BEGIN, its steps and COMMIT sent at
 * once, or the caller's transaction when `db` is one. Each statement still takes its own snapshot, so a lock
 * taken by one is held while the next reads; the first error rolls the whole batch back and rejects.
 *
 * On PGlite, which has no wire protocol, the statements run one after another in a transaction.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import type { ChangeFeed } from './change-feed';
import { runStatement, type Step } from './prepared';
import * as schema from './schema';
import { type Db, type DriverLink, driverLink } from './types';

export type { Statement, Step } from './prepared';

/** The statements of a pipeline, by name: each one step, or a list of steps whose rows come back as one list. */
export type Steps = Record<string, Step<unknown> | readonly Step<unknown>[]>;

type RowOf<S> = S extends Step<infer Row> ? Row : S extends readonly Step<infer Row>[] ? Row : never;

/** The rows of each named statement (of a list: all its steps' rows, in order). */
export type Results<S extends Steps> = { [K in keyof S]: RowOf<S[K]>[] };

/**
 * What a pipeline answers, made of its results; with `keep`, statements made of that answer that commit with the
 * steps (sent with the COMMIT once the steps' rows are back: a second round trip).
 */
export interface Conclusion<R, T> {
  value: (results: R) => T;
  keep?: (value: T) => readonly Step<unknown>[];
}

type PoolLink = Extract<DriverLink, { kind: 'pool' }>;
/** The statements to send, given the rows of those sent before them, in the same transaction. */
type Then = (rows: unknown[][]) => readonly Step<unknown>[];

/** The handles of one pooled connection, in a transaction and not (made once: making one reads the schema). */
const handles = new WeakMap<pg.PoolClient, { plain: Db; inTransaction: Db }>();

function handleOf(client: pg.PoolClient, feed: ChangeFeed, inTransaction: boolean): Db {
  let made = handles.get(client);
  if (!made) {
    const make = (inTransaction: boolean): Db =>
      Object.assign(drizzle(client, { schema }), {
        [driverLink]: { kind: 'connection', client, inTransaction, feed } as const,
      });
    made = { plain: make(false), inTransaction: make(true) };
    handles.set(client, made);
  }
  return inTransaction ? made.inTransaction : made.plain;
}

async function withConnection<T>(link: PoolLink, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await link.pool.connect();
  try {
    return await work(client);
  } finally {
    // The pool drops a connection whose socket failed.
    client.release();
  }
}

/** A query sent; `rows: false` for one whose rows are not a step's (BEGIN, COMMIT, the plan mode). */
type Sent = { result: Promise<pg.QueryResult>; rows: boolean };

const command = (client: pg.PoolClient, text: string): Sent => ({ result: client.query(text), rows: false });

/**
 * Sends the steps, in a transaction. A run of steps marked `genericPlan` goes between two settings of
 * `plan_cache_mode` (local to the transaction): generic plans for them, the server's default for the others.
 */
function send(client: pg.PoolClient, steps: readonly Step<unknown>[]): Sent[] {
  const sent: Sent[] = [];
  let generic = false;
  for (const { statement, values } of steps) {
    if (Boolean(statement.genericPlan) !== generic) {
      generic = !generic;
      sent.push(command(client, generic ? GENERIC_PLANS : DEFAULT_PLANS));
    }
    sent.push({ result: client.query({ name: statement.name, text: statement.text, values }), rows: true });
  }
  if (generic) sent.push(command(client, DEFAULT_PLANS));
  return sent;
}
const GENERIC_PLANS = 'SET LOCAL plan_cache_mode = force_generic_plan';
const DEFAULT_PLANS = 'SET LOCAL plan_cache_mode TO DEFAULT';

/** The rows of each step sent, or the first error (in the order sent). */
async function settle(sent: Sent[]): Promise<unknown[][]> {
  const settled = await Promise.allSettled(sent.map(({ result }) => result));
  const rows: unknown[][] = [];
  for (const [i, outcome] of settled.entries()) {
    if (outcome.status === 'rejected') throw outcome.reason;
    if (sent[i]?.rows) rows.push(outcome.value.rows);
  }
  return rows;
}

/**
 * Sends the statements at once (with BEGIN and COMMIT when `own`); answers each one's rows, or throws the first
 * error. With `then`, the statements it makes of those rows go after them, before the COMMIT: two round trips.
 */
async function sendAll(client: pg.PoolClient, steps: readonly Step<unknown>[], own: boolean, then?: Then) {
  const begin = () => (own ? [command(client, 'BEGIN')] : []);
  // After an error PostgreSQL ends the transaction with ROLLBACK whatever is sent.
  const commit = () => (own ? [command(client, 'COMMIT')] : []);
  if (!then) return await settle(inOneWrite(client, () => [...begin(), ...send(client, steps), ...commit()]));
  let rows: unknown[][];
  let more: readonly Step<unknown>[];
  try {
    rows = await settle(inOneWrite(client, () => [...begin(), ...send(client, steps)]));
    more = then(rows);
  } catch (error) {
    if (own) await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
  await settle(inOneWrite(client, () => [...send(client, more), ...commit()]));
  return rows;
}

/**
 * The statements `sendAll` sends, in one write to the socket: pg writes each statement as it is sent (a system
 * call each, six for an address create); the socket is corked meanwhile, so they leave together.
 */
function inOneWrite<T>(client: pg.PoolClient, sending: () => T): T {
  const socket = client.connection.stream;
  socket.cork();
  try {
    return sending();
  } finally {
    socket.uncork();
  }
}

async function runInOrder(db: Db, steps: readonly Step<unknown>[], then?: Then): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  for (const { statement, values } of steps) rows.push(await runStatement(db, statement, values));
  if (then) for (const { statement, values } of then(rows)) await runStatement(db, statement, values);
  return rows;
}

function runSteps(db: Db, steps: readonly Step<unknown>[], then?: Then): Promise<unknown[][]> {
  const link = db[driverLink];
  switch (link?.kind) {
    case 'pool':
      // On a pooled connection of its own, not a multiplexed one: a batch that writes waits for its commit to
      // be flushed, and commits share flushes only when many connections commit at once.
      return withConnection(link, (client) => sendAll(client, steps, true, then));
    case 'connection':
      return sendAll(link.client, steps, !link.inTransaction, then);
    case 'pglite':
      return transaction(db, (tx) => runInOrder(tx, steps, then));
    default:
      return runInOrder(db, steps, then);
  }
}

/**
 * Runs the named statements as one transaction in one round trip; answers each one's rows, or what `conclusion`
 * makes of them.
 */
export async function pipeline<const S extends Steps>(db: Db, steps: S): Promise<Results<S>>;
export async function pipeline<const S extends Steps, T>(
  db: Db,
  steps: S,
  conclusion: Conclusion<Results<S>, T>,
): Promise<T>;
export async function pipeline<const S extends Steps, T>(
  db: Db,
  steps: S,
  conclusion?: Conclusion<Results<S>, T>,
): Promise<Results<S> | T> {
  const groups = Object.entries(steps).map(([name, group]) => ({ name, list: Array.isArray(group) ? group : [group] }));
  const named = (rows: unknown[][]) => {
    let at = 0;
    const results: Record<string, unknown[]> = {};
    for (const { name, list } of groups) {
      results[name] = rows.slice(at, at + list.length).flat();
      at += list.length;
    }
    // Each name's rows are typed by its statements.
    return results as Results<S>;
  };
  const list = groups.flatMap(({ list }) => list as readonly Step<unknown>[]);
  if (!conclusion) return named(await runSteps(db, list));
  const { value, keep } = conclusion;
  if (!keep) return value(named(await runSteps(db, list)));
  let answer: { value: T } | undefined;
  await runSteps(db, list, (rows) => {
    answer = { value: value(named(rows)) };
    return keep(answer.value);
  });
  if (!answer) throw new Error('a pipeline with a conclusion ended without one');
  return answer.value;
}
/** Runs `work` in a transaction on the connection: BEGIN, COMMIT when it resolves, ROLLBACK when it throws. */
async function inTransaction<T>(client: pg.PoolClient, tx: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  let result: T;
  try {
    result = await work(tx);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
  await client.query('COMMIT');
  return result;
}

let savepoints = 0;

async function inSavepoint<T>(client: pg.PoolClient, tx: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  const name = `s${++savepoints}`;
  await client.query(`SAVEPOINT ${name}`);
  try {
    const result = await work(tx);
    await client.query(`RELEASE SAVEPOINT ${name}`);
    return result;
  } catch (error) {
    await client.query(`ROLLBACK TO SAVEPOINT ${name}`).catch(() => {});
    throw error;
  }
}

/**
 * Runs `work` in a transaction; inside one, in a savepoint (a failure undoes only what `work` did, and the
 * caller's transaction goes on).
 */
export async function transaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  const link = db[driverLink];
  switch (link?.kind) {
    case 'pool':
      return withConnection(link, (client) => inTransaction(client, handleOf(client, link.feed, true), work));
    case 'connection':
      return link.inTransaction
        ? inSavepoint(link.client, db, work)
        : inTransaction(link.client, handleOf(link.client, link.feed, true), work);
    case 'pglite':
    case 'pglite-transaction': {
      const inner = { kind: 'pglite-transaction', pglite: link.pglite, feed: link.feed } as const;
      return db.transaction((tx) => work(Object.assign(tx, { [driverLink]: inner })));
    }
    default:
      return db.transaction(work);
  }
}

/**
 * Runs `work` with a database that is one pooled connection (statements one after another, no transaction
 * around them): for a read whose answer a pipeline on the same connection then writes from, with nothing
 * queued in between. Elsewhere (PGlite, a transaction) `work` gets `db` itself.
 */
export async function onOneConnection<T>(db: Db, work: (connection: Db) => Promise<T>): Promise<T> {
  const link = db[driverLink];
  if (link?.kind !== 'pool') return work(db);
  return withConnection(link, (client) => work(handleOf(client, link.feed, false)));
}
