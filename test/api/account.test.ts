import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import type { ApiResponse } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

/** The service's clock: real time, or a fixed instant while a test holds it. */
let frozen: Date | null = null;

const t = useTestServer({ now: () => frozen ?? new Date() }, false);

const clearsSessionCookie = (response: ApiResponse) =>
  expect(response.headers.getSetCookie()).toContainEqual(
    expect.stringMatching(/^service_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Lax/),
  );

async function count(query: ReturnType<typeof sql>): Promise<number> {
  return Number(defined(rowsOf<{ n: number }>(await t.server.database.db.execute(query))[0], 'a count').n);
}

describe('GET /auth/me', () => {
  it('answers the session’s user, organisation and role', async () => {
    const org = await t.server.newOrg({ plan: 'teams' });
    const body = expectStatus(await org.web.call('getCurrentUser'), 200);
    expect(body.user).toMatchObject({ id: org.userId, email: org.email, name: '' });
    expect(body.organization).toMatchObject({ id: org.orgId, plan: 'teams' });
    expect(body.role).toBe('admin');
  });

  it('answers the key creator with an API key, with their own role', async () => {
    const org = await t.server.newOrg();
    const viewer = await org.member('viewer');
    const body = expectStatus(await viewer.api.call('getCurrentUser'), 200);
    expect(body.organization.id).toBe(org.orgId);
    expect(body.role).toBe('viewer');
    expect(body.user.id).not.toBe(org.userId);
  });

  it('refuses a key without the read permission (403)', async () => {
    const org = await t.server.newOrg();
    const key = await org.keyWith(['write']);
    expectStatus(await org.api.call('getCurrentUser', { as: { key } }), 403);
  });
});

describe('POST /auth/logout', () => {
  it('destroys the session and clears the cookie; the cookie then answers 401', async () => {
    const org = await t.server.newOrg();
    const response = await org.web.call('endSession');
    expect(expectStatus(response, 200).message).toBe('Signed out');
    clearsSessionCookie(response);
    expectStatus(await org.web.call('getCurrentUser'), 401);
    expect(await count(sql`SELECT count(*) AS n FROM sessions WHERE user_id = ${org.userId}`)).toBe(0);
  });

  it('ends only the session it is called with', async () => {
    const org = await t.server.newOrg();
    const other = t.server.anonymous.as({ session: org.session });
    const member = await org.member('editor');
    expectStatus(await member.web.call('endSession'), 200);
    expectStatus(await other.call('getCurrentUser'), 200);
  });

  it('needs the CSRF header with a cookie (403 csrf)', async () => {
    const org = await t.server.newOrg();
    const response = await org.web.call('endSession', { as: { session: org.session, csrf: false } });
    expect(expectStatus(response, 403).code).toBe('csrf');
    expectStatus(await org.web.call('getCurrentUser'), 200);
  });

  it('does nothing with an API key: 200, the key and the user’s sessions keep working', async () => {
    const org = await t.server.newOrg();
    const response = await org.api.call('endSession');
    expect(expectStatus(response, 200).message).toContain('API key');
    expect(response.headers.getSetCookie()).toEqual([]);
    expectStatus(await org.api.call('getCurrentUser'), 200);
    expectStatus(await org.web.call('getCurrentUser'), 200);
  });

  it('answers 401 without credentials', async () => {
    expectStatus(await t.server.anonymous.call('endSession'), 401);
  });
});

describe('DELETE /auth/account', () => {
  it('deletes the last member with the organisation and all its data', async () => {
    const org = await t.server.newOrg();
    expectStatus(await org.api.call('createFolder', { body: { name: 'gone' } }), 201);
    const vrf = expectStatus(await org.api.call('createVrf', { body: { name: 'blue' } }), 201);
    const subnet = { network: '10.1.0.0/24', vrf_id: vrf.id };
    expectStatus(await org.api.call('createSubnet', { body: subnet }), 201);

    const response = await org.web.call('deleteAccount');
    expect(expectStatus(response, 200).message).toContain('organisation');
    clearsSessionCookie(response);
    expectStatus(await org.web.call('getCurrentUser'), 401);
    expectStatus(await org.api.call('getCurrentUser'), 401);
    for (const table of ['organizations', 'users', 'folders', 'vrfs', 'subnets']) {
      const column = table === 'organizations' ? 'id' : 'org_id';
      expect(
        await count(sql`SELECT count(*) AS n FROM ${sql.raw(table)} WHERE ${sql.raw(column)} = ${org.orgId}`),
      ).toBe(0);
    }
  });

  it('deletes a member who is not the last, and the organisation stays with its data', async () => {
    const org = await t.server.newOrg();
    expectStatus(await org.api.call('createFolder', { body: { name: 'kept' } }), 201);
    const editor = await org.member('editor');
    const response = await editor.web.call('deleteAccount');
    expect(expectStatus(response, 200).message).toBe('Your account is deleted');
    clearsSessionCookie(response);
    expectStatus(await editor.web.call('getCurrentUser'), 401);
    expectStatus(await editor.api.call('getCurrentUser'), 401);
    expect(expectStatus(await org.api.call('listFolders'), 200)).toHaveLength(1);
  });

  it('lets a viewer delete their own account', async () => {
    const org = await t.server.newOrg();
    const viewer = await org.member('viewer');
    expectStatus(await viewer.web.call('deleteAccount'), 200);
    expectStatus(await viewer.web.call('getCurrentUser'), 401);
  });

  it('refuses the last admin while other members remain (400 last_admin)', async () => {
    const org = await t.server.newOrg();
    await org.member('editor');
    const response = await org.web.call('deleteAccount');
    expect(expectStatus(response, 400).code).toBe('last_admin');
    expectStatus(await org.web.call('getCurrentUser'), 200);
  });

  it('lets an admin go when another admin remains', async () => {
    const org = await t.server.newOrg();
    const admin = await org.member('admin');
    expectStatus(await org.web.call('deleteAccount'), 200);
    const me = expectStatus(await admin.web.call('getCurrentUser'), 200);
    expect(me.organization.id).toBe(org.orgId);
  });

  it('keeps one admin when two admins leave at once', async () => {
    const org = await t.server.newOrg();
    const admin = await org.member('admin');
    await org.member('viewer');
    const [a, b] = await Promise.all([org.web.call('deleteAccount'), admin.web.call('deleteAccount')]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    expect(await count(sql`SELECT count(*) AS n FROM users WHERE org_id = ${org.orgId} AND role = 'admin'`)).toBe(1);
  });

  it('needs the CSRF header with a cookie (403 csrf)', async () => {
    const org = await t.server.newOrg();
    const response = await org.web.call('deleteAccount', { as: { session: org.session, csrf: false } });
    expect(expectStatus(response, 403).code).toBe('csrf');
  });

  it('answers 401 without credentials', async () => {
    expectStatus(await t.server.anonymous.call('deleteAccount'), 401);
  });
});

describe('the per-user rate limit on these routes', () => {
  it.each(['getCurrentUser', 'endSession', 'deleteAccount'] as const)(
    'answers %s 429 past the limit',
    async (operationId) => {
      const org = await t.server.newOrg({ limits: { rate_limit: 1 } });
      // The middle of a minute, so both requests fall in one window.
      frozen = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30_000);
      try {
        expectStatus(await org.api.call('getCurrentUser'), 200);
        // Deleting an account takes a session, never a key.
        const response = await (operationId === 'deleteAccount' ? org.web : org.api).call(operationId);
        expect(expectStatus(response, 429).code).toBe('rate_limited');
        expect(response.headers.get('retry-after')).toBe('30');
      } finally {
        frozen = null;
      }
      expect(await count(sql`SELECT count(*) AS n FROM users WHERE id = ${org.userId}`)).toBe(1);
    },
  );
});
