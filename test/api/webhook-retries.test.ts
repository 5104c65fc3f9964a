/**
 * Failed webhook deliveries: the retry schedule on the controllable clock (no sleeps), the receiver down,
 * slow, failing, gone (410) or redirecting, the failure count and deactivation, refused addresses at
 * delivery, and the 7-day purge of deliveries. Every attempt, retries included, verifies with the
 * `standardwebhooks` package at the time it was sent.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../fixtures/receiver';
import { defined } from '../support/defined';
import { expectStatus } from '../support/observed';
import type { TestOrg } from '../support/server';
import {
  deliveries,
  type Harness,
  type Subscription,
  startHarness,
  subscribe,
  verifyAt,
  webhookOf,
} from '../support/webhook-events';

const TIMEOUT_MS = 300;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ timeoutMs: TIMEOUT_MS });
});
afterAll(() => h?.close());

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const SCHEDULE = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

const change = async (org: TestOrg, name = `f-${Math.random()}`) =>
  expectStatus(await org.api.call('createFolder', { body: { name } }), 201);

/** An organisation with one subscription whose path answers `status`, and one event waiting for it. */
async function failing(status: number) {
  const org = await h.org();
  const sub = await subscribe(h, org);
  h.receiver.on(sub.path, { status });
  await change(org);
  return { org, sub };
}

const attemptsAt = (sub: Subscription) => h.receiver.to(sub.path).length;

describe('the retry schedule', () => {
  it('retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then gives up; each attempt verifies', async () => {
    const { org, sub } = await failing(500);
    await h.worker.runOnce();
    const sentAt = [h.now()];
    for (const wait of SCHEDULE) {
      h.advance(wait - 1000);
      await h.worker.runOnce();
      expect(attemptsAt(sub)).toBe(sentAt.length); // not yet due a second early
      h.advance(1000);
      await h.worker.runOnce();
      sentAt.push(h.now());
      expect(attemptsAt(sub)).toBe(sentAt.length);
    }
    h.advance(24 * HOUR);
    await h.worker.runOnce();
    const requests = h.receiver.to(sub.path);
    expect(requests).toHaveLength(8);
    // The same webhook-id on every attempt, each with its own timestamp and signature, verified when sent.
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    requests.forEach((request, i) => {
      const at = defined(sentAt[i], `the time of attempt ${i + 1}`);
      expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(at.getTime() / 1000)));
      expect(verifyAt(sub.secret, request, at)).toMatchObject({ type: 'folder.created' });
    });
    expect(new Set(requests.map((r) => r.body)).size).toBe(1);
    const history = await deliveries(org, sub);
    expect(history.map((d) => [d.attempt, d.response_status, d.event_type])).toEqual(
      sentAt.map((_, i) => [i + 1, 500, 'folder.created']),
    );
    expect(history.map((d) => Date.parse(d.delivered_at))).toEqual(sentAt.map((t) => t.getTime()));
  });

  it('stops retrying once an attempt succeeds', async () => {
    const { sub } = await failing(503);
    await h.worker.runOnce();
    h.receiver.on(sub.path, { status: 204 });
    h.advance(5 * SECOND);
    await h.worker.runOnce();
    h.advance(48 * HOUR);
    await h.worker.runOnce();
    expect(attemptsAt(sub)).toBe(2);
  });

  it('treats only 2xx as success: a 3xx, 4xx or 5xx answer is retried', async () => {
    for (const status of [304, 400, 404, 429, 500]) {
      const { sub } = await failing(status);
      await h.worker.runOnce();
      h.advance(5 * SECOND);
      await h.worker.runOnce();
      expect(attemptsAt(sub)).toBe(2);
    }
  });
});

describe('an endpoint that fails', () => {
  it('records an attempt to a closed port with response_status null and retries it', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    const port = await closedPort();
    await h.server.database.db.execute(
      sql`UPDATE webhooks SET url = ${`http://127.0.0.1:${port}/down`} WHERE id = ${sub.id}`,
    );
    await change(org);
    await h.worker.runOnce();
    expect((await deliveries(org, sub)).map((d) => [d.attempt, d.response_status])).toEqual([[1, null]]);
    h.advance(5 * SECOND);
    await h.worker.runOnce();
    expect((await deliveries(org, sub)).map((d) => d.attempt)).toEqual([1, 2]);
  });

  it('gives up on a slow endpoint at the timeout: a failed attempt with response_status null', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    h.receiver.on(sub.path, { delayMs: 5000 });
    await change(org);
    const started = Date.now();
    await h.worker.runOnce();
    expect(Date.now() - started).toBeLessThan(3000);
    const [attempt] = await deliveries(org, sub);
    expect(attempt).toMatchObject({ attempt: 1, response_status: null });
    expect(attempt?.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
    expect((await webhookOf(org, sub)).failure_count).toBe(1);
  });

  it('does not follow a redirect: the 302 is a failed attempt and its target receives nothing', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    const target = `${sub.path}-target`;
    h.receiver.on(sub.path, { redirect: h.receiver.url(target), status: 302 });
    await change(org);
    await h.worker.runOnce();
    expect(h.receiver.to(target)).toEqual([]);
    expect((await deliveries(org, sub)).map((d) => d.response_status)).toEqual([302]);
    expect((await webhookOf(org, sub)).failure_count).toBe(1);
  });

  it('deactivates the subscription on a 410 and makes no more attempts', async () => {
    const { org, sub } = await failing(410);
    await change(org);
    await h.worker.runOnce();
    expect(attemptsAt(sub)).toBe(1); // the second event is not sent to a subscription gone meanwhile
    expect(await webhookOf(org, sub)).toMatchObject({ is_active: false });
    h.advance(48 * HOUR);
    await h.worker.runOnce();
    expect(attemptsAt(sub)).toBe(1);
    expect((await deliveries(org, sub)).map((d) => d.response_status)).toEqual([410]);
  });

  it('refuses at delivery an address not allowed, when the name now resolves elsewhere, sending nothing', async () => {
    const org = await h.org();
    const name = `hooks-${Math.random().toString(36).slice(2)}.test`;
    h.names.set(name, ['127.0.0.1']);
    const sub = await subscribe(h, org, { url: `http://${name}:${h.receiver.port}/moved` });
    h.names.set(name, ['127.0.0.2']); // loopback too, but not the allowed receiver address
    await change(org);
    await h.worker.runOnce();
    expect(h.receiver.to('/moved')).toEqual([]);
    expect((await deliveries(org, sub)).map((d) => d.response_status)).toEqual([null]);
    h.names.set(name, ['127.0.0.1']);
    h.advance(5 * SECOND);
    await h.worker.runOnce();
    expect(h.receiver.to('/moved')).toHaveLength(1);
  });
});

describe('failure_count and deactivation', () => {
  it('counts consecutive failed attempts and resets to 0 on a success', async () => {
    const { org, sub } = await failing(500);
    await h.worker.runOnce();
    h.advance(5 * SECOND);
    await h.worker.runOnce();
    expect((await webhookOf(org, sub)).failure_count).toBe(2);
    h.receiver.on(sub.path, { status: 200 });
    h.advance(5 * MINUTE);
    await h.worker.runOnce();
    expect(await webhookOf(org, sub)).toMatchObject({ failure_count: 0, is_active: true });
  });

  it('deactivates a subscription at its 50th consecutive failure and sends it nothing more', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    h.receiver.on(sub.path, { status: 500 });
    await h.server.database.db.execute(sql`UPDATE webhooks SET failure_count = 48 WHERE id = ${sub.id}`);
    await change(org);
    await change(org);
    await change(org);
    await h.worker.runOnce();
    // Two attempts reach 50; the third event is not sent to the now inactive subscription.
    expect(attemptsAt(sub)).toBe(2);
    expect(await webhookOf(org, sub)).toEqual(expect.objectContaining({ failure_count: 50, is_active: false }));
    h.advance(48 * HOUR);
    await h.worker.runOnce();
    expect(attemptsAt(sub)).toBe(2);
  });

  it('keeps a subscription active at 49 consecutive failures', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    h.receiver.on(sub.path, { status: 500 });
    await h.server.database.db.execute(sql`UPDATE webhooks SET failure_count = 48 WHERE id = ${sub.id}`);
    await change(org);
    await h.worker.runOnce();
    expect(await webhookOf(org, sub)).toMatchObject({ failure_count: 49, is_active: true });
  });

  it('does not replay, once switched back on, the attempts of a deactivated subscription', async () => {
    const { org, sub } = await failing(500);
    await h.worker.runOnce();
    expectStatus(await org.api.call('updateWebhook', { params: { id: sub.id }, body: { is_active: false } }), 200);
    await h.worker.runOnce();
    expectStatus(await org.api.call('updateWebhook', { params: { id: sub.id }, body: { is_active: true } }), 200);
    h.receiver.on(sub.path, { status: 200 });
    h.advance(48 * HOUR);
    await h.worker.runOnce();
    expect(attemptsAt(sub)).toBe(1);
  });
});

describe('retention', () => {
  it('purges deliveries older than 7 days and keeps younger ones', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    await change(org);
    await h.worker.runOnce();
    h.advance(7 * 24 * HOUR);
    await h.worker.purge();
    expect(await deliveries(org, sub)).toHaveLength(1);
    h.advance(1000);
    await h.worker.purge();
    expect(await deliveries(org, sub)).toEqual([]);
  });
});
