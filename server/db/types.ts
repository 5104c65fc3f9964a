import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type * as schema from './schema';

/** A database or a transaction on it, with either driver. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** The rows of a raw `db.execute(sql…)` result; both drivers answer `{rows}`. */
export const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;

/**
 * The driver client behind a drizzle database or transaction (a pg Pool, a pg PoolClient, PGlite or its
 * transaction). drizzle keeps it in its session, a field private in its types but stable in the pinned version.
 */
export const driverClientOf = (db: Db): unknown =>
  (db as unknown as { session?: { client?: unknown } }).session?.client;
