import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import type { ApiClient } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import type { TestOrg } from '../support/server';

const t = useTestServer({}, false);

/** The user an API key acts for. */
async function userOfKey(key: string): Promise<string> {
  const hash = createHash('sha256').update(key).digest('hex');
  const result = await t.server.database.db.execute(sql`SELECT user_id FROM api_keys WHERE key_hash = ${hash}`);
  return defined(rowsOf<{ user_id: string }>(result)[0], 'the key').user_id;
}

/** A member of `org` with a role, their id and clients. */
async function memberOf(org: TestOrg, role: 'admin' | 'editor' | 'viewer') {
  const member = await org.member(role);
  return { ...member, userId: await userOfKey(member.key) };
}

const listMembers = async (client: ApiClient) => expectStatus(await client.call('listTeamMembers'), 200);
const setRole = (client: ApiClient, userId: string, role: string) =>
  client.call('updateTeamMemberRole', { params: { user_id: userId }, body: { role } });
const remove = (client: ApiClient, userId: string) => client.call('removeTeamMember', { params: { user_id: userId } });

describe('listing members', () => {
  it('lists every member with their role', async () => {
    const org = await t.server.newOrg();
    const editor = await memberOf(org, 'editor');
    const members = await listMembers(org.api);
    expect(members.map((m) => [m.user_id, m.role]).sort()).toEqual(
      [
        [org.userId, 'admin'],
        [editor.userId, 'editor'],
      ].sort(),
    );
    expect(members.find((m) => m.user_id === org.userId)).toMatchObject({ email: org.email, name: '' });
  });

  it('lets a viewer list the members', async () => {
    const org = await t.server.newOrg();
    const viewer = await memberOf(org, 'viewer');
    expect((await listMembers(viewer.api)).map((m) => m.user_id)).toContain(viewer.userId);
  });

  it('works on the free plan', async () => {
    const org = await t.server.newOrg({ plan: 'free' });
    expect(await listMembers(org.api)).toHaveLength(1);
  });

  it('shows no member of another organisation', async () => {
    const org = await t.server.newOrg();
    const other = await t.server.newOrg();
    expect((await listMembers(org.api)).map((m) => m.user_id)).not.toContain(other.userId);
  });
});

describe('changing a member’s role', () => {
  it('changes the role (200 with a message)', async () => {
    const org = await t.server.newOrg();
    const editor = await memberOf(org, 'editor');
    const answer = expectStatus(await setRole(org.api, editor.userId, 'viewer'), 200);
    expect(answer.message).toContain('viewer');
    expect((await listMembers(org.api)).find((m) => m.user_id === editor.userId)?.role).toBe('viewer');
  });

  it('takes effect on the member’s next request', async () => {
    const org = await t.server.newOrg();
    const viewer = await memberOf(org, 'viewer');
    expectStatus(await viewer.web.call('createFolder', { body: { name: 'before' } }), 403);
    expectStatus(await setRole(org.api, viewer.userId, 'editor'), 200);
    expectStatus(await viewer.web.call('createFolder', { body: { name: 'after' } }), 201);
  });

  it('works on the free plan through a session', async () => {
    const org = await t.server.newOrg({ plan: 'free' });
    const viewer = await memberOf(org, 'viewer');
    expectStatus(await setRole(org.web, viewer.userId, 'editor'), 200);
  });

  it('refuses to demote the last admin (400 last_admin)', async () => {
    const org = await t.server.newOrg();
    await memberOf(org, 'editor');
    const error = expectStatus(await setRole(org.api, org.userId, 'editor'), 400);
    expect(error.code).toBe('last_admin');
  });

  it('lets an admin step down while another admin remains', async () => {
    const org = await t.server.newOrg();
    await memberOf(org, 'admin');
    expectStatus(await setRole(org.api, org.userId, 'viewer'), 200);
  });

  it('refuses an unknown role (400 naming the field)', async () => {
    const org = await t.server.newOrg();
    const editor = await memberOf(org, 'editor');
    const error = expectStatus(await setRole(org.api, editor.userId, 'owner'), 400);
    expect(error.error).toMatch(/^role: /);
  });

  it('answers 404 for another organisation’s user, whose role stays', async () => {
    const org = await t.server.newOrg();
    const other = await t.server.newOrg();
    expectStatus(await setRole(org.api, other.userId, 'viewer'), 404);
    expect((await listMembers(other.api))[0]?.role).toBe('admin');
  });

  it('refuses an editor (403)', async () => {
    const org = await t.server.newOrg();
    const editor = await memberOf(org, 'editor');
    const error = expectStatus(await setRole(editor.api, editor.userId, 'admin'), 403);
    expect(error.error).toContain('admin role');
  });
});

describe('removing a member', () => {
  it('removes the member (200 with a message) from the list', async () => {
    const org = await t.server.newOrg();
    const editor = await memberOf(org, 'editor');
    expect(expectStatus(await remove(org.api, editor.userId), 200).message).toContain('removed');
    expect((await listMembers(org.api)).map((m) => m.user_id)).toEqual([org.userId]);
  });

  it('makes the member’s API key answer 401 on the next request', async () => {
    const org = await t.server.newOrg();
    const editor = await memberOf(org, 'editor');
    expectStatus(await editor.api.call('listFolders'), 200);
    expectStatus(await remove(org.api, editor.userId), 200);
    expectStatus(await editor.api.call('listFolders'), 401);
  });

  it('makes the member’s session answer 401 on the next request', async () => {
    const org = await t.server.newOrg();
    const editor = await memberOf(org, 'editor');
    expectStatus(await editor.web.call('listFolders'), 200);
    expectStatus(await remove(org.api, editor.userId), 200);
    expectStatus(await editor.web.call('listFolders'), 401);
  });

  it('deletes the user record', async () => {
    const org = await t.server.newOrg();
    const editor = await memberOf(org, 'editor');
    expectStatus(await remove(org.api, editor.userId), 200);
    const result = await t.server.database.db.execute(sql`SELECT id FROM users WHERE id = ${editor.userId}`);
    expect(rowsOf(result)).toEqual([]);
  });

  it('refuses to remove the last admin (400 last_admin)', async () => {
    const org = await t.server.newOrg();
    await memberOf(org, 'viewer');
    const error = expectStatus(await remove(org.api, org.userId), 400);
    expect(error.code).toBe('last_admin');
    expectStatus(await org.api.call('listFolders'), 200);
  });

  it('lets an admin remove another admin', async () => {
    const org = await t.server.newOrg();
    const second = await memberOf(org, 'admin');
    expectStatus(await remove(org.api, second.userId), 200);
    expectStatus(await second.api.call('listFolders'), 401);
  });

  it('answers 404 for another organisation’s user, who keeps working', async () => {
    const org = await t.server.newOrg();
    const other = await t.server.newOrg();
    expectStatus(await remove(org.api, other.userId), 404);
    expectStatus(await other.api.call('listFolders'), 200);
  });

  it('refuses a viewer (403)', async () => {
    const org = await t.server.newOrg();
    const viewer = await memberOf(org, 'viewer');
    expectStatus(await remove(viewer.api, org.userId), 403);
  });
});
