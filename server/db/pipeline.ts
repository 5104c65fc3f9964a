/**
 * Several prepared statements sent to PostgreSQL together: one write and one round trip on a server, run
 * as one transaction (PostgreSQL's implicit transaction up to the Sync that ends the batch, or the caller's
 * transaction when `db` is one). Each statement still takes its own snapshot, so a lock taken by one is
 * held while the next reads; the first error rolls the whole batch back and rejects.
 *
 * On PGlite, which has no wire protocol, the statements run one after another in a transaction.
 */
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
import * as schema from './schema';
import { type Db, driverClientOf } from './types';

/** A named statement with positional parameters ($1, $2 …). */
export interface Statement {
  name: string;
  text: string;
}

/** A statement with its values, as one step of a pipeline; `Row` is the type of its rows. */
export interface Step<Row> {
  statement: Statement;
  values: unknown[];
  /** Only carries the row type. */
  readonly row?: Row;
}

type RowsOf<Steps extends readonly Step<unknown>[]> = {
  [K in keyof Steps]: Steps[K] extends Step<infer Row> ? Row[] : never;
};

type PgConnection = {
  parsedStatements: Record<string, string>;
  stream: { cork?: () => void; uncork?: () => void };
  parse(query: { name: string; text: string; types: unknown[] }): void;
  bind(config: { portal: string; statement: string; values: unknown[]; valueMapper: (v: unknown) => unknown }): void;
  describe(message: { type: 'P'; name: string }): void;
  execute(config: { portal: string; rows: number }): void;
  sync(): void;
};
type PgMessage = { fields: unknown[] };
/** pg's parser of one statement's rows (by its row description, with the global type parsers). */
type PgResult = {
  rows: unknown[];
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): unknown;
  addRow(row: unknown): void;
};
const Result = pg.Result as unknown as new (rowMode: undefined, types: typeof pg.types) => PgResult;

/**
 * A pg Submittable (the interface pg-cursor uses): writes Bind/Describe/Execute for every step and one Sync,
 * corked into a single write, and collects each step's rows as pg would parse them. With `parseOnly`, it
 * writes the Parse of every statement instead (and nothing to execute).
 */
class Batch implements pg.Submittable {
  private readonly results: PgResult[];
  private current = 0;
  private failed = false;
  readonly promise: Promise<unknown[][]>;
  private resolve!: (rows: unknown[][]) => void;
  private reject!: (error: unknown) => void;

  constructor(
    private readonly steps: readonly Step<unknown>[],
    private readonly parseOnly = false,
  ) {
    this.results = steps.map(() => new Result(undefined, pg.types));
    this.promise = new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Writes the batch; an Error returned (a value that cannot be sent) is handed back by pg before any write. */
  submit(pgConnection: pg.Connection) {
    // pg's typings leave out the parts of its connection a Submittable uses: their shape as pg 8 has them.
    const connection = pgConnection as unknown as PgConnection;
    let parameters: unknown[][];
    try {
      parameters = this.steps.map((step) => step.values.map(pgUtils.prepareValue));
    } catch (error) {
      return error as Error;
    }
    connection.stream.cork?.();
    try {
      this.steps.forEach(({ statement }, i) => {
        if (this.parseOnly) {
          connection.parse({ name: statement.name, text: statement.text, types: [] });
          return;
        }
        connection.bind({ portal: '', statement: statement.name, values: parameters[i], valueMapper: same });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: PgMessage) {
    this.results[this.current].addFields(message.fields);
  }

  handleDataRow(message: PgMessage) {
    const result = this.results[this.current];
    result.addRow(result.parseRow(message.fields));
  }

  handleCommandComplete() {
    this.current++;
  }

  handleEmptyQuery() {
    this.current++;
  }

  handleError(error: unknown) {
    // pg forgets the active query after an error: no ReadyForQuery reaches this batch.
    this.failed = true;
    this.reject(error);
  }

  handleReadyForQuery() {
    if (!this.failed) this.resolve(this.results.map((result) => result.rows));
  }

  handlePortalSuspended() {}
  handleCopyInResponse() {}
  handleCopyData() {}
}

const same = (value: unknown) => value;

type PgClient = pg.PoolClient & {
  connection: PgConnection & { submittedNamedStatements: Record<string, string> };
};

/**
 * Sends the steps on a connection. Statements new to it are parsed first, in a batch of their own (a Parse
 * inside the main batch could not be told apart from its execution when that fails). A statement counts as
 * parsed from the moment its Parse is sent, as pg counts its own.
 */
async function runOnClient(client: PgClient, steps: readonly Step<unknown>[]): Promise<unknown[][]> {
  const { parsedStatements: parsed, submittedNamedStatements: submitted } = client.connection;
  const unparsed = [
    ...new Map(
      steps.filter((s) => !parsed[s.statement.name] && !submitted[s.statement.name]).map((s) => [s.statement.name, s]),
    ).values(),
  ];
  let parsing: Promise<unknown> = Promise.resolve();
  if (unparsed.length > 0) {
    const parse = new Batch(unparsed, true);
    for (const { statement } of unparsed) submitted[statement.name] = statement.text;
    client.query(parse);
    parsing = parse.promise.then(
      () => {
        for (const { statement } of unparsed) {
          parsed[statement.name] = statement.text;
          delete submitted[statement.name];
        }
      },
      (error) => {
        for (const { statement } of unparsed) delete submitted[statement.name];
        throw error;
      },
    );
  }
  const batch = new Batch(steps);
  client.query(batch);
  const [parsedOutcome, rows] = await Promise.allSettled([parsing, batch.promise]);
  if (parsedOutcome.status === 'rejected') throw parsedOutcome.reason;
  if (rows.status === 'rejected') throw rows.reason;
  return rows.value;
}

type PgliteLike = {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
  transaction?<T>(run: (tx: PgliteLike) => Promise<T>): Promise<T>;
};

async function runInOrder(client: PgliteLike, steps: readonly Step<unknown>[]): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  for (const { statement, values } of steps) rows.push((await client.query(statement.text, values)).rows);
  return rows;
}

/** A drizzle database over one pooled connection, made once per connection (making one reads the whole schema). */
const databases = new WeakMap<object, Db>();

/**
 * Runs `work` with a database that is one pooled connection (statements one after another, no transaction
 * around them): for a read whose answer a pipeline on the same connection then writes from, with nothing
 * queued in between. Elsewhere (PGlite, a transaction) `work` gets `db` itself.
 */
export async function onOneConnection<T>(db: Db, work: (connection: Db) => Promise<T>): Promise<T> {
  const client = driverClientOf(db);
  if (!(client instanceof pg.Pool)) return work(db);
  const connection = await client.connect();
  try {
    let single = databases.get(connection);
    if (!single) {
      single = drizzlePg(connection, { schema }) as unknown as Db;
      databases.set(connection, single);
    }
    return await work(single);
  } finally {
    connection.release();
  }
}

/** Runs the steps as one transaction in one round trip; answers each step's rows, in order. */
export async function pipeline<const Steps extends readonly Step<unknown>[]>(
  db: Db,
  steps: Steps,
): Promise<RowsOf<Steps>> {
  // On a pooled connection of its own, not a multiplexed one: a batch that writes waits for its commit to be
  // flushed, and commits share flushes only when many connections commit at once.
  const client = driverClientOf(db);
  if (client instanceof pg.Pool) {
    const connection = (await client.connect()) as unknown as PgClient;
    try {
      return (await runOnClient(connection, steps)) as RowsOf<Steps>;
    } finally {
      // The pool drops a connection whose socket failed.
      connection.release();
    }
  }
  if (client instanceof pg.Client) return (await runOnClient(client as unknown as PgClient, steps)) as RowsOf<Steps>;
  const pglite = client as PgliteLike;
  // A PGlite transaction object has no transaction(): the caller's transaction holds the steps.
  if (typeof pglite.transaction === 'function') {
    return (await pglite.transaction((tx) => runInOrder(tx, steps))) as RowsOf<Steps>;
  }
  return (await runInOrder(pglite, steps)) as RowsOf<Steps>;
}
