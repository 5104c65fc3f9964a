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
        ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + ${size}
        RETURNING count`),
  );

/**
 * Deletes the windows that began `olderThanMs` before the earlier of `windowStart` and the database's clock
 * (see the sweep in postgresCounters).
 */
export async function deleteCountersBefore(db: Db, windowStart: Date, olderThanMs: number): Promise<void> {
  await db.execute(sql`
        DELETE FROM rate_limit_counters
        WHERE window_start < least(now(), ${windowStart}::timestamptz) - ${`${olderThanMs} milliseconds`}::interval`);
}
