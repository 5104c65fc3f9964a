/**
 * Several webhook workers on one PostgreSQL database, each with its own connections, claim with
 * FOR UPDATE SKIP LOCKED: every attempt is sent exactly once, first attempts and retries alike.
 * Needs TEST_DATABASE_URL (PGlite has one connection).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../server/db/connection';
import { createWebhookWorker, type WebhookWorker } from '../../server/modules/webhooks/events/worker';
import { expectStatus } from '../support/observed';
import { ALLOW, deliveries, type Harness, startHarness, subscribe } from '../support/webhook-events';

const url = process.env.TEST_DATABASE_URL;
let h: Harness;
let second: Database;
let workers: WebhookWorker[] = [];

beforeAll(async () => {
  if (!url) return;
  h = await startHarness();
  second = await openDatabase({ databaseUrl: url, maxConnections: 5 });
  const others = [1, 2].map(() =>
    createWebhookWorker({
      db: second.db,
      now: h.now,
      allowCidrs: ALLOW,
      resolveHost: async () => [],
      orgIds: h.orgIds,
      batchSize: 5,
    }),
  );
  const own = createWebhookWorker({
    db: h.server.database.db,
    now: h.now,
    allowCidrs: ALLOW,
    resolveHost: async () => [],
    orgIds: h.orgIds,
    batchSize: 5,
  });
  workers = [own, ...others];
});
afterAll(async () => {
  await second?.close();
  await h?.close();
});

/** Every worker at once; answers how many attempts each sent. */
const race = () => Promise.all(workers.map((w) => w.runOnce()));

/** Three subscriptions and `count` events for each. */
async function backlog(count: number) {
  const org = await h.org();
  const subnet = expectStatus<{ id: string }>(
    await org.api.call('createSubnet', { body: { network: '10.70.0.0/16' } }),
    201,
  );
  const subs = [await subscribe(h, org), await subscribe(h, org), await subscribe(h, org)];
  const ips = Array.from({ length: count }, (_, i) => `10.70.${Math.floor(i / 250)}.${(i % 250) + 1}`);
  expectStatus(await org.api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips } }), 200);
  return { org, subs };
}

describe.skipIf(!url)('three workers on one PostgreSQL database', () => {
  it('send each first attempt exactly once', async () => {
    const { org, subs } = await backlog(100);
    const sent = await race();
    expect(sent.reduce((a, b) => a + b, 0)).toBe(300);
    expect(sent.filter((n) => n > 0).length).toBeGreaterThan(1);
    for (const sub of subs) {
      const ids = h.receiver.to(sub.path).map((r) => r.headers['webhook-id']);
      expect(ids).toHaveLength(100);
      expect(new Set(ids).size).toBe(100);
      expect((await deliveries(org, sub)).every((d) => d.attempt === 1)).toBe(true);
    }
  });

  it('send each retry exactly once', async () => {
    // 20 events a subscription: 40 failed attempts stay under the 50 that deactivate it.
    const { org, subs } = await backlog(20);
    for (const sub of subs) h.receiver.on(sub.path, { status: 500 });
    await race();
    h.advance(5_000);
    const sent = await race();
    expect(sent.reduce((a, b) => a + b, 0)).toBe(60);
    for (const sub of subs) {
      const requests = h.receiver.to(sub.path);
      expect(requests).toHaveLength(40);
      const perId = new Map<string, number>();
      for (const r of requests)
        perId.set(String(r.headers['webhook-id']), (perId.get(String(r.headers['webhook-id'])) ?? 0) + 1);
      expect([...perId.values()].every((n) => n === 2)).toBe(true);
      const attempts = (await deliveries(org, sub)).map((d) => d.attempt).sort();
      expect(attempts.filter((a) => a === 2)).toHaveLength(20);
    }
  });
});
