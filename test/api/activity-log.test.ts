/**
 * Reading the activity log: paging, filters, the users map, filter values, CSV export and retention.
 * Entries are seeded with SQL where their number or age matters, and time moves on the server's clock.
 */
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { purgeExpiredActivity } from '../../server/modules/activity/activity.service';
import type { ApiClient } from '../support/client';
import { parseCsv } from '../support/csv';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import type { TestOrg } from '../support/server';

const DAY = 24 * 60 * 60 * 1000;
/** How far the server's clock runs ahead of the real one. */
let shift = 0;

const t = useTestServer({ now: () => new Date(Date.now() + shift) }, false);
afterEach(() => {
  shift = 0;
});

type Query = Record<string, string | number>;

const list = (api: ApiClient, query: Query = {}) => api.call('listActivity', { query });
const log = async (api: ApiClient, query: Query = {}) => expectStatus(await list(api, query), 200);
const actions = async (api: ApiClient, query: Query = {}) => (await log(api, query)).entries.map((e) => e.action);
const exportCsv = async (api: ApiClient, query: Query = {}) =>
  expectStatus(await api.call('exportActivity', { query }), 200);
const folder = async (api: ApiClient, name: string) =>
  expectStatus(await api.call('createFolder', { body: { name } }), 201);

interface Seed {
  action?: string;
  resourceType?: string;
  userId?: string | null;
  changes?: unknown;
  at?: Date;
}
/** Inserts entries directly, oldest first as given (ids increase). */
async function seed(org: TestOrg, rows: Seed[]) {
  for (const r of rows) {
    await t.server.database.db.execute(sql`
      INSERT INTO activity (org_id, user_id, action, resource_type, changes, created_at)
      VALUES (${org.orgId}, ${r.userId === undefined ? org.userId : r.userId}, ${r.action ?? 'create'},
        ${r.resourceType ?? 'folder'}, ${JSON.stringify(r.changes ?? {})}::jsonb, ${(r.at ?? new Date()).toISOString()}::timestamptz)`);
  }
}
/** `count` entries one second apart, the last one a minute ago; action `n<i>` numbers them from the oldest. */
async function seedMany(org: TestOrg, count: number) {
  await t.server.database.db.execute(sql`
    INSERT INTO activity (org_id, user_id, action, resource_type, changes, created_at)
    SELECT ${org.orgId}, ${org.userId}, 'n' || g, 'folder', '{}'::jsonb, now() - interval '1 minute' - (${count} - g) * interval '1 second'
    FROM generate_series(1, ${count}) g`);
}
const hoursAgo = (h: number) => new Date(Math.floor(Date.now() / 1000) * 1000 - h * 60 * 60 * 1000);
const storedCount = async (org: TestOrg) => {
  const result = await t.server.database.db.execute(
    sql`SELECT count(*)::int AS n FROM activity WHERE org_id = ${org.orgId}`,
  );
  return defined((result as unknown as { rows: { n: number }[] }).rows[0], 'a count').n;
};

describe('listing', () => {
  it('answers newest first with the total of every matching entry', async () => {
    const org = await t.server.newOrg();
    await seed(org, [
      { action: 'a', at: hoursAgo(3) },
      { action: 'b', at: hoursAgo(2) },
      { action: 'c', at: hoursAgo(1) },
    ]);
    const page = await log(org.api);
    expect(page.entries.map((e) => e.action)).toEqual(['c', 'b', 'a']);
    expect(page.total).toBe(3);
  });

  it('pages with limit and offset, total unchanged, empty past the end', async () => {
    const org = await t.server.newOrg();
    await seedMany(org, 5);
    expect(await actions(org.api, { limit: 2 })).toEqual(['n5', 'n4']);
    expect(await actions(org.api, { limit: 2, offset: 2 })).toEqual(['n3', 'n2']);
    expect(await log(org.api, { limit: 2, offset: 4 })).toMatchObject({ total: 5, entries: [{ action: 'n1' }] });
    expect(await log(org.api, { offset: 5 })).toMatchObject({ total: 5, entries: [] });
  });

  it('answers 50 entries by default', async () => {
    const org = await t.server.newOrg();
    await seedMany(org, 60);
    expect(await log(org.api)).toMatchObject({
      total: 60,
      entries: expect.toSatisfy((e: unknown[]) => e.length === 50),
    });
  });

  it('accepts a limit of 500', async () => {
    const org = await t.server.newOrg();
    await seedMany(org, 501);
    const page = await log(org.api, { limit: 500 });
    expect([page.entries.length, page.total]).toEqual([500, 501]);
  });

  it('refuses a limit of 501 or 0 (400 naming limit)', async () => {
    const org = await t.server.newOrg();
    for (const limit of [501, 0]) expect(expectStatus(await list(org.api, { limit }), 400).error).toMatch(/^limit: /);
  });

  it('maps each user of the page to their email', async () => {
    const org = await t.server.newOrg();
    const editor = await org.member('editor');
    await folder(org.api, 'by-owner');
    await folder(editor.api, 'by-editor');
    const { entries, users } = await log(org.api);
    const editorId = defined(entries[0]?.user_id ?? undefined, "the editor's entry");
    expect(users).toEqual({ [org.userId]: org.email, [editorId]: expect.stringMatching(/^member-/) });
  });

  it('maps only the users of the page, and no one for an entry without user', async () => {
    const org = await t.server.newOrg();
    const editor = await org.member('editor');
    await folder(editor.api, 'by-editor');
    await folder(org.api, 'by-owner');
    await seed(org, [{ userId: null }]);
    expect((await log(org.api, { limit: 1 })).users).toEqual({});
    expect((await log(org.api, { limit: 1, offset: 1 })).users).toEqual({ [org.userId]: org.email });
  });
});

describe('filters', () => {
  const three = async (org: TestOrg, other: string) =>
    seed(org, [
      { action: 'create', resourceType: 'folder', at: hoursAgo(3) },
      { action: 'update', resourceType: 'subnet', at: hoursAgo(2), userId: other },
      { action: 'create', resourceType: 'subnet', at: hoursAgo(1) },
    ]);
  const setUp = async () => {
    const org = await t.server.newOrg();
    const editor = await org.member('editor');
    await folder(editor.api, 'x');
    const editorId = defined((await log(org.api)).entries[0]?.user_id ?? undefined, "the editor's entry");
    await t.server.database.db.execute(sql`DELETE FROM activity WHERE org_id = ${org.orgId}`);
    await three(org, editorId);
    return { org, editorId };
  };
  const kinds = async (org: TestOrg, query: Query) =>
    (await log(org.api, query)).entries.map((e) => `${e.action}:${e.resource_type}`);

  it('filters by action', async () => {
    const { org } = await setUp();
    expect(await kinds(org, { action: 'create' })).toEqual(['create:subnet', 'create:folder']);
  });

  it('filters by resource_type', async () => {
    const { org } = await setUp();
    expect(await kinds(org, { resource_type: 'subnet' })).toEqual(['create:subnet', 'update:subnet']);
  });

  it('filters by user_id', async () => {
    const { org, editorId } = await setUp();
    expect(await kinds(org, { user_id: editorId })).toEqual(['update:subnet']);
  });

  it('filters by since, inclusive', async () => {
    const { org } = await setUp();
    expect(await kinds(org, { since: hoursAgo(2).toISOString() })).toEqual(['create:subnet', 'update:subnet']);
  });

  it('filters by until, inclusive', async () => {
    const { org } = await setUp();
    expect(await kinds(org, { until: hoursAgo(2).toISOString() })).toEqual(['update:subnet', 'create:folder']);
  });

  it('combines filters, and counts only what matches', async () => {
    const { org } = await setUp();
    const query = { resource_type: 'subnet', action: 'create', user_id: org.userId, since: hoursAgo(2).toISOString() };
    expect(await log(org.api, query)).toMatchObject({
      total: 1,
      entries: [{ action: 'create', resource_type: 'subnet' }],
    });
    expect((await log(org.api, { ...query, until: hoursAgo(2).toISOString() })).total).toBe(0);
  });

  it('refuses since after until (400)', async () => {
    const org = await t.server.newOrg();
    const query = { since: hoursAgo(1).toISOString(), until: hoursAgo(2).toISOString() };
    expect(expectStatus(await list(org.api, query), 400).error).toMatch(/^since: /);
  });

  it('refuses a malformed user_id or timestamp (400)', async () => {
    const org = await t.server.newOrg();
    expectStatus(await list(org.api, { user_id: 'nobody' }), 400);
    expectStatus(await list(org.api, { since: 'yesterday' }), 400);
  });

  it('refuses a time before year 1, which PostgreSQL cannot read, naming it (400, not 500)', async () => {
    const org = await t.server.newOrg();
    for (const field of ['since', 'until'] as const) {
      const refused = expectStatus(await list(org.api, { [field]: '0000-06-01T00:00:00Z' }), 400);
      expect(refused.error).toMatch(new RegExp(`^${field}: 0000-06-01T00:00:00Z is before year 1`));
    }
    const exported = await org.api.call('exportActivity', { query: { since: '0000-06-01T00:00:00Z' } });
    expect(expectStatus(exported, 400).error).toMatch(/^since: /);
    expectStatus(await list(org.api, { since: '0001-01-01T00:00:00Z' }), 200);
  });

  it('lists the distinct actions and resource types present, sorted', async () => {
    const { org } = await setUp();
    await seed(org, [{ action: 'batch_delete', resourceType: 'address' }]);
    expect(expectStatus(await org.api.call('listActivityFilters'), 200)).toEqual({
      actions: ['batch_delete', 'create', 'update'],
      resource_types: ['address', 'folder', 'subnet'],
    });
  });
});

describe('CSV export', () => {
  it('answers text/csv with a header row and one row per entry, newest first', async () => {
    const org = await t.server.newOrg();
    await folder(org.api, 'exported');
    const response = await org.api.call('exportActivity');
    expect(response.headers.get('content-type')).toMatch(/^text\/csv/);
    const [header, row, ...rest] = parseCsv(expectStatus(response, 200));
    expect(header).toEqual([
      'id',
      'created_at',
      'user_id',
      'user_email',
      'action',
      'resource_type',
      'resource_id',
      'changes',
    ]);
    const entry = defined((await log(org.api)).entries[0], 'the entry');
    expect(row).toEqual([
      String(entry.id),
      entry.created_at,
      org.userId,
      org.email,
      'create',
      'folder',
      entry.resource_id,
      JSON.stringify(entry.changes),
    ]);
    expect(rest).toEqual([]);
  });

  it('quotes fields holding quotes, commas or line breaks', async () => {
    const org = await t.server.newOrg();
    const changes = { name: [null, 'say "hi", then go'] };
    await seed(org, [{ action: 'odd,"action"\nhere', changes, userId: null }]);
    const csv = await exportCsv(org.api);
    expect(csv).toContain('"odd,""action""\nhere"');
    expect(csv).toContain('"{""name"":[null,""say \\""hi\\"", then go""]}"');
    const [, row] = parseCsv(csv);
    expect([row?.[3], row?.[4], JSON.parse(row?.[7] ?? 'null')]).toEqual(['', 'odd,"action"\nhere', changes]);
  });

  it('applies the list’s filters', async () => {
    const org = await t.server.newOrg();
    await seed(org, [
      { action: 'create', at: hoursAgo(2) },
      { action: 'update', at: hoursAgo(1) },
      { action: 'create' },
    ]);
    const rows = parseCsv(await exportCsv(org.api, { action: 'create', until: hoursAgo(1).toISOString() }));
    expect(rows.map((r) => r[4])).toEqual(['action', 'create']);
  });

  it('stops at the 10,000 newest entries', async () => {
    const org = await t.server.newOrg();
    await seedMany(org, 10_005);
    const rows = parseCsv(await exportCsv(org.api));
    expect(rows).toHaveLength(10_001);
    expect([rows[1]?.[4], rows[10_000]?.[4]]).toEqual(['n10005', 'n6']);
  });

  it('refuses a query it does not know, such as limit (400)', async () => {
    const org = await t.server.newOrg();
    expectStatus(await org.api.call('exportActivity', { query: { limit: 5 } }), 400);
  });
});

describe('retention', () => {
  it('does not return an entry older than 7 days on the free plan', async () => {
    const org = await t.server.newOrg({ plan: 'free' });
    await folder(org.web, 'old');
    shift = 7 * DAY + 60_000;
    expect(await log(org.api)).toEqual({ entries: [], total: 0, users: {} });
    expect(parseCsv(await exportCsv(org.api))).toHaveLength(1);
    expect(expectStatus(await org.api.call('listActivityFilters'), 200)).toEqual({ actions: [], resource_types: [] });
  });

  it('still returns it within 7 days on the free plan', async () => {
    const org = await t.server.newOrg({ plan: 'free' });
    await folder(org.web, 'recent');
    shift = 7 * DAY - 60_000;
    expect((await log(org.api)).total).toBe(1);
  });

  it('keeps 30 days on the pro plan', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    await folder(org.api, 'kept');
    shift = 30 * DAY - 60_000;
    expect((await log(org.api)).total).toBe(1);
    shift = 30 * DAY + 60_000;
    expect((await log(org.api)).total).toBe(0);
  });

  it('keeps 90 days on the teams plan', async () => {
    const org = await t.server.newOrg({ plan: 'teams' });
    await folder(org.api, 'kept');
    shift = 90 * DAY - 60_000;
    expect((await log(org.api)).total).toBe(1);
    shift = 90 * DAY + 60_000;
    expect((await log(org.api)).total).toBe(0);
  });

  it('follows an enterprise override of the retention at its boundary', async () => {
    const org = await t.server.newOrg({ plan: 'enterprise', limits: { activity_retention_days: 3 } });
    await folder(org.api, 'kept');
    shift = 3 * DAY - 60_000;
    expect((await log(org.api)).total).toBe(1);
    shift = 3 * DAY + 60_000;
    expect((await log(org.api)).total).toBe(0);
  });

  it('the purge deletes entries past the free plan’s 7 days and keeps newer ones', async () => {
    const org = await t.server.newOrg({ plan: 'free' });
    await seed(org, [{ at: new Date(Date.now() - 8 * DAY) }, { at: new Date(Date.now() - 6 * DAY) }]);
    await purgeExpiredActivity(t.server.database.db, new Date());
    expect(await storedCount(org)).toBe(1);
  });

  it('the purge follows the clock and each organisation’s own retention', async () => {
    const short = await t.server.newOrg({ plan: 'pro', limits: { activity_retention_days: 1 } });
    const pro = await t.server.newOrg({ plan: 'pro' });
    await folder(short.api, 'short-lived');
    await folder(pro.api, 'long-lived');
    await purgeExpiredActivity(t.server.database.db, new Date(Date.now() + 2 * DAY));
    expect([await storedCount(short), await storedCount(pro)]).toEqual([0, 1]);
  });

  it('keeps everything, listed and through the purge, when the retention is unlimited', async () => {
    const org = await t.server.newOrg({ plan: 'enterprise', limits: { activity_retention_days: null } });
    await seed(org, [{ at: new Date(Date.now() - 400 * DAY) }]);
    await purgeExpiredActivity(t.server.database.db, new Date());
    expect((await log(org.api)).total).toBe(1);
  });
});
