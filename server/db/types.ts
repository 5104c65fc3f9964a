import type { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import type { ChangeFeed } from './change-feed';
import type { Multiplexer } from './multiplexer';
import type * as schema from './schema';

/**
 * How a database handle reaches its driver, kept on the handles this folder makes (openDatabase, transaction,
 * onOneConnection): the pool and its multiplexed connections on a PostgreSQL server, one checked-out pooled
 * connection (in a transaction or not), or PGlite. A handle without it (one a test made with drizzle itself)
 * runs everything through drizzle.
 */
export type DriverLink =
  | { kind: 'pool'; pool: pg.Pool; statements: Multiplexer; feed: ChangeFeed }
  | { kind: 'connection'; client: pg.PoolClient; inTransaction: boolean; feed: ChangeFeed }
  | { kind: 'pglite'; pglite: PGlite; feed: ChangeFeed }
  | { kind: 'pglite-transaction'; pglite: PGlite; feed: ChangeFeed };

export const driverLink = Symbol('driverLink');

/** A database or a transaction on it, with either driver. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema> & { readonly [driverLink]?: DriverLink };

/** The rows of a raw `db.execute(sql…)` result; both drivers answer `{rows}`. */
export const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;
