/**
 * Webhook subscriptions through HTTP: CRUD, secret visibility, the plan limit, deliveries paging, the
 * synchronous test ping against a real receiver on loopback (verified with the standardwebhooks package),
 * secret rotation and activity entries. Only the receiver's exact address (127.0.0.1/32) is allowed.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import { insertDelivery } from '../../server/modules/webhooks/deliveries.repo';
import { closedPort, type ReceivedRequest, type Receiver, startReceiver } from '../fixtures/receiver';
import type { ApiClient } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import type { TestOrg } from '../support/server';

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver('127.0.0.1');
});
afterAll(() => receiver?.close());

const t = useTestServer(
  {
    config: { outboundAllowCidrs: ['127.0.0.1/32'] },
    // Only IP literals are used here; no name is ever resolved.
    resolveHost: async (host) => {
      throw new Error(`unexpected resolution of ${host}`);
    },
  },
  false,
);

/** A fresh path on the receiver, so each test sees only its own requests. */
const hookPath = () => `/hook-${randomUUID()}`;

async function create(client: ApiClient, body: Record<string, unknown> = {}) {
  return expectStatus(await client.call('createWebhook', { body: { url: receiver.url(hookPath()), ...body } }), 201);
}
const get = async (org: TestOrg, id: string) => expectStatus(await org.api.call('getWebhook', { params: { id } }), 200);
const ping = (org: TestOrg, id: string) => org.api.call('testWebhook', { params: { id } });
const pathOf = (url: string) => new URL(url).pathname;

function verify(secret: string, request: ReceivedRequest) {
  return new Verifier(secret).verify(request.body, request.headers as Record<string, string>) as {
    type: string;
    timestamp: string;
    data: { webhook_id: string };
  };
}

async function countDeliveries(webhookId: string): Promise<number> {
  const result = await t.server.database.db.execute(
    sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE webhook_id = ${webhookId}`,
  );
  return defined(rowsOf<{ n: number }>(result)[0], 'a count').n;
}

describe('creating webhooks', () => {
  it('answers the subscription with a whsec_ secret, active, all event types by default', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api, { description: 'CMDB sync' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
    expect(created).toMatchObject({ description: 'CMDB sync', event_types: [], is_active: true });
  });

  it('keeps the event types asked for', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api, { event_types: ['subnet.created', 'subnet.split'] });
    expect((await get(org, created.id)).event_types).toEqual(['subnet.created', 'subnet.split']);
  });

  it.each([
    ['an unknown event type', ['subnet.exploded']],
    ['a repeated event type', ['vlan.created', 'vlan.created']],
  ])('refuses %s (400 naming event_types)', async (_, event_types) => {
    const org = await t.server.newOrg();
    const body = { url: receiver.url(), event_types };
    const error = expectStatus(await org.api.call('createWebhook', { body }), 400);
    expect(error.error).toMatch(/^event_types/);
  });

  it('refuses plain http to an address outside OUTBOUND_ALLOW_CIDRS (400)', async () => {
    const org = await t.server.newOrg();
    // A public address: refused before any connection is made.
    const error = expectStatus(await org.api.call('createWebhook', { body: { url: 'http://8.8.8.8/hook' } }), 400);
    expect(error).toMatchObject({ code: 'validation' });
    expect(error.error).toMatch(/^url: must be an https URL/);
  });

  it('refuses a URL that is not http(s) (400)', async () => {
    const org = await t.server.newOrg();
    const error = expectStatus(await org.api.call('createWebhook', { body: { url: 'ftp://127.0.0.1/x' } }), 400);
    expect(error.error).toMatch(/^url: /);
  });

  it('is for admins only (403 for an editor)', async () => {
    const org = await t.server.newOrg();
    const editor = await org.member('editor');
    expectStatus(await editor.api.call('createWebhook', { body: { url: receiver.url() } }), 403);
    expectStatus(await editor.api.call('listWebhooks'), 403);
  });
});

describe('the secret', () => {
  it('is never in list or get responses', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api);
    const list = await org.api.call('listWebhooks');
    expect(expectStatus(list, 200).map((w: { id: string }) => w.id)).toEqual([created.id]);
    const one = await org.api.call('getWebhook', { params: { id: created.id } });
    expectStatus(one, 200);
    for (const response of [list, one]) expect(response.text).not.toContain(created.secret.slice(6));
  });
});

describe('changing webhooks', () => {
  it('changes only the fields given', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api, { description: 'before', event_types: ['vrf.created'] });
    const body = { description: 'after', event_types: ['vrf.deleted'] };
    const updated = expectStatus(await org.api.call('updateWebhook', { params: { id: created.id }, body }), 200);
    expect(updated).toMatchObject({ url: created.url, description: 'after', event_types: ['vrf.deleted'] });
  });

  it('refuses a new URL that resolves to a refused address and keeps the old one (400)', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api);
    const body = { url: 'https://10.0.0.1/hook' };
    const error = expectStatus(await org.api.call('updateWebhook', { params: { id: created.id }, body }), 400);
    expect(error.error).toBe('url: resolves to 10.0.0.1, a private address');
    expect((await get(org, created.id)).url).toBe(created.url);
  });

  it('switches deliveries off and on; switching on resets failure_count', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api);
    const off = { is_active: false };
    expect(
      expectStatus(await org.api.call('updateWebhook', { params: { id: created.id }, body: off }), 200),
    ).toMatchObject(off);
    await t.server.database.db.execute(sql`UPDATE webhooks SET failure_count = 50 WHERE id = ${created.id}`);
    const on = expectStatus(
      await org.api.call('updateWebhook', { params: { id: created.id }, body: { is_active: true } }),
      200,
    );
    expect(on).toMatchObject({ is_active: true, failure_count: 0 });
  });

  it('deletes the subscription and its delivery history', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api);
    expectStatus(await ping(org, created.id), 200);
    expect(await countDeliveries(created.id)).toBe(1);
    expectStatus(await org.api.call('deleteWebhook', { params: { id: created.id } }), 204);
    expectStatus(await org.api.call('getWebhook', { params: { id: created.id } }), 404);
    expect(await countDeliveries(created.id)).toBe(0);
  });

  it('answers 404 for another organisation’s webhook on every route', async () => {
    const [owner, stranger] = [await t.server.newOrg(), await t.server.newOrg()];
    const owned = await create(owner.api);
    const params = { id: owned.id };
    for (const operationId of [
      'getWebhook',
      'deleteWebhook',
      'listWebhookDeliveries',
      'testWebhook',
      'rotateWebhookSecret',
    ] as const) {
      expectStatus(await stranger.api.call(operationId, { params }), 404);
    }
    const body = { url: 'https://10.0.0.1/' };
    expectStatus(await stranger.api.call('updateWebhook', { params, body }), 404);
    expect(receiver.to(pathOf(owned.url))).toEqual([]);
    expect((await get(owner, owned.id)).url).toBe(owned.url);
  });
});

describe('plan webhook limit', () => {
  it('lets a free organisation hold 2 webhooks and refuses the 3rd (402)', async () => {
    const org = await t.server.newOrg({ plan: 'free' });
    await create(org.web);
    await create(org.web);
    const error = expectStatus(await org.web.call('createWebhook', { body: { url: receiver.url() } }), 402);
    expect(error).toMatchObject({ code: 'plan_limit' });
    expect(error.error).toContain('2 webhooks');
  });

  it.each([
    ['pro', 10],
    ['teams', 25],
  ] as const)('lets a %s organisation hold %i webhooks and refuses one more', async (plan, limit) => {
    const org = await t.server.newOrg({ plan });
    for (let i = 0; i < limit; i++) await create(org.api);
    const error = expectStatus(await org.api.call('createWebhook', { body: { url: receiver.url() } }), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining(`${limit} webhooks`) });
  });

  it('follows an enterprise override of webhooks', async () => {
    const org = await t.server.newOrg({ plan: 'enterprise', limits: { webhooks: 3 } });
    for (let i = 0; i < 3; i++) await create(org.api);
    const error = expectStatus(await org.api.call('createWebhook', { body: { url: receiver.url() } }), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('3 webhooks') });
  });
});

describe('deliveries', () => {
  /** `n` recorded attempts, one second apart (the newest last). */
  async function seed(org: TestOrg, webhookId: string, n: number) {
    const start = Date.UTC(2030, 0, 1);
    for (let i = 0; i < n; i++) {
      await insertDelivery(t.server.database.db, {
        orgId: org.orgId,
        webhookId,
        eventId: randomUUID(),
        eventType: 'subnet.created',
        attempt: 1,
        responseStatus: 200,
        durationMs: i,
        deliveredAt: new Date(start + i * 1000),
      });
    }
  }
  const page = async (org: TestOrg, id: string, query: Record<string, number> = {}) =>
    expectStatus(await org.api.call('listWebhookDeliveries', { params: { id }, query }), 200);

  it('lists 50 by default, newest first', async () => {
    const org = await t.server.newOrg();
    const { id } = await create(org.api);
    await seed(org, id, 101);
    const deliveries = await page(org, id);
    expect(deliveries.map((d) => d.duration_ms)).toEqual(Array.from({ length: 50 }, (_, i) => 100 - i));
  });

  it('answers 100 with limit=100 and refuses limit=101 (400)', async () => {
    const org = await t.server.newOrg();
    const { id } = await create(org.api);
    await seed(org, id, 101);
    expect(await page(org, id, { limit: 100 })).toHaveLength(100);
    const error = expectStatus(
      await org.api.call('listWebhookDeliveries', { params: { id }, query: { limit: 101 } }),
      400,
    );
    expect(error.error).toMatch(/^limit/);
  });

  it('pages with offset', async () => {
    const org = await t.server.newOrg();
    const { id } = await create(org.api);
    await seed(org, id, 5);
    expect((await page(org, id, { limit: 2, offset: 2 })).map((d) => d.duration_ms)).toEqual([2, 1]);
    expect(await page(org, id, { offset: 5 })).toEqual([]);
  });
});

describe('the test endpoint', () => {
  it('sends a signed ping the standardwebhooks package verifies, and records it', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api);
    const result = expectStatus(await ping(org, created.id), 200);
    expect(result).toMatchObject({ event_type: 'ping', response_status: 200, attempt: 1 });
    const request = defined(receiver.to(pathOf(created.url))[0], 'the request');
    expect(request.method).toBe('POST');
    expect(request.headers['webhook-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(verify(created.secret, request)).toMatchObject({ type: 'ping', data: { webhook_id: created.id } });
    const deliveries = expectStatus(await org.api.call('listWebhookDeliveries', { params: { id: created.id } }), 200);
    expect(deliveries).toMatchObject([{ event_type: 'ping', response_status: 200, attempt: 1 }]);
  });

  it('answers 502 when the endpoint answers 500, without echoing its body', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api);
    receiver.on(pathOf(created.url), { status: 500, body: 'remote-internal-detail' });
    const response = await ping(org, created.id);
    expect(expectStatus(response, 502)).toMatchObject({ code: 'webhook_failed' });
    expect(response.text).toContain('500');
    expect(response.text).not.toContain('remote-internal-detail');
    const deliveries = expectStatus(await org.api.call('listWebhookDeliveries', { params: { id: created.id } }), 200);
    expect(deliveries).toMatchObject([{ event_type: 'ping', response_status: 500 }]);
  });

  it('answers 502 when nothing listens on the port, recording no status', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api, { url: `http://127.0.0.1:${await closedPort()}/hook` });
    expect(expectStatus(await ping(org, created.id), 502).error).toContain('connection refused');
    const deliveries = expectStatus(await org.api.call('listWebhookDeliveries', { params: { id: created.id } }), 200);
    expect(deliveries).toMatchObject([{ event_type: 'ping', response_status: null }]);
  });

  it('does not follow a redirect (502)', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api);
    const landing = hookPath();
    receiver.on(pathOf(created.url), { redirect: receiver.url(landing), status: 307 });
    expect(expectStatus(await ping(org, created.id), 502).error).toContain('answered 307');
    expect(receiver.to(pathOf(created.url))).toHaveLength(1);
    expect(receiver.to(landing)).toEqual([]);
  });

  it('pings a switched-off subscription too', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api);
    expectStatus(await org.api.call('updateWebhook', { params: { id: created.id }, body: { is_active: false } }), 200);
    expectStatus(await ping(org, created.id), 200);
  });
});

describe('rotating the secret', () => {
  it('answers a new secret; the next ping verifies with it and not with the old one', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api);
    const { secret } = expectStatus(await org.api.call('rotateWebhookSecret', { params: { id: created.id } }), 200);
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(created.secret);
    expectStatus(await ping(org, created.id), 200);
    const request = defined(receiver.to(pathOf(created.url))[0], 'the request');
    expect(() => verify(created.secret, request)).toThrow();
    expect(verify(secret, request).type).toBe('ping');
  });
});

describe('activity', () => {
  it('records create, update, rotate_secret and delete, never with the secret', async () => {
    const org = await t.server.newOrg();
    const created = await create(org.api, { description: 'audited' });
    const params = { id: created.id };
    expectStatus(await org.api.call('updateWebhook', { params, body: { description: 'changed' } }), 200);
    const { secret } = expectStatus(await org.api.call('rotateWebhookSecret', { params }), 200);
    expectStatus(await org.api.call('deleteWebhook', { params }), 204);
    const response = await org.api.call('listActivity', { query: { resource_type: 'webhook' } });
    const { entries } = expectStatus(response, 200);
    expect(entries.map((e) => e.action).sort()).toEqual(['create', 'delete', 'rotate_secret', 'update']);
    expect(entries.every((e) => e.resource_id === created.id)).toBe(true);
    const update = entries.find((e) => e.action === 'update');
    expect(update?.changes).toEqual({ description: ['audited', 'changed'] });
    for (const value of [created.secret, secret]) expect(response.text).not.toContain(value.slice(6));
  });
});
