/**
 * The lease algorithm of the shared rate-limit counters against its model, over random limits, numbers
 * of processes and interleavings: several stores on one database (each a process) never admit more than
 * the limit together, and refuse at most (processes − 1) × (lease − 1) early. Runs on both databases.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../server/db/connection';
import { leaseSize, postgresCounters } from '../../server/http/rate-limit';
import { defined } from '../support/defined';

const url = process.env.TEST_DATABASE_URL;
let database: Database;
/** The current minute: every process sweeps counter rows of windows that began over an hour ago. */
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
});
