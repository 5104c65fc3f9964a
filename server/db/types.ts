import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema';

/** A database or a transaction on it, with either driver. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** The rows of a raw `db.execute(sql…)` result; both drivers answer `{rows}`. */
export const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;
