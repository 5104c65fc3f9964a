import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const unknownKey = () => `svc_${randomBytes(48).toString('base64url')}`;

describe('authentication (401)', () => {
  it.each([
    ['no credentials', null],
    ['a non-bearer Authorization header', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['a key without the svc_ prefix', { authorization: `Bearer ${'x'.repeat(68)}` }],
    ['a key of the wrong length', { authorization: 'Bearer svc_short' }],
    ['an unknown key', { key: unknownKey() }],
    ['an unknown session', { session: randomBytes(32).toString('base64url') }],
  ])('refuses %s', async (_, credentials) => {
    const error = expectStatus(await t.server.anonymous.call('listFolders', { as: credentials as never }), 401);
    expect(error.code).toBe('unauthenticated');
  });

  it('accepts a valid key', async () => {
    expectStatus(await t.org.api.call('listFolders'), 200);
  });

  it('accepts a valid session for reads without the CSRF header', async () => {
    expectStatus(await t.org.web.call('listFolders', { as: { session: t.org.session, csrf: false } }), 200);
  });

  it('records last_used_at when a key is used', async () => {
    const fresh = await t.server.newOrg();
    expectStatus(await fresh.api.call('listFolders'), 200);
    let lastUsed: unknown = null;
    for (let i = 0; i < 50 && !lastUsed; i++) {
      const result = (await t.server.database.db.execute(
        sql`SELECT last_used_at FROM api_keys WHERE org_id = ${fresh.orgId}`,
      )) as unknown as { rows: { last_used_at: unknown }[] };
      lastUsed = result.rows[0]?.last_used_at;
      if (!lastUsed) await new Promise((r) => setTimeout(r, 20));
    }
    expect(lastUsed).toBeTruthy();
  });
});

describe('permissions (403)', () => {
  it('refuses a write with a read-only key', async () => {
    const key = await t.org.keyWith(['read']);
    const error = expectStatus(await t.org.api.call('createFolder', { as: { key }, body: { name: 'ro' } }), 403);
    expect(error.error).toContain('write permission');
  });

  it('refuses a read with a write-only key', async () => {
    const key = await t.org.keyWith(['write']);
    const error = expectStatus(await t.org.api.call('listFolders', { as: { key } }), 403);
    expect(error.error).toContain('read permission');
  });

  it('refuses a write with a key on the free plan', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    const error = expectStatus(await free.api.call('createFolder', { body: { name: 'free' } }), 403);
    expect(error.error).toContain('free plan');
  });

  it('lets a key on the free plan read', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    expectStatus(await free.api.call('listFolders'), 200);
  });

  it.each(['pro', 'teams', 'enterprise'] as const)('lets a key on the %s plan write', async (plan) => {
    const org = await t.server.newOrg({ plan });
    expectStatus(await org.api.call('createFolder', { body: { name: `by-key-${plan}` } }), 201);
  });

  it('lets a session on the free plan write', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    expectStatus(await free.web.call('createFolder', { body: { name: 'by-session' } }), 201);
  });

  it('refuses a write by a viewer', async () => {
    const viewer = await t.org.member('viewer');
    const error = expectStatus(await viewer.api.call('createFolder', { body: { name: 'v' } }), 403);
    expect(error.error).toContain('editor role');
  });

  it('lets a viewer read and an editor write', async () => {
    const viewer = await t.org.member('viewer');
    const editor = await t.org.member('editor');
    expectStatus(await viewer.api.call('listFolders'), 200);
    expectStatus(await editor.api.call('createFolder', { body: { name: 'by-editor' } }), 201);
  });
});

describe('CSRF for cookie writes', () => {
  it('refuses a cookie write without X-Requested-With (403 csrf)', async () => {
    const error = expectStatus(
      await t.org.web.call('createFolder', { as: { session: t.org.session, csrf: false }, body: { name: 'csrf' } }),
      403,
    );
    expect(error.code).toBe('csrf');
  });

  it('refuses a cookie write with a different X-Requested-With value', async () => {
    const response = await t.org.web.call('createFolder', {
      as: { session: t.org.session, csrf: false },
      headers: { 'x-requested-with': 'fetch' },
      body: { name: 'csrf2' },
    });
    expect(expectStatus(response, 403).code).toBe('csrf');
  });

  it('accepts a cookie write with X-Requested-With: XMLHttpRequest', async () => {
    expectStatus(await t.org.web.call('createFolder', { body: { name: 'with-header' } }), 201);
  });

  it('does not need the header with an API key', async () => {
    expectStatus(await t.org.api.call('createFolder', { body: { name: 'key-no-header' } }), 201);
  });
});

describe('order of checks: 401 → 403 → 400 → 404 → 402', () => {
  it('answers 401 before validating the body', async () => {
    expectStatus(await t.server.anonymous.call('createFolder', { body: { nope: true } }), 401);
  });

  it('answers 401 before parsing a malformed body', async () => {
    expectStatus(
      await t.server.anonymous.call('createFolder', {
        rawBody: '{bad',
        headers: { 'content-type': 'application/json' },
      }),
      401,
    );
  });

  it('answers 403 before validating the body', async () => {
    const key = await t.org.keyWith(['read']);
    expectStatus(await t.org.api.call('createFolder', { as: { key }, body: { nope: true } }), 403);
  });

  it('answers 400 for a bad body before looking the id up', async () => {
    const id = '00000000-0000-4000-8000-000000000000';
    expectStatus(await t.org.api.call('updateFolder', { params: { id }, body: { name: '' } }), 400);
  });

  it('answers 404 before the plan limit', async () => {
    const full = await t.server.newOrg({ plan: 'enterprise', limits: { vlans: 0 } });
    const id = '00000000-0000-4000-8000-000000000000';
    expectStatus(await full.api.call('updateVlan', { params: { id }, body: { name: 'x' } }), 404);
  });
});
