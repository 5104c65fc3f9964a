/**
 * Holds that expire (issue 24, part 5): an address created or allocated with `hold_seconds` is reserved with
 * `expires_at`; a status given by PATCH or batch-update confirms it; past the hold the service releases it (a
 * `release` entry by the system, an `address.released` event, a delete in the change feed), each once however
 * many releasers run. The clock is the server's, moved by the test; the release is called with it.
 */
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HOLD_MAX_SECONDS } from '../../contract/addresses.contract';
import { type Database, openDatabase, rowsOf } from '../../server/db/connection';
import { releaseExpiredHolds } from '../../server/modules/addresses/addresses.service';
import { type Receiver, startReceiver } from '../fixtures/receiver';
import type { ApiClient } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import type { TestOrg } from '../support/server';

/** How far the server's clock runs ahead of the real one. */
let shift = 0;
const clock = () => new Date(Date.now() + shift);
const t = useTestServer({ now: clock, config: { outboundAllowCidrs: ['127.0.0.1/32'] } }, false);
afterEach(() => {
  shift = 0;
});
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

/** An organisation with a webhook subscribed to every event (so events are written) and a /24. */
async function setUp(third: number) {
  const org = await t.server.newOrg({ plan: 'pro' });
  expectStatus(await org.api.call('createWebhook', { body: { url: receiver.url('/holds'), event_types: [] } }), 201);
  const subnet = await createSubnet(org.api, `10.90.${third}.0/24`);
  return { org, subnet };
}

const hold = (api: ApiClient, subnetId: string, ip: string, body: Record<string, unknown> = {}) =>
  api.call('createAddress', { params: { id: subnetId }, body: { ip, hold_seconds: 60, ...body } });
const getAddress = (api: ApiClient, id: string) => api.call('getAddress', { params: { id } });
const release = (at: Date) => releaseExpiredHolds(t.server.database.db, at);
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000);

async function countOf(org: TestOrg, table: 'activity' | 'webhook_events', where: string) {
  const column = table === 'activity' ? 'action' : 'type';
  const [row] = rowsOf<{ n: number }>(
    await t.server.database.db.execute(
      sql`SELECT count(*)::int AS n FROM ${sql.identifier(table)} WHERE org_id = ${org.orgId} AND ${sql.identifier(column)} = ${where}`,
    ),
  );
  return row?.n;
}

describe('a hold', () => {
  it('makes the address reserved until now plus the hold, on the server’s clock', async () => {
    const { org, subnet } = await setUp(1);
    shift = 3_600_000;
    const before = clock().getTime();
    const address = expectStatus(await hold(org.api, subnet.id, '10.90.1.10', { hold_seconds: 90 }), 201);
    const after = clock().getTime();
    expect(address.status).toBe('reserved');
    const ends = Date.parse(address.expires_at ?? '');
    expect(ends).toBeGreaterThanOrEqual(before + 90_000);
    expect(ends).toBeLessThanOrEqual(after + 90_000);
    expect(expectStatus(await getAddress(org.api, address.id), 200).expires_at).toBe(address.expires_at);
  });

  it('is taken by an allocation of several addresses, each reserved with the same end', async () => {
    const { org, subnet } = await setUp(2);
    const taken = expectStatus(
      await org.api.call('allocateAddress', { params: { id: subnet.id }, body: { count: 3, hold_seconds: 30 } }),
      201,
    );
    expect(taken.map((a) => a.status)).toEqual(['reserved', 'reserved', 'reserved']);
    expect(new Set(taken.map((a) => a.expires_at)).size).toBe(1);
  });

  it('takes 1 and 604,800 seconds; refuses 0, 604,801 and a status other than reserved (400 naming them)', async () => {
    const { org, subnet } = await setUp(3);
    expect(HOLD_MAX_SECONDS).toBe(604_800);
    expectStatus(await hold(org.api, subnet.id, '10.90.3.1', { hold_seconds: 1 }), 201);
    expectStatus(await hold(org.api, subnet.id, '10.90.3.2', { hold_seconds: 604_800 }), 201);
    expectStatus(await hold(org.api, subnet.id, '10.90.3.3', { hold_seconds: 60, status: 'reserved' }), 201);
    for (const seconds of [0, 604_801, 1.5]) {
      const refused = expectStatus(await hold(org.api, subnet.id, '10.90.3.9', { hold_seconds: seconds }), 400);
      expect(refused.error).toContain('hold_seconds');
    }
    const assigned = expectStatus(await hold(org.api, subnet.id, '10.90.3.9', { status: 'assigned' }), 400);
    expect(assigned.error).toMatch(/^status: a held address is reserved/);
    const allocated = await org.api.call('allocateAddress', {
      params: { id: subnet.id },
      body: { hold_seconds: 5, status: 'd-dhcp' },
    });
    expect(expectStatus(allocated, 400).error).toMatch(/^status: /);
  });

  it('is confirmed by a PATCH of the status, and by a batch-update of it: kept past the hold', async () => {
    const { org, subnet } = await setUp(4);
    const one = expectStatus(await hold(org.api, subnet.id, '10.90.4.1'), 201);
    const two = expectStatus(await hold(org.api, subnet.id, '10.90.4.2'), 201);
    const three = expectStatus(await hold(org.api, subnet.id, '10.90.4.3'), 201);
    const patched = expectStatus(
      await org.api.call('updateAddress', { params: { id: one.id }, body: { status: 'assigned' } }),
      200,
    );
    expect(patched.expires_at).toBeUndefined();
    // A change of another field is no confirmation.
    expectStatus(await org.api.call('updateAddress', { params: { id: three.id }, body: { hostname: 'h' } }), 200);
    expectStatus(await org.api.call('batchUpdateAddresses', { body: { ids: [two.id], status: 'reserved' } }), 200);
    await release(inSeconds(61));
    expect(expectStatus(await getAddress(org.api, one.id), 200).status).toBe('assigned');
    expect(expectStatus(await getAddress(org.api, two.id), 200).expires_at).toBeUndefined();
    expectStatus(await getAddress(org.api, three.id), 404);
  });
});

describe('the release', () => {
  it('releases nothing before the end, and at it deletes the address with an entry by the system, an event and a feed delete', async () => {
    const { org, subnet } = await setUp(5);
    const start = expectStatus(await org.api.call('listChanges', { query: { after: 'now' } }), 200).next_cursor;
    const held = expectStatus(await hold(org.api, subnet.id, '10.90.5.5'), 201);
    const ends = new Date(Date.parse(held.expires_at ?? ''));
    expect(await release(new Date(ends.getTime() - 1))).toBe(0);
    expectStatus(await getAddress(org.api, held.id), 200);
    expect(await release(ends)).toBeGreaterThanOrEqual(1);
    expectStatus(await getAddress(org.api, held.id), 404);
    const entries = expectStatus(await org.api.call('listActivity', { query: { action: 'release' } }), 200).entries;
    expect(entries).toMatchObject([{ resource_id: held.id, user_id: null, resource_type: 'address' }]);
    expect(entries[0]?.changes).toMatchObject({ ip: ['10.90.5.5', null], status: ['reserved', null] });
    expect(await countOf(org, 'webhook_events', 'address.released')).toBe(1);
    const changes = expectStatus(await org.api.call('listChanges', { query: { after: start } }), 200).changes;
    expect(changes.map((c) => [c.operation, c.action, c.resource_id])).toEqual([
      ['create', 'create', held.id],
      ['delete', 'release', held.id],
    ]);
    expect(await release(inSeconds(3600))).toBe(0);
  });

  it('50 allocations with holds at once: distinct ips, none handed out again while held, each released once by two releasers', async () => {
    const { org, subnet } = await setUp(6);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        org.api.call('allocateAddress', { params: { id: subnet.id }, body: { hold_seconds: 120 } }),
      ),
    );
    const held = answers.flatMap((answer) => expectStatus(answer, 201));
    expect(new Set(held.map((a) => a.ip)).size).toBe(50);
    const more = expectStatus(
      await org.api.call('allocateAddress', { params: { id: subnet.id }, body: { count: 20 } }),
      201,
    );
    expect(more.filter((a) => held.some((h) => h.ip === a.ip))).toEqual([]);

    // Two releasers at once, each on its own connections (a second pool on a PostgreSQL server).
    const url = process.env.TEST_DATABASE_URL;
    const other: Database | null = url ? await openDatabase({ databaseUrl: url, maxConnections: 2 }) : null;
    try {
      const at = inSeconds(121);
      const counts = await Promise.all([release(at), releaseExpiredHolds(other?.db ?? t.server.database.db, at)]);
      expect(counts[0] + counts[1]).toBeGreaterThanOrEqual(50);
    } finally {
      await other?.close();
    }
    expect(await countOf(org, 'activity', 'release')).toBe(50);
    expect(await countOf(org, 'webhook_events', 'address.released')).toBe(50);
    for (const address of held) expectStatus(await getAddress(org.api, address.id), 404);
    for (const address of more) expectStatus(await getAddress(org.api, address.id), 200);
  });
});
