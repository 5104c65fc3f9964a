/**
 * The change feed (`GET /changes`): every create, update and delete of the organisation, in commit order, resumed
 * after a cursor; gone (410) once older than the activity log's retention. The model test with concurrent writers
 * is test/concurrency/change-feed.test.ts.
 */
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import { purgeExpiredActivity } from '../../server/modules/activity/activity.service';
import type { ApiClient, ApiResponse } from '../support/client';
import { defined } from '../support/defined';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const DAY = 24 * 60 * 60 * 1000;
/** How far the server's clock runs ahead of the real one. */
let shift = 0;
const t = useTestServer({ now: () => new Date(Date.now() + shift) });
afterEach(() => {
  shift = 0;
});

type Query = { after?: string; limit?: number };
const feed = (api: ApiClient, query: Query = {}) => api.call('listChanges', { query });
const page = async (api: ApiClient, query: Query = {}) => expectStatus(await feed(api, query), 200);

/** Every change after `after`, `limit` at a time, and the cursor to go on from. */
async function drain(api: ApiClient, after?: string, limit = 1000) {
  const changes = [];
  let cursor = after;
  for (;;) {
    const answer = await page(api, { ...(cursor === undefined ? {} : { after: cursor }), limit });
    changes.push(...answer.changes);
    cursor = answer.next_cursor;
    if (!answer.has_more) return { changes, cursor };
  }
}

const freshOrg = () => t.server.newOrg({ plan: 'pro' });
const folder = async (api: ApiClient, name: string) =>
  expectStatus(await api.call('createFolder', { body: { name } }), 201);
type Pair = [unknown, unknown];
/** The new value a change gives `field`. */
const newValueOf = (change: { changes: Record<string, unknown> }, field: string) =>
  (change.changes[field] as Pair | undefined)?.[1];
const summary = (changes: { operation: string; resource_type: string; resource_id: string | null }[]) =>
  changes.map((c) => [c.operation, c.resource_type, c.resource_id]);

describe('the feed', () => {
  it('lists a create, an update and a delete in the order they committed, with what changed', async () => {
    const { api } = await freshOrg();
    const made = await folder(api, 'DC');
    expectStatus(await api.call('updateFolder', { params: { id: made.id }, body: { name: 'DC-1' } }), 200);
    expectStatus(await api.call('deleteFolder', { params: { id: made.id } }), 204);
    const { changes } = await drain(api);
    expect(summary(changes)).toEqual([
      ['create', 'folder', made.id],
      ['update', 'folder', made.id],
      ['delete', 'folder', made.id],
    ]);
    expect(changes.map((c) => c.changes.name)).toEqual([
      [null, 'DC'],
      ['DC', 'DC-1'],
      ['DC-1', null],
    ]);
  });

  it('resumes right after a cursor, and the last page’s next_cursor sees only what commits later', async () => {
    const { api } = await freshOrg();
    const names = ['a', 'b', 'c', 'd', 'e'];
    for (const name of names) await folder(api, name);
    const first = await page(api, { limit: 2 });
    expect(first.has_more).toBe(true);
    expect(first.next_cursor).toBe(first.changes[1]?.cursor);
    const rest = await drain(api, defined(first.changes[1], 'the second change').cursor, 2);
    expect([...first.changes, ...rest.changes].map((c) => newValueOf(c, 'name'))).toEqual(names);
    expect((await page(api, { after: rest.cursor })).changes).toEqual([]);
    await folder(api, 'f');
    expect((await drain(api, rest.cursor)).changes.map((c) => newValueOf(c, 'name'))).toEqual(['f']);
  });

  it('after=now answers no change and a cursor past every change so far', async () => {
    const { api } = await freshOrg();
    await folder(api, 'before');
    const now = await page(api, { after: 'now' });
    expect(now).toMatchObject({ changes: [], has_more: false });
    await folder(api, 'after');
    expect((await drain(api, now.next_cursor)).changes.map((c) => newValueOf(c, 'name'))).toEqual(['after']);
  });

  it('shows the changes of one transaction together, in the order it made them', async () => {
    const { api } = await freshOrg();
    const subnet = await createSubnet(api, '10.60.0.0/24');
    const ips = ['10.60.0.9', '10.60.0.3', '10.60.0.5'];
    expectStatus(await api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips } }), 200);
    const { changes } = await drain(api);
    expect(changes.map((c) => [c.action, newValueOf(c, 'ip') ?? newValueOf(c, 'network')])).toEqual([
      ['create', '10.60.0.0/24'],
      ...ips.map((ip) => ['batch_create', ip]),
    ]);
    expect(new Set(changes.slice(1).map((c) => c.created_at)).size).toBe(1);
  });

  it('a split is the original’s delete, then each part’s create with its id and fields', async () => {
    const { api } = await freshOrg();
    const original = await createSubnet(api, '10.61.0.0/24', { name: 'lab' });
    const parts = expectStatus(await api.call('splitSubnet', { params: { id: original.id }, body: { parts: 2 } }), 200);
    const { changes } = await drain(api);
    expect(summary(changes.slice(1))).toEqual([
      ['delete', 'subnet', original.id],
      ...parts.map((p) => ['create', 'subnet', p.id]),
    ]);
    expect(changes[2]?.changes).toMatchObject({ network: [null, '10.61.0.0/25'], name: [null, 'lab'] });
  });

  it('an import is a create of each new object, and an organisation’s feed shows only its own changes', async () => {
    const { api } = await freshOrg();
    const other = await freshOrg();
    await folder(other.api, 'theirs');
    expectStatus(await api.call('importSubnets', { body: { subnets: [{ network: '10.62.0.0/24' }] } }), 200);
    const { changes } = await drain(api);
    expect(changes.map((c) => [c.operation, c.action, newValueOf(c, 'network')])).toEqual([
      ['create', 'import', '10.62.0.0/24'],
    ]);
  });

  it('a dry run leaves no change in the feed', async () => {
    const { api } = await freshOrg();
    const start = await page(api, { after: 'now' });
    const dry = await api.call('createSubnet', { body: { network: '10.63.0.0/24' }, query: { dry_run: 'true' } });
    expectStatus(dry, 201);
    expect((await page(api, { after: start.next_cursor })).changes).toEqual([]);
  });

  it('each change carries its activity entry’s id, author and time', async () => {
    const org = await freshOrg();
    const made = await folder(org.api, 'x');
    const [change] = (await drain(org.api)).changes;
    const entries = expectStatus(await org.api.call('listActivity', { query: {} }), 200).entries;
    const entry = defined(
      entries.find((e) => e.resource_id === made.id),
      'the entry',
    );
    expect(change).toMatchObject({
      activity_id: entry.id,
      user_id: org.userId,
      created_at: entry.created_at,
      action: 'create',
      resource_id: made.id,
    });
  });
});

describe('limits and bad input', () => {
  it('takes limit 1 and 1000, and refuses 0 and 1001 naming limit', async () => {
    const { api } = await freshOrg();
    await folder(api, 'one');
    await folder(api, 'two');
    expect((await page(api, { limit: 1 })).changes).toHaveLength(1);
    expect((await page(api, { limit: 1000 })).changes).toHaveLength(2);
    for (const limit of [0, 1001]) {
      const refused = expectStatus(await feed(api, { limit }), 400);
      expect(refused.error).toContain('limit');
    }
  });

  it('refuses a cursor it did not make, and another list’s, naming after (400)', async () => {
    const { api } = await freshOrg();
    const foreign = Buffer.from(JSON.stringify(['the activity log', '2026-01-01 00:00:00+00', 1])).toString(
      'base64url',
    );
    const negative = Buffer.from(JSON.stringify(['the change feed', -1, 0])).toString('base64url');
    for (const after of ['nonsense', foreign, negative]) {
      const refused = expectStatus(await feed(api, { after }), 400);
      expect(refused.error).toMatch(/after|cursor/);
    }
  });

  it('takes a cursor of 1,024 characters and refuses one of 1,025', async () => {
    const { api } = await freshOrg();
    expect(expectStatus(await feed(api, { after: 'a'.repeat(1024) }), 400).error).toContain('not a cursor');
    expect(expectStatus(await feed(api, { after: 'a'.repeat(1025) }), 400).error).toContain('after');
  });
});

describe('retention', () => {
  it('a cursor older than the plan’s retention is a 410 cursor_expired; a fresh follow starts at what is kept', async () => {
    const org = await t.server.newOrg({ plan: 'pro', limits: { activity_retention_days: 7 } });
    const start = await page(org.api, { after: 'now' });
    await folder(org.api, 'old');
    shift = 7 * DAY + 60_000;
    const gone = expectStatus(await feed(org.api, { after: start.next_cursor }), 410);
    expect(gone.code).toBe('cursor_expired');
    expect(gone.error).toContain('after=now');
    expect((await page(org.api)).changes).toEqual([]);
  });

  it('after the purge, a cursor before the purged changes is a 410, one past them is not', async () => {
    const org = await t.server.newOrg({ plan: 'pro', limits: { activity_retention_days: 7 } });
    const start = await page(org.api, { after: 'now' });
    await folder(org.api, 'purged');
    const seen = await drain(org.api, start.next_cursor);
    await purgeExpiredActivity(t.server.database.db, new Date(Date.now() + 8 * DAY));
    expect(expectStatus(await feed(org.api, { after: start.next_cursor }), 410).code).toBe('cursor_expired');
    expect((await page(org.api, { after: seen.cursor })).changes).toEqual([]);
    const kept = await folder(org.api, 'kept');
    expect((await drain(org.api, seen.cursor)).changes.map((c) => c.resource_id)).toEqual([kept.id]);
  });
});

/** An answer, or 'pending' when it has not come within `ms`. */
const within = (answer: Promise<ApiResponse>, ms: number) =>
  Promise.race([answer, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

describe.runIf(process.env.TEST_DATABASE_URL)('commit order on a PostgreSQL server', () => {
  it('never hands out a cursor past a change still committing: the reader waits for it', async () => {
    const org = await freshOrg();
    const start = await page(org.api, { after: 'now' });
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      // A transaction that has taken its commit number (its deferred trigger run now) and not committed yet.
      await client.query('BEGIN');
      await client.query(
        `INSERT INTO activity (org_id, action, resource_type, changes) VALUES ($1, 'create', 'folder', '{"name": [null, "slow"]}')`,
        [org.orgId],
      );
      await client.query('SET CONSTRAINTS activity_change_commit IMMEDIATE');
      // A later change commits first.
      await folder(org.api, 'fast');
      const reading = feed(org.api, { after: start.next_cursor });
      expect(await within(reading, 300)).toBe('pending');
      await client.query('COMMIT');
      const answer = expectStatus(await reading, 200);
      expect(answer.changes.map((c) => newValueOf(c, 'name'))).toEqual(['slow', 'fast']);
    } finally {
      await client.end();
    }
  });

  it('writers of other organisations do not hold a reader up', async () => {
    const org = await freshOrg();
    const other = await freshOrg();
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO activity (org_id, action, resource_type) VALUES ($1, 'create', 'folder')`, [
        other.orgId,
      ]);
      await client.query('SET CONSTRAINTS activity_change_commit IMMEDIATE');
      expect(await within(feed(org.api), 2000)).not.toBe('pending');
    } finally {
      await client.query('ROLLBACK');
      await client.end();
    }
  });
});

describe('stored', () => {
  it('every entry a change writes gets its commit number once', async () => {
    const org = await freshOrg();
    await folder(org.api, 'x');
    await folder(org.api, 'y');
    const result = await t.server.database.db.execute(
      sql`SELECT count(*)::int AS n FROM change_commits WHERE org_id = ${org.orgId}`,
    );
    expect(rowsOf<{ n: number }>(result)).toEqual([{ n: 2 }]);
  });
});
