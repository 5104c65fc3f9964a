/**
 * Several webhook workers on one PostgreSQL database, each with its own connections, claim with
 * FOR UPDATE SKIP LOCKED: every attempt is sent exactly once, first attempts and retries alike.
 * Needs TEST_DATABASE_URL (PGlite has one connection).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase, rowsOf } from '../../server/db/connection';
import { createWebhookWorker, type WebhookWorker } from '../../server/modules/webhooks/events/worker';
import { defined } from '../support/defined';
import { createSubnet } from '../support/factories';
import { expectStatus } from '../support/observed';
import { ALLOW, type Harness, startHarness, subscribe } from '../support/webhook-events';

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

/**
 * Every worker at once, round after round until a round sends nothing (a worker's round ends when what
 * is left is in another worker's hands: a subscription's attempts go out in order); answers how many
 * attempts each worker sent in all.
 */
async function race() {
  const totals = workers.map((worker) => ({ worker, sent: 0 }));
  for (;;) {
    const sent = await Promise.all(
      totals.map(async (total) => {
        const n = await total.worker.runOnce();
        total.sent += n;
        return n;
      }),
    );
    if (sent.every((n) => n === 0)) return totals.map((total) => total.sent);
  }
}

/** Three subscriptions and `count` events for each. */
async function backlog(count: number) {
  const org = await h.org();
  const subnet = await createSubnet(org.api, '10.70.0.0/16');
  const subs = [await subscribe(h, org), await subscribe(h, org), await subscribe(h, org)];
  const ips = Array.from({ length: count }, (_, i) => `10.70.${Math.floor(i / 250)}.${(i % 250) + 1}`);
  expectStatus(await org.api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips } }), 200);
  return { org, subs };
}

/** Records per (event, subscription, attempt): more than one would mean two workers sent the same attempt. */
async function attemptCounts(orgId: string) {
  const result = await h.server.database.db.execute(sql`
    SELECT event_id, webhook_id, attempt, count(*)::int AS n, count(*) FILTER (WHERE response_status BETWEEN 200 AND 299)::int AS ok
    FROM webhook_deliveries WHERE org_id = ${orgId} GROUP BY 1, 2, 3`);
  return rowsOf<{ event_id: string; webhook_id: string; attempt: number; n: number; ok: number }>(result);
}

/** Races the workers, moving the clock past retry times, until no attempt of the organisation is pending. */
async function drainWithRetries(orgId: string) {
  let sent = workers.map(() => 0);
  for (let round = 0; round < 20; round++) {
    const raced = await race();
    sent = raced.map((n, i) => n + (sent[i] ?? 0));
    const pending = defined(
      rowsOf<{ n: number }>(
        await h.server.database.db.execute(
          sql`SELECT count(*)::int AS n FROM webhook_outbox WHERE org_id = ${orgId} AND state = 'pending'`,
        ),
      )[0],
      'a count of the pending attempts',
    ).n;
    if (pending === 0) return sent;
    h.advance(10 * 60_000);
  }
  throw new Error('attempts still pending after 20 rounds');
}

describe.skipIf(!url)('three workers on one PostgreSQL database', () => {
  it('never send the same attempt twice, and deliver every event once to every subscription', async () => {
    const { org, subs } = await backlog(100);
    const sent = await drainWithRetries(org.orgId);
    expect(sent.filter((n) => n > 0).length).toBeGreaterThan(1);
    const counts = await attemptCounts(org.orgId);
    expect(counts.filter((c) => c.n > 1)).toEqual([]);
    const delivered = new Map<string, number>();
    for (const c of counts)
      delivered.set(`${c.event_id} ${c.webhook_id}`, (delivered.get(`${c.event_id} ${c.webhook_id}`) ?? 0) + c.ok);
    expect(delivered.size).toBe(300);
    expect([...delivered.values()].every((ok) => ok === 1)).toBe(true);
    for (const sub of subs) expect(new Set(h.receiver.to(sub.path).map((r) => r.headers['webhook-id'])).size).toBe(100);
  });

  it('never send the same retry twice', async () => {
    // 20 events a subscription: 40 failed attempts stay under the 50 that deactivate it.
    const { org, subs } = await backlog(20);
    for (const sub of subs) h.receiver.on(sub.path, { status: 500 });
    await race();
    h.advance(5_000);
    await race();
    const counts = await attemptCounts(org.orgId);
    expect(counts.filter((c) => c.n > 1)).toEqual([]);
    expect(counts.filter((c) => c.attempt === 2).length).toBeGreaterThan(0);
    expect(counts.every((c) => c.attempt <= 2)).toBe(true);
  });
});
