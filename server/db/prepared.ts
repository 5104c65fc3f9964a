import { type SQL, sql } from 'drizzle-orm';
import pg from 'pg';
import { multiplexerOf } from './multiplexer';
import type { Step } from './pipeline';
import { type Db, driverClientOf } from './types';

type RawQuery = (name: string, text: string, values: unknown[]) => Promise<unknown[]>;

/** How to send a statement straight to the driver; null: through drizzle. */
function rawQueryOf(db: Db): RawQuery | null {
  const client = driverClientOf(db);
  const statements = client instanceof pg.Pool ? multiplexerOf(client) : undefined;
  if (statements) return (name, text, values) => statements.query(name, text, values);
  if (client instanceof pg.Pool || client instanceof pg.Client) {
    return async (name, text, values) => (await client.query({ name, text, values })).rows;
  }
  const pglite = client as { query?: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }> } | undefined;
  if (typeof pglite?.query === 'function') {
    return async (_name, text, values) => (await pglite.query?.(text, values))?.rows ?? [];
  }
  return null;
}

const rawQueries = new WeakMap<Db, RawQuery | null>();
const texts = new Map<string, string>();

/**
 * A SQL statement with positional parameters ($1, $2 …) for the hot paths: it goes straight to the driver,
 * on a PostgreSQL server as a named prepared statement (parsed and planned once per connection), with no
 * query building, in or out of a transaction. Outside a transaction it goes over the multiplexed connections
 * (multiplexer.ts), so it must only read there; a write belongs in a transaction or a `pipeline`. Rows come back as the driver gives them. `step(...values)`
 * makes it one statement of a `pipeline`.
 */
export function prepared<Row>(name: string, text: string) {
  // A connection keeps one statement per name: two texts under one name would fail at run time.
  if (texts.has(name) && texts.get(name) !== text) throw new Error(`Two prepared statements are named ${name}`);
  texts.set(name, text);
  const statement = { name, text };
  const run = async (db: Db, ...values: unknown[]): Promise<Row[]> => {
    let raw = rawQueries.get(db);
    if (raw === undefined) {
      raw = rawQueryOf(db);
      rawQueries.set(db, raw);
    }
    if (raw) return (await raw(name, text, values)) as Row[];
    return ((await db.execute(withValues(text, values))) as unknown as { rows: Row[] }).rows;
  };
  return Object.assign(run, { step: (...values: unknown[]): Step<Row> => ({ statement, values }) });
}

/** `text` with its $n placeholders bound to `values` as drizzle parameters. */
function withValues(text: string, values: unknown[]): SQL {
  const parts = text.split(/\$(\d+)/);
  return sql.join(parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${values[Number(part) - 1]}`)));
}
