import { DrizzleQueryError, type SQL, sql } from 'drizzle-orm';
import type pg from 'pg';
import { runNamedOnPglite } from './pglite-statements';
import { type Db, driverLink } from './types';

/** A named statement, its parameters numbered ($1, $2 …) as the driver takes them. */
export interface Statement {
  name: string;
  text: string;
  /** A write run outside a transaction takes a pooled connection, never the multiplexed reads' (multiplexer.ts). */
  writes?: boolean;
  /** May wait on a lock: outside a transaction it takes a pooled connection too (a wait there would hold up every read behind it). */
  waits?: boolean;
  /** Planned for its values on every call (sent unnamed), never with a generic plan. */
  planEachCall?: boolean;
  /**
   * In a pipeline on a PostgreSQL server, run with a generic plan from its first call (pipeline.ts): for a
   * statement whose custom plan costs more to make than to run and whose generic plan was checked to be as
   * good on large data (PostgreSQL keeps planning it for each call otherwise).
   */
  genericPlan?: boolean;
}

/** A statement with its values, as one step of a pipeline; `Row` is the type of its rows. */
export interface Step<Row> {
  statement: Statement;
  values: unknown[];
  /** Only carries the row type. */
  readonly row?: Row;
}

const texts = new Map<string, string>();

/** Runs one statement on the handle's driver: a named prepared statement, on a PostgreSQL server and on PGlite. */
export async function runStatement<Row>(db: Db, statement: Statement, values: unknown[]): Promise<Row[]> {
  const { text, writes } = statement;
  const name = statement.planEachCall ? undefined : statement.name;
  const link = db[driverLink];
  switch (link?.kind) {
    case 'pool':
      if (writes || statement.waits)
        return (await link.pool.query<Row & pg.QueryResultRow>({ name, text, values })).rows;
      return link.statements.query<Row>(name, text, values);
    case 'connection':
      return (await link.client.query({ name, text, values })).rows;
    case 'pglite':
    case 'pglite-transaction': {
      const inTransaction = link.kind === 'pglite-transaction';
      if (name) return runNamedOnPglite<Row>(link.pglite, { name, text }, values, inTransaction);
      if (!inTransaction) return (await link.pglite.query<Row>(text, values)).rows;
      return fromDrizzle<Row>(db, text, values);
    }
    default:
      return fromDrizzle<Row>(db, text, values);
  }
}

/** The rows of a statement run through drizzle (a PGlite transaction's unnamed statement, a test's handle). */
async function fromDrizzle<Row>(db: Db, text: string, values: unknown[]): Promise<Row[]> {
  return await parsedAsTheDriver<Row>(
    await db.execute(withValues(text, values)).catch((error: unknown) => {
      // The driver's own error, as on every other path (drizzle wraps it with the statement's text).
      throw error instanceof DrizzleQueryError && error.cause ? error.cause : error;
    }),
  );
}

/**
 * The column types drizzle asks both drivers to leave as text (it maps them itself for its own queries), by
 * their fixed OIDs in PostgreSQL's catalog: timestamp, timestamptz, date, interval.
 */
const LEFT_AS_TEXT = new Set<number>([1114, 1184, 1082, 1186]);

/**
 * The rows of a statement run through drizzle (a PGlite transaction, a handle without a driver link), with
 * the columns drizzle left as text parsed as the driver parses them everywhere else (timestamps as Dates).
 */
async function parsedAsTheDriver<Row>(result: unknown): Promise<Row[]> {
  const { rows, fields = [] } = result as {
    rows: Record<string, unknown>[];
    fields?: { name: string; dataTypeID: number }[];
  };
  const asText = fields.filter((field) => LEFT_AS_TEXT.has(field.dataTypeID));
  if (asText.length === 0) return rows as Row[];
  // PGlite's parsers, loaded here rather than at start: a process on a PostgreSQL server never needs PGlite.
  const { types } = await import('@electric-sql/pglite');
  return rows.map((row) => {
    const parsed = { ...row };
    for (const { name, dataTypeID } of asText) {
      const value = parsed[name];
      if (typeof value === 'string') parsed[name] = types.parseType(value, dataTypeID);
    }
    return parsed as Row;
  });
}

/** A named parameter, `:orgId`; not a cast (`::text`) nor inside a word. */
const PARAMETER = /(?<![:\w]):([A-Za-z_]\w*)/g;

/** A statement that may write (a `FOR UPDATE` read counts too: it is only ever meant inside a transaction). */
const WRITES = /\b(INSERT|UPDATE|DELETE|MERGE)\b/i;

/**
 * A SQL statement with named parameters (`:orgId`; arrays as arrays) for the hot paths and the writes: it goes
 * straight to the driver, on a PostgreSQL server as a named prepared statement (parsed and planned once per
 * connection), with no query building, in or out of a transaction. Outside a transaction a read goes over the
 * multiplexed connections (multiplexer.ts) and a write over the pool. Rows come back as the driver gives them.
 * `step(params)` makes it one statement of a `pipeline`. With `planEachCall`, it is planned for its values
 * every time (for a pattern the planner must see to use its index).
 */
export function prepared<Row, Params extends object = Record<never, never>>(
  name: string,
  named: string,
  options: Pick<Statement, 'planEachCall' | 'genericPlan' | 'waits'> = {},
) {
  const order: string[] = [];
  const text = named.replace(PARAMETER, (_, param: string) => {
    if (!order.includes(param)) order.push(param);
    return `$${order.indexOf(param) + 1}`;
  });
  // A connection keeps one statement per name: two texts under one name would fail at run time.
  if (texts.has(name) && texts.get(name) !== text) throw new Error(`Two prepared statements are named ${name}`);
  texts.set(name, text);
  const statement = { name, text, writes: WRITES.test(text), ...options };
  const valuesOf = (params: Params) =>
    order.map((param) => {
      // A name the statement uses that its caller's type lacks is a mistake in the statement.
      if (!(param in params)) throw new Error(`${name}: no value given for :${param}`);
      return (params as Record<string, unknown>)[param];
    });
  const run = (db: Db, ...params: keyof Params extends never ? [] : [Params]): Promise<Row[]> =>
    runStatement<Row>(db, statement, valuesOf((params[0] ?? {}) as Params));
  return Object.assign(run, {
    step: (...params: keyof Params extends never ? [] : [Params]): Step<Row> => ({
      statement,
      values: valuesOf((params[0] ?? {}) as Params),
    }),
  });
}

/** `text` with its $n placeholders bound to `values`, each one drizzle parameter (an array too). */
function withValues(text: string, values: unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  return sql.join(parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql.param(values[Number(part) - 1]))));
}
