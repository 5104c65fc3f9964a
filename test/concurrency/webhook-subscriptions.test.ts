/**
 * Servers cache each organisation's webhook subscriptions (every change looks them up to write its
 * events); a subscription created or deleted through one process must hold for the next change made
 * through the other. Two server processes on one PostgreSQL database; needs TEST_DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import * as identity from '../../server/modules/identity/identity.service';
import type { ApiClient } from '../support/client';
import { defined } from '../support/defined';
import { clientsOf, useServerProcesses } from '../support/factories';
import { expectStatus } from '../support/observed';

// No worker: the events stay in the outbox, where the test counts them.
const t = useServerProcesses({ WEBHOOK_WORKER: 'off', OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32' });

async function organisation() {
  const user = await identity.ensureUser(t.database.db, `hooks-${randomUUID()}@example.test`, { plan: 'pro' });
  const { key } = await identity.createApiKey(t.database.db, user, 'hooks');
  return clientsOf(t.servers, { key });
}

/** How many deliveries of the event about this folder the outbox holds for the webhook. */
async function queued(webhookId: string, folderId: string) {
  const result = await t.database.db.execute(sql`
    SELECT count(*)::int AS n FROM webhook_outbox o JOIN webhook_events e ON e.id = o.event_id
    WHERE o.webhook_id = ${webhookId} AND e.payload->>'id' = ${folderId}`);
  return defined(rowsOf<{ n: number }>(result)[0], 'a count').n;
}

const createFolder = async (api: ApiClient) =>
  expectStatus(await api.call('createFolder', { body: { name: `f-${randomUUID()}` } }), 201).id as string;

describe.skipIf(!t.url)('cached webhook subscriptions across two server processes', () => {
  it('a webhook created through one process gets the event of the next change through the other, 20 times over', async () => {
    const counts: number[] = [];
    for (let i = 0; i < 20; i++) {
      const apis = await organisation();
      await createFolder(apis[1]); // the second process now knows the organisation has no subscriptions
      const hook = expectStatus(await apis[0].call('createWebhook', { body: { url: 'http://127.0.0.1:9/hook' } }), 201);
      counts.push(await queued(hook.id, await createFolder(apis[1])));
    }
    expect(counts).toEqual(Array(20).fill(1));
  });

  it('a webhook deleted or paused through one process gets no event of the next change through the other', async () => {
    const apis = await organisation();
    const paused = expectStatus(await apis[0].call('createWebhook', { body: { url: 'http://127.0.0.1:9/a' } }), 201);
    const deleted = expectStatus(await apis[0].call('createWebhook', { body: { url: 'http://127.0.0.1:9/b' } }), 201);
    const before = await createFolder(apis[1]);
    expect([await queued(paused.id, before), await queued(deleted.id, before)]).toEqual([1, 1]);

    expectStatus(await apis[0].call('updateWebhook', { params: { id: paused.id }, body: { is_active: false } }), 200);
    expectStatus(await apis[0].call('deleteWebhook', { params: { id: deleted.id } }), 204);
    const after = await createFolder(apis[1]);
    expect([await queued(paused.id, after), await queued(deleted.id, after)]).toEqual([0, 0]);
  });
});
