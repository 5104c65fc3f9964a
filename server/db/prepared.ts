import { type SQL, sql } from 'drizzle-orm';
import type { Db } from './connection';

type RawQuery = (name: string, text: string, values: unknown[]) => Promise<unknown[]>;

/** The driver's own query function of each opened database (not of its transactions). */
const rawQueries = new WeakMap<object, RawQuery>();

export function registerRawQuery(db: Db, query: RawQuery): void {
  rawQueries.set(db, query);
}

/**
 * A SQL statement with positional parameters ($1, $2 …) for the hot paths: on the database itself it goes
 * to the driver as a named prepared statement (parsed and planned once per connection, no query building),
 * inside a transaction through drizzle as usual. Rows come back as the driver gives them.
 */
export function prepared<Row>(name: string, text: string) {
  return async (db: Db, ...values: unknown[]): Promise<Row[]> => {
    const raw = rawQueries.get(db);
    if (raw) return (await raw(name, text, values)) as Row[];
    return ((await db.execute(withValues(text, values))) as unknown as { rows: Row[] }).rows;
  };
}

/** `text` with its $n placeholders bound to `values` as drizzle parameters. */
function withValues(text: string, values: unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  const chunks: SQL[] = [];
  for (let i = 0; i < parts.length; i++) {
    chunks.push(i % 2 === 0 ? sql.raw(parts[i]) : sql`${values[Number(parts[i]) - 1]}`);
  }
  return sql.join(chunks);
}
