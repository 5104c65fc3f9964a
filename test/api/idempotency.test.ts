/**
 * Idempotency-Key on POSTs: a retry with the same key and request is answered from the first request
 * without running it again, another request under the key is a 422, a key whose request is still running a
 * 409; keys are per user and last 24 hours, and a secret an answer shows is kept sealed, never in clear.
 * The last two tests visit every idempotent route.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { routeMeta } from '../../contract';
import { contractRoutes } from '../../contract/routes';
import { createApp } from '../../server/app';
import { rowsOf } from '../../server/db/connection';
import { memoryCounters } from '../../server/http/rate-limit';
import { createMailer } from '../../server/mail/mailer';
import { purgeExpiredKeys, requestHash } from '../../server/modules/idempotency/idempotency.service';
import { ApiClient } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { exampleBody, hasJsonBody } from '../support/routes';
import { testConfig } from '../support/server';

const HOUR = 3600_000;
let clockOffsetMs = 0;
// Webhooks here are created but never delivered to (a closed port on loopback).
const t = useTestServer({
  now: () => new Date(Date.now() + clockOffsetMs),
  config: { outboundAllowCidrs: ['127.0.0.1/32'] },
});

const withKey = (key: string) => ({ 'idempotency-key': key });
const folderCount = async (orgId: string) =>
  defined(
    rowsOf<{ n: number }>(
      await t.server.database.db.execute(sql`SELECT count(*)::int AS n FROM folders WHERE org_id = ${orgId}`),
    )[0],
    'a count',
  ).n;

describe('Idempotency-Key', () => {
  it('answers a retry with the first answer, marked as replayed, and creates once', async () => {
    const org = await t.server.newOrg();
    const key = randomUUID();
    const call = () => org.api.call('createFolder', { body: { name: 'DC' }, headers: withKey(key) });
    const first = await call();
    const created = expectStatus(first, 201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await call();
    expect(expectStatus(again, 201)).toEqual(created);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await folderCount(org.orgId)).toBe(1);
  });

  it('replays an error answer too: the request is not run again', async () => {
    const org = await t.server.newOrg();
    const existing = expectStatus(await org.api.call('createFolder', { body: { name: 'DC' } }), 201);
    const key = randomUUID();
    const call = () => org.api.call('createFolder', { body: { name: 'DC' }, headers: withKey(key) });
    const refused = expectStatus(await call(), 400);
    expectStatus(await org.api.call('deleteFolder', { params: { id: existing.id } }), 204);
    expect(expectStatus(await call(), 400)).toEqual(refused);
    expect(await folderCount(org.orgId)).toBe(0);
  });

  it('keeps and replays an answer echoing what jsonb refuses (NUL, a lone surrogate)', async () => {
    const org = await t.server.newOrg();
    const key = randomUUID();
    const call = () =>
      org.api.call('createFolder', {
        rawBody: '{"name":"a","x\\u0000":1,"y\\ud800":2}',
        headers: { ...withKey(key), 'content-type': 'application/json' },
      });
    const first = await call();
    const refused = expectStatus(first, 400);
    const again = await call();
    expect(expectStatus(again, 400)).toEqual(refused);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 422 to the same key with another body or path, and runs nothing', async () => {
    const org = await t.server.newOrg();
    const key = randomUUID();
    expectStatus(await org.api.call('createFolder', { body: { name: 'A' }, headers: withKey(key) }), 201);
    const error = expectStatus(await org.api.call('createFolder', { body: { name: 'B' }, headers: withKey(key) }), 422);
    expect(error.code).toBe('idempotency_mismatch');
    expectStatus(await org.api.call('createVlan', { body: { vlan_number: 7 }, headers: withKey(key) }), 422);
    expect(await folderCount(org.orgId)).toBe(1);
  });

  it('answers 409 with Retry-After while the first request with the key is still running', async () => {
    const org = await t.server.newOrg();
    const key = randomUUID();
    const body = { name: 'slow' };
    await claim(org, key, requestHash('POST', '/api/v1/folders', JSON.stringify(body)), new Date());
    const response = await org.api.call('createFolder', { body, headers: withKey(key) });
    expect(expectStatus(response, 409).code).toBe('idempotency_in_flight');
    expect(response.headers.get('retry-after')).toBe('1');
  });

  it('takes over a claim left unanswered for a minute (its server died) and runs the request', async () => {
    const org = await t.server.newOrg();
    const key = randomUUID();
    const body = { name: 'orphan' };
    await claim(org, key, requestHash('POST', '/api/v1/folders', JSON.stringify(body)), new Date(Date.now() - 61_000));
    expectStatus(await org.api.call('createFolder', { body, headers: withKey(key) }), 201);
  });

  it('gives two concurrent requests with one key one run: the other is a 409 or the replay', async () => {
    const org = await t.server.newOrg();
    const subnet = expectStatus(await org.api.call('createSubnet', { body: { network: '10.50.0.0/22' } }), 201);
    const id = 'subnet' in subnet ? subnet.subnet.id : subnet.id;
    const ips = Array.from({ length: 500 }, (_, i) => `10.50.${(i + 1) >> 8}.${(i + 1) & 255}`);
    const key = randomUUID();
    const call = () => org.api.call('batchCreateAddresses', { params: { id }, body: { ips }, headers: withKey(key) });
    const statuses = (await Promise.all([call(), call(), call()])).map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const replay = expectStatus(await call(), 200);
    expect(replay.created).toBe(500);
  });

  it('keeps keys per organisation', async () => {
    const [a, b] = [await t.server.newOrg(), await t.server.newOrg()];
    const key = randomUUID();
    expectStatus(await a.api.call('createFolder', { body: { name: 'A' }, headers: withKey(key) }), 201);
    const other = await b.api.call('createFolder', { body: { name: 'B' }, headers: withKey(key) });
    expectStatus(other, 201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
  });

  it('keeps keys per user: another member’s request with the admin’s key and body is a request of its own', async () => {
    const org = await t.server.newOrg({ plan: 'teams' });
    const editor = await org.member('editor');
    const key = randomUUID();
    const body = { name: 'deploy', permissions: ['read', 'write'] };
    const admins = expectStatus(await org.api.call('createApiKey', { body, headers: withKey(key) }), 201);
    const response = await editor.api.call('createApiKey', { body, headers: withKey(key) });
    const own = expectStatus(response, 201);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    expect([own.id, own.key]).not.toContain(admins.id);
    expect(own.key).not.toBe(admins.key);
    // The editor's session is the same person: it gets the editor's own answer again, never the admin's.
    const bySession = await editor.web.call('createApiKey', { body, headers: withKey(key) });
    expect(expectStatus(bySession, 201)).toEqual(own);
  });

  it('forgets a key after 24 hours: the same request then runs again', async () => {
    const org = await t.server.newOrg();
    const key = randomUUID();
    const call = () => org.api.call('createFolder', { body: { name: 'DC' }, headers: withKey(key) });
    expectStatus(await call(), 201);
    clockOffsetMs = 24 * HOUR - 60_000;
    try {
      expect((await call()).headers.get('idempotent-replayed')).toBe('true');
      clockOffsetMs = 24 * HOUR + 60_000;
      expect(expectStatus(await call(), 400).code).toBe('duplicate');
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('purges keys past their 24 hours, and only those', async () => {
    const org = await t.server.newOrg();
    const [old, recent] = [randomUUID(), randomUUID()];
    await claim(org, old, 'h', new Date(Date.now() - 24 * HOUR - 60_000));
    await claim(org, recent, 'h', new Date(Date.now() - 24 * HOUR + 60_000));
    await purgeExpiredKeys(t.server.database.db, new Date());
    const left = rowsOf<{ key: string }>(
      await t.server.database.db.execute(sql`SELECT key FROM idempotency_keys WHERE org_id = ${org.orgId}`),
    );
    expect(left.map((r) => r.key)).toEqual([recent]);
  });

  it('accepts a key of 255 visible characters and refuses 256, or one with a space (400)', async () => {
    const org = await t.server.newOrg();
    expectStatus(await org.api.call('createFolder', { body: { name: 'x' }, headers: withKey('k'.repeat(255)) }), 201);
    const long = expectStatus(
      await org.api.call('createFolder', { body: { name: 'y' }, headers: withKey('k'.repeat(256)) }),
      400,
    );
    expect(long.error).toMatch(/idempotency-key/);
    expectStatus(await org.api.call('createFolder', { body: { name: 'z' }, headers: withKey('a b') }), 400);
  });

  it('binds a key to a body nested deeper than JSON.stringify can walk, which then gets its 400', async () => {
    const org = await t.server.newOrg();
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const response = await org.api.call('createSubnet', {
      rawBody: `{"network":"10.9.0.0/24","custom_fields":${deep}}`,
      headers: { ...withKey(randomUUID()), 'content-type': 'application/json' },
    });
    expect(expectStatus(response, 400).error).toContain('custom_fields');
  });

  it('ignores the header where the contract does not take it (a GET)', async () => {
    const org = await t.server.newOrg();
    const key = randomUUID();
    expectStatus(await org.api.call('listFolders', { headers: withKey(key) }), 200);
    expectStatus(await org.api.call('createFolder', { body: { name: 'after' }, headers: withKey(key) }), 201);
  });
});

/** Every idempotent route, with a request for it (fresh ids in the path, the document's example body). */
const idempotentRoutes = contractRoutes.filter((r) => routeMeta(r.route).idempotent);

function requestFor(id: string, route: (typeof idempotentRoutes)[number]['route']) {
  const params: Record<string, string> = {};
  let path = route.path;
  for (const [, name = ''] of route.path.matchAll(/:(\w+)/g)) {
    const id = randomUUID();
    params[name] = id;
    path = path.replace(`:${name}`, id);
  }
  const body = hasJsonBody(route) ? ((exampleBody(id) as Record<string, unknown> | undefined) ?? {}) : undefined;
  return { params, path, body };
}

describe('every idempotent route', () => {
  it('is every POST the contract authenticates, bar logout', () => {
    const posts = contractRoutes.filter((r) => r.route.method === 'POST' && routeMeta(r.route).access !== 'public');
    expect(posts.filter((r) => !routeMeta(r.route).idempotent).map((r) => r.id)).toEqual(['endSession']);
  });

  it.each(idempotentRoutes.map((r) => r.id))('%s answers 422 to a key used before by another request', async (id) => {
    const { route } = idempotentRoutes.find((r) => r.id === id)!;
    const key = randomUUID();
    expectStatus(await t.org.api.call('createFolder', { body: { name: key }, headers: withKey(key) }), 201);
    const request = requestFor(id, route);
    const response = await t.org.api.call(id, { params: request.params, body: request.body, headers: withKey(key) });
    expectStatus(response, 422);
  });

  it.each(idempotentRoutes.map((r) => r.id))('%s answers 409 while its key is claimed', async (id) => {
    const { route } = idempotentRoutes.find((r) => r.id === id)!;
    const key = randomUUID();
    const request = requestFor(id, route);
    await claim(
      t.org,
      key,
      requestHash('POST', request.path, request.body === undefined ? undefined : JSON.stringify(request.body)),
      new Date(),
    );
    const response = await t.org.api.call(id, { params: request.params, body: request.body, headers: withKey(key) });
    expectStatus(response, 409);
  });
});

/** A claim of the organisation's first user, as a request that is still running leaves it. */
async function claim(owner: { orgId: string; userId: string }, key: string, hash: string, at: Date) {
  await t.server.database.db.execute(sql`
    INSERT INTO idempotency_keys (org_id, user_id, key, request_hash, locked_at, created_at)
    VALUES (${owner.orgId}, ${owner.userId}, ${key}, ${hash}, ${at.toISOString()}, ${at.toISOString()})`);
}

describe('a secret in an idempotent answer', () => {
  /** Every column of the organisation's stored keys, as text. */
  const storedRows = async (orgId: string) =>
    JSON.stringify(
      rowsOf(await t.server.database.db.execute(sql`SELECT * FROM idempotency_keys WHERE org_id = ${orgId}`)),
    );

  it('is shown again by a replay of POST /api-keys, and kept only sealed', async () => {
    const org = await t.server.newOrg();
    const key = randomUUID();
    const call = () => org.api.call('createApiKey', { body: { name: 'ci' }, headers: withKey(key) });
    const created = expectStatus(await call(), 201);
    const replay = await call();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(expectStatus(replay, 201)).toEqual(created);
    const stored = await storedRows(org.orgId);
    expect(stored).toContain(created.id);
    expect(stored).not.toContain(created.key);
    expect(stored).not.toContain(created.key.slice(12));
  });

  it('is shown again by a replay of POST /webhooks and of rotate-secret, and kept only sealed', async () => {
    const org = await t.server.newOrg();
    const [createKey, rotateKey] = [randomUUID(), randomUUID()];
    const create = () =>
      org.api.call('createWebhook', { body: { url: 'https://127.0.0.1:9/hook' }, headers: withKey(createKey) });
    const hook = expectStatus(await create(), 201);
    expect(expectStatus(await create(), 201)).toEqual(hook);
    const rotate = () => org.api.call('rotateWebhookSecret', { params: { id: hook.id }, headers: withKey(rotateKey) });
    const rotated = expectStatus(await rotate(), 200);
    expect(expectStatus(await rotate(), 200)).toEqual(rotated);
    const stored = await storedRows(org.orgId);
    for (const secret of [hook.secret, rotated.secret]) expect(stored).not.toContain(secret.slice(6));
  });

  it('answers 422 idempotency_secret_unavailable naming the key made, where it was sealed under another server key', async () => {
    const org = await t.server.newOrg();
    const key = randomUUID();
    const body = { name: 'lost' };
    const created = expectStatus(await org.api.call('createApiKey', { body, headers: withKey(key) }), 201);
    // A second server on the same database with a key of its own (SECRETS_KEY unset, or set differently).
    const other = createApp(testConfig({ secretsKey: randomBytes(32) }), {
      db: t.server.database.db,
      counters: memoryCounters(),
      mailer: createMailer({ from: 'x@example.test' }, () => {}),
      log: () => {},
      warn: () => {},
    }).listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => other.once('listening', resolve));
      const client = new ApiClient(`http://127.0.0.1:${(other.address() as AddressInfo).port}`, { key: org.key });
      const refused = expectStatus(await client.call('createApiKey', { body, headers: withKey(key) }), 422);
      expect(refused.code).toBe('idempotency_secret_unavailable');
      expect(refused.error).toContain(created.id);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
