import { sql } from 'drizzle-orm';
import type { Db } from '../db/connection';

/**
 * The longest window a caller may use (sign-in links per 15 minutes, invitations per hour). Counter rows
 * are kept this long after their window starts, so one sweep serves windows of every length.
 */
export const LONGEST_WINDOW_MS = 60 * 60_000;

/** Counts hits of a key in the fixed window starting at `windowStart`, answering the count after this hit. */
export interface CounterStore {
  increment(key: string, windowStart: Date, windowMs: number): Promise<number>;
}

/** Counters in this process: right for the embedded database, which only one process can open. */
export function memoryCounters(): CounterStore {
  const counters = new Map<string, { windowStart: number; windowEnd: number; count: number }>();
  return {
    async increment(key, windowStart, windowMs) {
      const start = windowStart.getTime();
      const current = counters.get(key);
      if (current && current.windowStart === start) return ++current.count;
      if (counters.size > 100_000) {
        for (const [k, v] of counters) if (v.windowEnd <= start) counters.delete(k);
      }
      counters.set(key, { windowStart: start, windowEnd: start + windowMs, count: 1 });
      return 1;
    },
  };
}

/** Counters in PostgreSQL, so several server processes on one database enforce one limit. */
export function postgresCounters(db: Db): CounterStore {
  let lastSweep = 0;
  return {
    async increment(key, windowStart) {
      const result = (await db.execute(sql`
        INSERT INTO rate_limit_counters (key, window_start, count) VALUES (${key}, ${windowStart}, 1)
        ON CONFLICT (key, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
        RETURNING count`)) as unknown as { rows: { count: number }[] };
      // At most once a minute per process, delete rows whose window began longer ago than any window lasts.
      if (Date.now() - lastSweep >= 60_000) {
        lastSweep = Date.now();
        const before = new Date(windowStart.getTime() - LONGEST_WINDOW_MS);
        await db.execute(sql`DELETE FROM rate_limit_counters WHERE window_start < ${before}`);
      }
      return result.rows[0].count;
    },
  };
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the current window ends. */
  resetAt: Date;
  retryAfterSeconds: number;
}

/** Fixed windows: `limit` hits per key per window; the clock is injectable so tests control time. */
export function rateLimiter(store: CounterStore, now: () => Date = () => new Date()) {
  return {
    async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
      if (!(windowMs > 0 && windowMs <= LONGEST_WINDOW_MS))
        throw new Error(`Rate-limit windows run from 1 ms to ${LONGEST_WINDOW_MS} ms, not ${windowMs}`);
      const time = now().getTime();
      const windowStart = new Date(time - (time % windowMs));
      const count = await store.increment(key, windowStart, windowMs);
      const resetAt = new Date(windowStart.getTime() + windowMs);
      return {
        allowed: count <= limit,
        limit,
        remaining: Math.max(0, limit - count),
        resetAt,
        retryAfterSeconds: Math.max(1, Math.ceil((resetAt.getTime() - time) / 1000)),
      };
    },
  };
}
export type RateLimiter = ReturnType<typeof rateLimiter>;
