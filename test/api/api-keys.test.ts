import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import * as identity from '../../server/modules/identity/identity.service';
import { ApiClient } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import type { TestOrg } from '../support/server';

const t = useTestServer({}, false);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const createKey = async (client: ApiClient, body: Record<string, unknown>) =>
  expectStatus(await client.call('createApiKey', { body }), 201);
const listKeys = async (client: ApiClient) => expectStatus(await client.call('listApiKeys'), 200);
const as = (key: string) => new ApiClient(t.server.url, { key });

/** The user an API key acts for. */
async function userOfKey(key: string): Promise<string> {
  const result = await t.server.database.db.execute(sql`SELECT user_id FROM api_keys WHERE key_hash = ${sha256(key)}`);
  return defined(rowsOf<{ user_id: string }>(result)[0], 'the key').user_id;
}

describe('creating API keys', () => {
  it('answers the full key once, with both permissions by default', async () => {
    const org = await t.server.newOrg();
    const created = await createKey(org.api, { name: 'CI pipeline' });
    expect(created.key).toMatch(/^svc_[A-Za-z0-9_-]{64}$/);
    expect(created).toMatchObject({ name: 'CI pipeline', key_prefix: created.key.slice(0, 12) });
    expect(created.permissions).toEqual(['read', 'write']);
  });

  it('stores only the SHA-256 of the key', async () => {
    const org = await t.server.newOrg();
    const created = await createKey(org.api, { name: 'hashed' });
    const result = await t.server.database.db.execute(sql`SELECT * FROM api_keys WHERE id = ${created.id}`);
    const [row] = rowsOf<Record<string, unknown>>(result);
    expect(row?.key_hash).toBe(sha256(created.key));
    expect(JSON.stringify(row)).not.toContain(created.key);
  });

  it('makes a key that authenticates at once', async () => {
    const org = await t.server.newOrg();
    const created = await createKey(org.api, { name: 'works' });
    expectStatus(await as(created.key).call('listFolders'), 200);
  });

  it('makes a read-only key when asked', async () => {
    const org = await t.server.newOrg();
    const created = await createKey(org.api, { name: 'monitoring', permissions: ['read'] });
    expect(created.permissions).toEqual(['read']);
  });

  it('refuses an empty name (400 naming the field)', async () => {
    const org = await t.server.newOrg();
    const error = expectStatus(await org.api.call('createApiKey', { body: { name: '  ' } }), 400);
    expect(error.error).toMatch(/^name: /);
  });

  it.each([
    ['an unknown permission', ['admin']],
    ['a repeated permission', ['read', 'read']],
    ['no permission', []],
  ])('refuses %s (400 naming permissions)', async (_, permissions) => {
    const org = await t.server.newOrg();
    const error = expectStatus(await org.api.call('createApiKey', { body: { name: 'x', permissions } }), 400);
    expect(error.error).toMatch(/^permissions/);
  });

  it('refuses a key to a viewer (403)', async () => {
    const org = await t.server.newOrg();
    const viewer = await org.member('viewer');
    const error = expectStatus(await viewer.web.call('createApiKey', { body: { name: 'v' } }), 403);
    expect(error.error).toContain('editor role');
  });

  it('lets an editor create a key acting for the editor', async () => {
    const org = await t.server.newOrg();
    const editor = await org.member('editor');
    const created = await createKey(editor.api, { name: 'mine' });
    expect(await userOfKey(created.key)).toBe(await userOfKey(editor.key));
  });
});

describe('plan key limit (per organisation)', () => {
  it('lets a free organisation hold 5 keys and refuses the 6th (402)', async () => {
    const org = await t.server.newOrg({ plan: 'free' }); // holds 1 key already
    for (let i = 2; i <= 5; i++) await createKey(org.web, { name: `k${i}` });
    const error = expectStatus(await org.web.call('createApiKey', { body: { name: 'k6' } }), 402);
    expect(error).toMatchObject({ code: 'plan_limit' });
    expect(error.error).toContain('5 API keys');
  });

  it('counts every member’s keys against the organisation’s limit', async () => {
    const org = await t.server.newOrg({ plan: 'free' });
    const editor = await org.member('editor'); // the organisation now holds 2 keys
    for (let i = 3; i <= 5; i++) await createKey(org.web, { name: `k${i}` });
    expectStatus(await editor.web.call('createApiKey', { body: { name: 'k6' } }), 402);
  });

  it.each(['pro', 'teams'] as const)('lets a %s organisation hold 100 keys and refuses the 101st', async (plan) => {
    const org = await t.server.newOrg({ plan });
    const user = { id: await userOfKey(org.key), orgId: org.orgId };
    for (let i = 2; i <= 99; i++) await identity.createApiKey(t.server.database.db, user, `seed${i}`);
    await createKey(org.api, { name: 'hundredth' });
    const error = expectStatus(await org.api.call('createApiKey', { body: { name: '101st' } }), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('100 API keys') });
  });

  it('follows an enterprise override of api_keys', async () => {
    const org = await t.server.newOrg({ plan: 'enterprise', limits: { api_keys: 3 } });
    await createKey(org.api, { name: 'k2' });
    await createKey(org.api, { name: 'k3' });
    const error = expectStatus(await org.api.call('createApiKey', { body: { name: 'k4' } }), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('3 API keys') });
  });

  it('frees a slot when a key is revoked', async () => {
    const org = await t.server.newOrg({ plan: 'enterprise', limits: { api_keys: 2 } });
    const second = await createKey(org.api, { name: 'k2' });
    expectStatus(await org.api.call('revokeApiKey', { params: { id: second.id } }), 204);
    await createKey(org.api, { name: 'k2-again' });
  });
});

describe('listing API keys', () => {
  it('shows key_prefix and never the key, newest first', async () => {
    const org = await t.server.newOrg();
    const first = await createKey(org.api, { name: 'first' });
    const second = await createKey(org.api, { name: 'second', permissions: ['read'] });
    const list = await listKeys(org.api);
    expect(list.map((k) => k.name)).toEqual(['second', 'first', 'test']);
    expect(list[0]).toEqual({
      id: second.id,
      name: 'second',
      key_prefix: second.key.slice(0, 12),
      permissions: ['read'],
      created_at: second.created_at,
      last_used_at: null,
    });
    expect(JSON.stringify(list)).not.toContain(first.key);
  });

  it('records last_used_at once the key is used', async () => {
    const org = await t.server.newOrg();
    const created = await createKey(org.api, { name: 'used' });
    expectStatus(await as(created.key).call('listFolders'), 200);
    let entry: { last_used_at: string | null } | undefined;
    for (let i = 0; i < 50 && !entry?.last_used_at; i++) {
      entry = (await listKeys(org.web)).find((k) => k.id === created.id) as typeof entry;
      if (!entry?.last_used_at) await new Promise((r) => setTimeout(r, 20));
    }
    expect(Date.parse(entry?.last_used_at ?? '')).toBeGreaterThan(Date.parse(created.created_at) - 1000);
  });

  it('shows a viewer only their own keys', async () => {
    const org = await t.server.newOrg();
    const viewer = await org.member('viewer');
    const list = await listKeys(viewer.api);
    expect(list.map((k) => k.key_prefix)).toEqual([viewer.key.slice(0, 12)]);
  });

  it('shows an editor only their own keys', async () => {
    const org = await t.server.newOrg();
    const editor = await org.member('editor');
    await createKey(org.api, { name: 'admin-only' });
    const list = await listKeys(editor.api);
    expect(list.map((k) => k.key_prefix)).toEqual([editor.key.slice(0, 12)]);
  });

  it('shows an admin every key of the organisation and none of another', async () => {
    const org = await t.server.newOrg();
    const other = await t.server.newOrg();
    const editor = await org.member('editor');
    const prefixes = (await listKeys(org.api)).map((k) => k.key_prefix);
    expect(prefixes.sort()).toEqual([org.key.slice(0, 12), editor.key.slice(0, 12)].sort());
    expect(prefixes).not.toContain(other.key.slice(0, 12));
  });

  it('refuses a listing without credentials (401)', async () => {
    expectStatus(await t.server.anonymous.call('listApiKeys'), 401);
  });
});

describe('revoking API keys', () => {
  it('revokes a key (204) and the key answers 401 on the very next request', async () => {
    const org = await t.server.newOrg();
    const created = await createKey(org.api, { name: 'short-lived' });
    expectStatus(await as(created.key).call('listFolders'), 200);
    expectStatus(await org.api.call('revokeApiKey', { params: { id: created.id } }), 204);
    const error = expectStatus(await as(created.key).call('listFolders'), 401);
    expect(error.code).toBe('unauthenticated');
  });

  it('lets a key revoke itself', async () => {
    const org = await t.server.newOrg();
    const created = await createKey(org.api, { name: 'self' });
    expectStatus(await as(created.key).call('revokeApiKey', { params: { id: created.id } }), 204);
    expectStatus(await as(created.key).call('listApiKeys'), 401);
  });

  it('lets an editor revoke their own key', async () => {
    const org = await t.server.newOrg();
    const editor = await org.member('editor');
    const created = await createKey(editor.api, { name: 'own' });
    expectStatus(await editor.api.call('revokeApiKey', { params: { id: created.id } }), 204);
  });

  it('answers 404 to an editor revoking another member’s key, which keeps working', async () => {
    const org = await t.server.newOrg();
    const editor = await org.member('editor');
    const adminKey = await createKey(org.api, { name: 'admin' });
    expectStatus(await editor.api.call('revokeApiKey', { params: { id: adminKey.id } }), 404);
    expectStatus(await as(adminKey.key).call('listFolders'), 200);
  });

  it('lets an admin revoke any key of the organisation', async () => {
    const org = await t.server.newOrg();
    const editor = await org.member('editor');
    const created = await createKey(editor.api, { name: 'editor-key' });
    expectStatus(await org.api.call('revokeApiKey', { params: { id: created.id } }), 204);
    expectStatus(await as(created.key).call('listFolders'), 401);
  });

  it('answers 404 for another organisation’s key', async () => {
    const org = await t.server.newOrg();
    const other = await t.server.newOrg();
    const created = await createKey(other.api, { name: 'theirs' });
    expectStatus(await org.api.call('revokeApiKey', { params: { id: created.id } }), 404);
    expectStatus(await as(created.key).call('listFolders'), 200);
  });
});

describe('what a key may write', () => {
  let org: TestOrg;
  beforeAll(async () => {
    org = await t.server.newOrg({ plan: 'pro' });
  });

  it('refuses a write with a read key (403)', async () => {
    const { key } = await createKey(org.api, { name: 'ro', permissions: ['read'] });
    const error = expectStatus(await as(key).call('createApiKey', { body: { name: 'escalate' } }), 403);
    expect(error.error).toContain('write permission');
  });

  it('refuses a read with a write-only key (403)', async () => {
    const { key } = await createKey(org.api, { name: 'wo', permissions: ['write'] });
    const error = expectStatus(await as(key).call('listApiKeys'), 403);
    expect(error.error).toContain('read permission');
  });

  it('refuses a write with a key on the free plan (403)', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    const error = expectStatus(await free.api.call('createApiKey', { body: { name: 'free' } }), 403);
    expect(error.error).toContain('free plan');
  });

  it('refuses a write with a key whose creator is now a viewer (403), and still lets it read', async () => {
    const editor = await org.member('editor');
    expectStatus(await editor.api.call('createFolder', { body: { name: 'while-editor' } }), 201);
    const userId = await userOfKey(editor.key);
    const body = { role: 'viewer' };
    expectStatus(await org.api.call('updateTeamMemberRole', { params: { user_id: userId }, body }), 200);
    const error = expectStatus(await editor.api.call('createFolder', { body: { name: 'as-viewer' } }), 403);
    expect(error.error).toContain('editor role');
    expectStatus(await editor.api.call('listFolders'), 200);
  });
});
