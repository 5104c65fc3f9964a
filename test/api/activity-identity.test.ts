/** Activity entries for API keys, team members and invitations (the IPAM resources are in activity.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpServer } from '../fixtures/smtp';
import type { ApiClient } from '../support/client';
import { clientIp } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp?.close());

const t = useTestServer(() => ({ config: { smtpUrl: smtp.url } }), false);

const history = async (api: ApiClient) =>
  expectStatus(await api.call('listActivity'), 200)
    .entries.reverse()
    .map((e) => [e.action, e.resource_type, e.resource_id, e.changes]);

describe('activity for identity changes', () => {
  it('records creating and revoking an API key, never the key itself', async () => {
    const org = await t.server.newOrg();
    const key = expectStatus(await org.api.call('createApiKey', { body: { name: 'ci', permissions: ['read'] } }), 201);
    expectStatus(await org.api.call('revokeApiKey', { params: { id: key.id } }), 204);
    const entries = await history(org.api);
    expect(entries).toEqual([
      ['create', 'api_key', key.id, { name: [null, 'ci'], permissions: [null, ['read']] }],
      ['revoke', 'api_key', key.id, { name: ['ci', null], permissions: [['read'], null] }],
    ]);
    expect(JSON.stringify(entries)).not.toContain(key.key);
  });

  it('records a role change and a removal', async () => {
    const org = await t.server.newOrg({ plan: 'teams' });
    await org.member('viewer');
    const members = expectStatus(await org.api.call('listTeamMembers'), 200);
    const other = members.find((m) => m.user_id !== org.userId)!;
    expectStatus(
      await org.api.call('updateTeamMemberRole', { params: { user_id: other.user_id }, body: { role: 'editor' } }),
      200,
    );
    expectStatus(await org.api.call('removeTeamMember', { params: { user_id: other.user_id } }), 200);
    expect(await history(org.api)).toEqual([
      ['role_change', 'member', other.user_id, { role: ['viewer', 'editor'] }],
      ['remove_member', 'member', other.user_id, { email: [other.email, null], role: ['editor', null] }],
    ]);
  });

  it('records an invitation, its cancellation, and the member who joins by one', async () => {
    const org = await t.server.newOrg({ plan: 'teams' });
    const cancelled = expectStatus(
      await org.api.call('createTeamInvitation', { body: { email: 'gone@example.test', role: 'viewer' } }),
      201,
    );
    expectStatus(await org.api.call('cancelTeamInvitation', { params: { id: cancelled.id } }), 200);
    const invited = expectStatus(
      await org.api.call('createTeamInvitation', { body: { email: 'joiner@example.test', role: 'editor' } }),
      201,
    );
    const token = defined(
      /accept-invite\?token=([\w-]+)/.exec(smtp.lastTo('joiner@example.test') ?? '')?.[1],
      'the invitation token mailed',
    );
    const accepted = await t.server.anonymous.call('acceptInvitation', {
      query: { token },
      headers: { 'x-forwarded-for': clientIp() },
    });
    expect(accepted.status).toBe(307);
    const entries = await history(org.api);
    expect(entries.slice(0, 3)).toEqual([
      ['invite', 'invitation', cancelled.id, { email: [null, 'gone@example.test'], role: [null, 'viewer'] }],
      ['delete', 'invitation', cancelled.id, { email: ['gone@example.test', null], role: ['viewer', null] }],
      ['invite', 'invitation', invited.id, { email: [null, 'joiner@example.test'], role: [null, 'editor'] }],
    ]);
    expect(entries[3]).toEqual([
      'create',
      'member',
      expect.any(String),
      { email: [null, 'joiner@example.test'], role: [null, 'editor'] },
    ]);
  });
});
