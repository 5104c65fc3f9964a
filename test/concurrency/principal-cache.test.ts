/**
 * Servers cache who a key or session belongs to; a change made through one process, or straight in the
 * database (an operator command), must hold on the very next request to any process. Two server
 * processes on one PostgreSQL database; needs TEST_DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { insertUser } from '../../server/modules/identity/identity.repo';
import * as identity from '../../server/modules/identity/identity.service';
import { defined } from '../support/defined';
import { clientsOf, useServerProcesses } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useServerProcesses();
const url = t.url;

async function organisation(plan: 'pro' | 'free' = 'pro') {
  const email = `cache-${randomUUID()}@example.test`;
  const user = await identity.ensureUser(t.database.db, email, { plan });
  const { key } = await identity.createApiKey(t.database.db, user, 'cache');
  return { email, user, key, apis: clientsOf(t.servers, { key }) };
}

describe.skipIf(!url)('cached callers across two server processes', () => {
  it('a key revoked through one process answers 401 on the next request to the other, 20 times over', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const { apis } = await organisation();
      expectStatus(await apis[1].call('listFolders'), 200); // cached in the second process
      const [own] = expectStatus(await apis[0].call('listApiKeys'), 200);
      const id = defined(own, 'the key').id;
      expectStatus(await apis[0].call('revokeApiKey', { params: { id } }), 204);
      statuses.push((await apis[1].call('listFolders')).status);
    }
    expect(statuses).toEqual(Array(20).fill(401));
  });

  it('a role lowered through one process is the role of the next request to the other', async () => {
    const { apis, user } = await organisation();
    // A member of the organisation, an editor, with a key of their own used through the second process.
    const editor = await insertUser(t.database.db, {
      orgId: user.orgId,
      email: `e-${randomUUID()}@example.test`,
      name: '',
      role: 'editor',
    });
    const { key } = await identity.createApiKey(t.database.db, editor, 'editor');
    const [, editorApi] = clientsOf(t.servers, { key });
    expectStatus(await editorApi.call('createFolder', { body: { name: 'before' } }), 201);
    expectStatus(
      await apis[0].call('updateTeamMemberRole', { params: { user_id: editor.id }, body: { role: 'viewer' } }),
      200,
    );
    expect((await editorApi.call('createFolder', { body: { name: 'after' } })).status).toBe(403);
  });

  it('a plan changed in the database (the operator command) is the plan of the next request', async () => {
    const { apis, email } = await organisation('pro');
    expectStatus(await apis[0].call('createFolder', { body: { name: 'on pro' } }), 201);
    await identity.setPlan(t.database.db, email, 'free');
    expect((await apis[0].call('createFolder', { body: { name: 'on free' } })).status).toBe(403);
  });
});
