/**
 * The SQL of the rate-limit counters every server process shares (`rate_limit_counters`), for
 * server/http/rate-limit.ts's `postgresCounters`.
 */
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from './types';

/** Claims `size` hits of the key's window in one upsert: its row, with the window's count after the claim. */
export const claimCounterHits = async (db: Db, key: string, windowStart: Date, size: number) =>
  rowsOf<{ count: number }>(
    await db.execute(sql`
        INSERT INTO rate_limit_counters (key, window_start, count) VALUES (${key}, ${windowStart}, ${size})
        ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + ${size}, claimed_at = now()
        RETURNING count`),
  );

/**
 * Deletes the rows no process has claimed from for `idleMs` by the database's clock (migration 0019): whatever
 * a process's clock says, its claims in one window fall within the window's length of each other.
 */
export async function deleteIdleCounters(db: Db, idleMs: number): Promise<void> {
  await db.execute(sql`
        DELETE FROM rate_limit_counters WHERE claimed_at < now() - ${`${idleMs} milliseconds`}::interval`);
}
