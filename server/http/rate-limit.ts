import type { Db } from '../db/connection';
import { claimCounterHits, deleteIdleCounters } from '../db/rate-limit-counters';

/**
 * The longest window a caller may use (sign-in links per 15 minutes, invitations per hour). Counter rows
 * are kept this long after their last claim, so one sweep serves windows of every length.
 */
export const LONGEST_WINDOW_MS = 60 * 60_000;

/** Whether one more hit of a key fits `limit` in the fixed window starting at `windowStart`. */
export interface CounterStore {
  take(
    key: string,
    windowStart: Date,
    windowMs: number,
    limit: number,
  ): Promise<{ allowed: boolean; remaining: number }>;
}

/** Counters in this process: exact, and right for the embedded database, which only one process can open. */
export function memoryCounters(): CounterStore {
  const counters = new Map<string, { windowStart: number; windowEnd: number; count: number }>();
  return {
    async take(key, windowStart, windowMs, limit) {
      const start = windowStart.getTime();
      let current = counters.get(key);
      if (!current || current.windowStart !== start) {
        if (counters.size > 100_000) sweep(counters, start);
        current = { windowStart: start, windowEnd: start + windowMs, count: 0 };
        counters.set(key, current);
      }
      current.count++;
      return { allowed: current.count <= limit, remaining: Math.max(0, limit - current.count) };
    },
  };
}

function sweep(states: Map<string, { windowEnd: number }>, now: number) {
  for (const [key, state] of states) if (state.windowEnd <= now) states.delete(key);
}

/**
 * The hits a process may admit before asking the database again: 2 % of the limit (1 for limits up to
 * 50, so small limits such as sign-ins stay exact), at most 1,000.
 */
export const leaseSize = (limit: number) => Math.min(1000, Math.max(1, Math.ceil(limit / 50)));

interface Lease {
  windowStart: number;
  windowEnd: number;
  /** Hits this process has claimed in the database and not yet used. */
  left: number;
  /** The window's count in the database after this process's last claim (every process's claims). */
  claimed: number;
  /** The database had nothing left for this window: refuse without asking again until it ends. */
  exhausted: boolean;
  claiming: Promise<void> | null;
}

/**
 * Counters in PostgreSQL shared by every server process, claimed in leases so that a request seldom
 * writes: a process claims `leaseSize(limit)` hits of a key's window with one upsert and admits them from
 * memory. Claims are atomic, so all processes together never admit more than the limit; hits leased by one
 * process and unused when the window ends are lost, so with P processes a caller may be refused up to
 * (P − 1) × (leaseSize − 1) requests early (2 % of the limit per extra process). See docs/performance.md.
 */
export function postgresCounters(db: Db): CounterStore {
  const leases = new Map<string, Lease>();
  let lastSweep = 0;

  async function claim(key: string, lease: Lease, limit: number) {
    const size = leaseSize(limit);
    const windowStart = new Date(lease.windowStart);
    const [row] = await claimCounterHits(db, key, windowStart, size);
    // An upsert answers its row: none is a bug, not a refusal.
    if (!row) throw new Error('Expected the rate-limit counter upserted, but the query returned no row');
    const before = row.count - size;
    const granted = Math.max(0, Math.min(size, limit - before));
    lease.left += granted;
    lease.claimed = row.count;
    if (granted < size) lease.exhausted = true;
    // At most once a minute per process, delete the rows nobody has claimed from for longer than any window
    // lasts, by the database's clock: a process whose clock runs behind or stands still (a skewed host, a
    // test's fixed clock) still counts in a window that began long ago by everyone else's.
    if (Date.now() - lastSweep >= 60_000) {
      lastSweep = Date.now();
      sweep(leases, lease.windowStart);
      await deleteIdleCounters(db, LONGEST_WINDOW_MS);
    }
  }

  return {
    async take(key, windowStart, windowMs, limit) {
      const start = windowStart.getTime();
      let lease = leases.get(key);
      if (!lease || lease.windowStart !== start) {
        lease = {
          windowStart: start,
          windowEnd: start + windowMs,
          left: 0,
          claimed: 0,
          exhausted: false,
          claiming: null,
        };
        leases.set(key, lease);
      }
      // Concurrent requests of one key wait for one claim rather than each claiming a lease.
      while (lease.left === 0 && !lease.exhausted) {
        const current = lease;
        current.claiming ??= claim(key, current, limit).finally(() => {
          current.claiming = null;
        });
        await current.claiming;
      }
      if (lease.left === 0) return { allowed: false, remaining: 0 };
      lease.left--;
      return { allowed: true, remaining: Math.max(0, limit - lease.claimed) + lease.left };
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
      const { allowed, remaining } = await store.take(key, windowStart, windowMs, limit);
      const resetAt = new Date(windowStart.getTime() + windowMs);
      return {
        allowed,
        limit,
        remaining,
        resetAt,
        retryAfterSeconds: Math.max(1, Math.ceil((resetAt.getTime() - time) / 1000)),
      };
    },
  };
}
export type RateLimiter = ReturnType<typeof rateLimiter>;
