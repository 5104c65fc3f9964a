/**
 * The lease algorithm of the shared rate-limit counters against its model, over random limits, numbers
 * of processes and interleavings: several stores on one database (each a process) never admit more than
 * the limit together, and refuse at most (processes − 1) × (lease − 1) early. Runs on both databases.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../server/db/connection';
import { rowsOf } from '../../server/db/types';
import { leaseSize, postgresCounters } from '../../server/http/rate-limit';
import { defined } from '../support/defined';

const url = process.env.TEST_DATABASE_URL;
let database: Database;
/** The current minute. */
const currentWindow = () => new Date(Date.now() - (Date.now() % 60_000));

beforeAll(async () => {
  database = await openDatabase(url ? { databaseUrl: url, maxConnections: 4 } : { dataDir: null });
});
afterAll(() => database?.close());

describe('rate-limit leases across processes', () => {
  it('admit at most the limit and at least the limit less one partly used lease per other process', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.nat(), { minLength: 1, maxLength: 900 }),
        async (limit, processes, picks) => {
          const stores = Array.from({ length: processes }, () => postgresCounters(database.db));
          const key = `lease-test:${randomUUID()}`;
          const window = currentWindow();
          // Demand beyond the limit, spread over the processes in the drawn order, some hits at once.
          const demand = limit + picks.length;
          let admitted = 0;
          for (let i = 0; i < demand; i += 3) {
            const hits = [0, 1, 2].filter((k) => i + k < demand);
            const answers = await Promise.all(
              hits.map((k) =>
                defined(stores[(picks[(i + k) % picks.length] ?? 0) % processes], 'a store').take(
                  key,
                  window,
                  60_000,
                  limit,
                ),
              ),
            );
            admitted += answers.filter((a) => a.allowed).length;
          }
          expect(admitted).toBeLessThanOrEqual(limit);
          expect(admitted).toBeGreaterThanOrEqual(limit - (processes - 1) * (leaseSize(limit) - 1));
        },
      ),
      { numRuns: 25 },
    );
  });

  it('is exact for one process: each hit is admitted until the limit, with the remaining count', async () => {
    const store = postgresCounters(database.db);
    const key = `lease-test:${randomUUID()}`;
    const window = currentWindow();
    const answers = [];
    for (let i = 0; i < 130; i++) answers.push(await store.take(key, window, 60_000, 120));
    expect(answers.map((a) => a.allowed)).toEqual([...Array(120).fill(true), ...Array(10).fill(false)]);
    expect(answers.slice(0, 120).map((a) => a.remaining)).toEqual(Array.from({ length: 120 }, (_, i) => 119 - i));
  });

  it('keeps the count of a process whose clock stands in a window long past while another process sweeps', async () => {
    const key = `lease-test:${randomUUID()}`;
    const longAgo = new Date('2025-06-01T00:00:00Z');
    const behind = postgresCounters(database.db);
    for (let i = 0; i < 5; i++) expect((await behind.take(key, longAgo, 60_000, 6)).allowed).toBe(true);
    // A new store sweeps on its first claim.
    await postgresCounters(database.db).take(`lease-test:${randomUUID()}`, currentWindow(), 60_000, 6);
    // A new process, so that no lease in memory answers for the database.
    const again = postgresCounters(database.db);
    const answers = [await again.take(key, longAgo, 60_000, 6), await again.take(key, longAgo, 60_000, 6)];
    expect(answers.map((a) => a.allowed)).toEqual([true, false]);
  });

  it('a sweep deletes the rows nobody has claimed from for an hour, and no other', async () => {
    const [idle, busy] = [`lease-test:${randomUUID()}`, `lease-test:${randomUUID()}`];
    const window = currentWindow();
    await postgresCounters(database.db).take(idle, window, 60_000, 6);
    await postgresCounters(database.db).take(busy, window, 60_000, 6);
    await database.db.execute(
      sql`UPDATE rate_limit_counters SET claimed_at = now() - interval '61 minutes' WHERE key = ${idle}`,
    );
    await postgresCounters(database.db).take(`lease-test:${randomUUID()}`, window, 60_000, 6);
    const rows = rowsOf<{ key: string }>(
      await database.db.execute(sql`SELECT key FROM rate_limit_counters WHERE key IN (${idle}, ${busy})`),
    );
    expect(rows.map((r) => r.key)).toEqual([busy]);
  });
});
