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

type RowsOf<Steps extends readonly Step<unknown>[]> = {
  [K in keyof Steps]: Steps[K] extends Step<infer Row> ? Row[] : never;
};

type PoolLink = Extract<DriverLink, { kind: 'pool' }>;

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

/** Sends the statements at once; answers each one's rows, or throws the first error (in the order sent). */
async function sendAll(client: pg.PoolClient, steps: readonly Step<unknown>[], own: boolean): Promise<unknown[][]> {
  const sent = [
    ...(own ? [client.query('BEGIN')] : []),
    ...steps.map(({ statement, values }) => client.query({ name: statement.name, text: statement.text, values })),
    // After an error PostgreSQL ends the transaction with ROLLBACK whatever is sent.
    ...(own ? [client.query('COMMIT')] : []),
  ];
  const settled = await Promise.allSettled(sent);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  return settled
    .slice(own ? 1 : 0, own ? -1 : undefined)
    .map((outcome) => (outcome.status === 'fulfilled' ? outcome.value.rows : []));
}

async function runInOrder(db: Db, steps: readonly Step<unknown>[]): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  for (const { statement, values } of steps) rows.push(await runStatement(db, statement, values));
  return rows;
}

async function runSteps(db: Db, steps: readonly Step<unknown>[]): Promise<unknown[][]> {
  const link = db[driverLink];
  switch (link?.kind) {
    case 'pool':
      // On a pooled connection of its own, not a multiplexed one: a batch that writes waits for its commit to
      // be flushed, and commits share flushes only when many connections commit at once.
      return withConnection(link, (client) => sendAll(client, steps, true));
    case 'connection':
      return sendAll(link.client, steps, !link.inTransaction);
    case 'pglite':
      return transaction(db, (tx) => runInOrder(tx, steps));
    default:
      return runInOrder(db, steps);
  }
}

/** Runs the steps as one transaction in one round trip; answers each step's rows, in order. */
export async function pipeline<const Steps extends readonly Step<unknown>[]>(
  db: Db,
  steps: Steps,
): Promise<RowsOf<Steps>> {
  const rows: unknown[][] = await runSteps(db, steps);
  // Each step's rows are typed by its statement.
  return rows as RowsOf<Steps>;
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
      const inner = { kind: 'pglite-transaction', feed: link.feed } as const;
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
