/**
 * `pipeline`: statements sent together run as one transaction, each step's rows in order, the first error
 * rolling back the batch; each statement takes its own snapshot. On both databases (the snapshot test
 * needs two connections: PostgreSQL server only).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, rowsOf } from '../../server/db/connection';
import { pipeline, transaction } from '../../server/db/pipeline';
import { prepared } from '../../server/db/prepared';

const url = process.env.TEST_DATABASE_URL;
const table = `pipeline_test_${randomUUID().replace(/-/g, '')}`;
let database: Database;

const insert = prepared<
  { id: number; label: string; at: Date; doc: { n: number } },
  { id: number; label: string; doc: string | null }
>(`${table}_insert`, `INSERT INTO ${table} (id, label, doc) VALUES (:id, :label, :doc) RETURNING id, label, at, doc`);
const labels = prepared<{ label: string }>(`${table}_labels`, `SELECT label FROM ${table} ORDER BY id`);
const lock = prepared<unknown, { key: string }>(
  `${table}_lock`,
  'SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))',
);
const nothing = prepared(`${table}_nothing`, `SELECT 1 AS one WHERE false`);

beforeAll(async () => {
  database = await openDatabase(url ? { databaseUrl: url, maxConnections: 3 } : { dataDir: null });
  await database.db.execute(
    sql.raw(`CREATE TABLE ${table} (id int PRIMARY KEY, label text NOT NULL, at timestamptz NOT NULL DEFAULT now(),
      doc jsonb)`),
  );
});
afterAll(async () => {
  await database.db.execute(sql.raw(`DROP TABLE ${table}`));
  await database.close();
});

const allLabels = async () => (await labels(database.db)).map((r) => r.label);

describe('pipeline', () => {
  it("answers each named step's rows, parsed as the driver parses them", async () => {
    const { first, none, second } = await pipeline(database.db, {
      first: insert.step({ id: 1, label: 'one', doc: JSON.stringify({ n: 1 }) }),
      none: nothing.step(),
      second: insert.step({ id: 2, label: 'two', doc: null }),
    });
    expect(first).toEqual([{ id: 1, label: 'one', at: expect.any(Date), doc: { n: 1 } }]);
    expect(none).toEqual([]);
    expect(second).toEqual([{ id: 2, label: 'two', at: expect.any(Date), doc: null }]);
    expect(await allLabels()).toEqual(['one', 'two']);
  });

  it("answers a list of steps' rows as one list, in order", async () => {
    const { inserted, none } = await pipeline(database.db, {
      inserted: [insert.step({ id: 3, label: 'three', doc: null }), insert.step({ id: 4, label: 'four', doc: null })],
      none: [],
    });
    expect(inserted.map((row) => row.label)).toEqual(['three', 'four']);
    expect(none).toEqual([]);
  });

  it('commits what its conclusion adds with the steps, and answers the conclusion', async () => {
    const answer = await pipeline(
      database.db,
      { inserted: insert.step({ id: 5, label: 'five', doc: null }) },
      {
        value: ({ inserted }) => inserted.map((row) => row.label),
        keep: (labels) => [insert.step({ id: 6, label: `after ${labels[0]}`, doc: null })],
      },
    );
    expect(answer).toEqual(['five']);
    expect(await allLabels()).toEqual(expect.arrayContaining(['five', 'after five']));
  });

  it('rolls back the steps when a statement of the conclusion fails, or the conclusion throws', async () => {
    const before = await allLabels();
    const failed = await pipeline(
      database.db,
      { inserted: insert.step({ id: 7, label: 'seven', doc: null }) },
      { value: () => null, keep: () => [insert.step({ id: 1, label: 'duplicate', doc: null })] },
    ).catch((error: { code?: string }) => error);
    expect(failed).toMatchObject({ code: '23505' });
    const thrown = await pipeline(
      database.db,
      { inserted: insert.step({ id: 8, label: 'eight', doc: null }) },
      {
        value: () => {
          throw new Error('no conclusion');
        },
        keep: () => [],
      },
    ).catch((error: Error) => error.message);
    expect(thrown).toBe('no conclusion');
    expect(await allLabels()).toEqual(before);
  });

  it('rolls the whole batch back on the first error and rejects with it', async () => {
    const before = await allLabels();
    const failure = await pipeline(database.db, {
      ten: insert.step({ id: 10, label: 'ten', doc: null }),
      again: insert.step({ id: 1, label: 'again', doc: null }),
    }).catch((error: { code?: string }) => error);
    expect(failure).toMatchObject({ code: '23505' });
    expect(await allLabels()).toEqual(before);
  });

  it('leaves its connection usable after an error, with every statement still prepared', async () => {
    for (let i = 0; i < 6; i++) {
      await pipeline(database.db, { duplicate: insert.step({ id: 1, label: 'duplicate', doc: null }) }).catch(() => {});
    }
    const rows = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        pipeline(database.db, {
          inserted: insert.step({ id: 100 + i, label: `n${i}`, doc: null }),
          labels: labels.step(),
        }),
      ),
    );
    expect(rows.map(({ inserted: [row] }) => row?.id).sort()).toEqual(Array.from({ length: 12 }, (_, i) => 100 + i));
  });

  it("runs inside the caller's transaction, and rolls back with it", async () => {
    const before = await allLabels();
    await transaction(database.db, async (tx) => {
      await pipeline(tx, { twenty: insert.step({ id: 20, label: 'twenty', doc: null }) });
      expect(rowsOf(await tx.execute(sql.raw(`SELECT id FROM ${table} WHERE id = 20`)))).toHaveLength(1);
      throw new Error('roll back');
    }).catch(() => {});
    expect(await allLabels()).toEqual(before);
  });

  it.skipIf(!url)(
    'gives each statement its own snapshot: one after a lock sees what its holder committed',
    async () => {
      const key = randomUUID();
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked = () => {};
      const holding = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holder = transaction(database.db, async (tx) => {
        await lock(tx, { key });
        locked();
        await released;
        await tx.execute(sql.raw(`INSERT INTO ${table} (id, label) VALUES (30, 'committed while waiting')`));
      });
      await holding;
      const waiting = pipeline(database.db, { lock: lock.step({ key }), seen: labels.step() });
      await new Promise((resolve) => setTimeout(resolve, 50));
      release();
      await holder;
      const { seen } = await waiting;
      expect(seen.map((r) => r.label)).toContain('committed while waiting');
    },
  );
});
