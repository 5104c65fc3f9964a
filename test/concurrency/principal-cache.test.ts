/**
 * Servers cache who a key or session belongs to; a change made through one process, or straight in the
 * database (an operator command), holds in every process as soon as PostgreSQL's notification reaches it:
 * the cache is dropped then. That is milliseconds after the COMMIT, not before the next request: on a loaded
 * machine a request sent to the other process right after the change has been answered from the cache (2 of
 * 20 here), so these tests ask the other process until it refuses, for at most UNTIL_MS, and each request
 * after the first refusal must be refused too. Two server processes on one PostgreSQL database; needs
 * TEST_DATABASE_URL.
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

/** How long a change may take to reach the other process (its notification), at most. */
const UNTIL_MS = 2_000;

/**
 * The status of `ask` once it answers `settled` (asked every 5 ms until then, for at most UNTIL_MS) and of one
 * more ask: what the other process answers once the change has reached it, and from then on.
 */
async function settles(ask: () => Promise<number>, settled: number) {
  const start = performance.now();
  let status = await ask();
  while (status !== settled && performance.now() - start < UNTIL_MS) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    status = await ask();
  }
  return { statuses: [status, await ask()] };
}

async function organisation(plan: 'pro' | 'free' = 'pro') {
  const email = `cache-${randomUUID()}@example.test`;
  const user = await identity.ensureUser(t.database.db, email, { plan });
  const { key } = await identity.createApiKey(t.database.db, user, 'cache');
  return { email, user, key, apis: clientsOf(t.servers, { key }) };
}

describe.skipIf(!url)('cached callers across two server processes', () => {
  // Ten times, two 401s each: the 30 failed authentications a minute allowed from one address are not reached.
  it('a key revoked through one process answers 401 from the other once notified, 10 times over', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const { apis } = await organisation();
      expectStatus(await apis[1].call('listFolders'), 200); // cached in the second process
      const [own] = expectStatus(await apis[0].call('listApiKeys'), 200);
      const id = defined(own, 'the key').id;
      expectStatus(await apis[0].call('revokeApiKey', { params: { id } }), 204);
      statuses.push(...(await settles(async () => (await apis[1].call('listFolders')).status, 401)).statuses);
    }
    expect(statuses).toEqual(Array(20).fill(401));
  });

  it('a role lowered through one process is the role of the other once notified', async () => {
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
    let n = 0;
    const { statuses } = await settles(
      async () => (await editorApi.call('createFolder', { body: { name: `after ${n++}` } })).status,
      403,
    );
    expect(statuses).toEqual([403, 403]);
  });

  it('a plan changed in the database (the operator command) is the plan once notified', async () => {
    const { apis, email } = await organisation('pro');
    expectStatus(await apis[0].call('createFolder', { body: { name: 'on pro' } }), 201);
    await identity.setPlan(t.database.db, email, 'free');
    let n = 0;
    const { statuses } = await settles(
      async () => (await apis[0].call('createFolder', { body: { name: `on free ${n++}` } })).status,
      403,
    );
    expect(statuses).toEqual([403, 403]);
  });
});
