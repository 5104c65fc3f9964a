/**
 * Several prepared statements sent to PostgreSQL together: one write and one round trip on a server, run
 * as one transaction (PostgreSQL's implicit transaction up to the Sync that ends the batch, or the caller's
 * transaction when `db` is one). Each statement still takes its own snapshot, so a lock taken by one is
 * held while the next reads; the first error rolls the whole batch back and rejects.
 *
 * On PGlite, which has no wire protocol, the statements run one after another in a transaction.
 */
import pg from 'pg';
import pgUtils from 'pg/lib/utils.js';
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
class Batch {
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
  submit(connection: PgConnection) {
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

type PgClient = pg.PoolClient & { connection: PgConnection };

async function runOnClient(client: PgClient, steps: readonly Step<unknown>[]): Promise<unknown[][]> {
  // Statements new to this connection are parsed first, once, in a batch of their own: a Parse inside the
  // main batch could not be told apart from its execution when that fails.
  const parsed = client.connection.parsedStatements;
  const unparsed = [
    ...new Map(steps.filter((s) => parsed[s.statement.name] === undefined).map((s) => [s.statement.name, s])).values(),
  ];
  if (unparsed.length > 0) {
    const parse = new Batch(unparsed, true);
    client.query(parse as never);
    await parse.promise;
    for (const { statement } of unparsed) parsed[statement.name] = statement.text;
  }
  const batch = new Batch(steps);
  client.query(batch as never);
  return batch.promise;
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

const begin: Step<never> = { statement: { name: 'pipeline_begin', text: 'BEGIN' }, values: [] };

/** BEGIN sent with the steps, then `settle`, then COMMIT; any failure after BEGIN ends in ROLLBACK. */
async function settleOn<T>(
  connection: PgClient,
  steps: readonly Step<unknown>[],
  settle: (rows: unknown[][]) => T | Promise<T>,
): Promise<T> {
  try {
    const [, ...rows] = await runOnClient(connection, [begin, ...steps]);
    const result = await settle(rows);
    await connection.query('COMMIT');
    return result;
  } catch (error) {
    await connection.query('ROLLBACK');
    throw error;
  }
}

/**
 * Runs the steps in a transaction (its BEGIN sent with them) and hands their rows to `settle`, which answers
 * the result or throws to roll everything back; then COMMIT: two round trips. The rules that need what the
 * statements read stay in TypeScript, and a write they refuse is never committed. When `db` is already a
 * transaction, the steps and `settle` run in it.
 */
export async function pipelineTransaction<const Steps extends readonly Step<unknown>[], T>(
  db: Db,
  steps: Steps,
  settle: (rows: RowsOf<Steps>) => T | Promise<T>,
): Promise<T> {
  const client = driverClientOf(db);
  const settleRows = settle as (rows: unknown[][]) => T | Promise<T>;
  if (client instanceof pg.Pool) {
    const connection = (await client.connect()) as PgClient;
    try {
      return await settleOn(connection, steps, settleRows);
    } finally {
      // The pool drops a connection whose socket failed.
      connection.release();
    }
  }
  if (client instanceof pg.Client) return settleRows(await runOnClient(client as PgClient, steps));
  const pglite = client as PgliteLike;
  if (typeof pglite.transaction === 'function') {
    return pglite.transaction(async (tx) => settleRows(await runInOrder(tx, steps)));
  }
  return settleRows(await runInOrder(pglite, steps));
}

/** Runs the steps as one transaction in one round trip; answers each step's rows, in order. */
export async function pipeline<const Steps extends readonly Step<unknown>[]>(
  db: Db,
  steps: Steps,
): Promise<RowsOf<Steps>> {
  const client = driverClientOf(db);
  if (client instanceof pg.Pool) {
    const connection = (await client.connect()) as PgClient;
    try {
      return (await runOnClient(connection, steps)) as RowsOf<Steps>;
    } finally {
      // The pool drops a connection whose socket failed.
      connection.release();
    }
  }
  if (client instanceof pg.Client) return (await runOnClient(client as PgClient, steps)) as RowsOf<Steps>;
  const pglite = client as PgliteLike;
  // A PGlite transaction object has no transaction(): the caller's transaction holds the steps.
  if (typeof pglite.transaction === 'function') {
    return (await pglite.transaction((tx) => runInOrder(tx, steps))) as RowsOf<Steps>;
  }
  return (await runInOrder(pglite, steps)) as RowsOf<Steps>;
}
