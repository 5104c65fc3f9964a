/**
 * What the webhook delivery tests share: the app on a controllable clock, a real receiver on loopback
 * (the only address outbound requests may reach), and a worker driven by hand with runOnce(), limited
 * to the organisations of its test file (on PostgreSQL other files share the database).
 */
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';
import { WebhookEvent } from '../../contract/webhook-events';
import { createWebhookWorker, type WebhookWorker } from '../../server/modules/webhooks/events/worker';
import { type ReceivedRequest, type Receiver, startReceiver } from '../fixtures/receiver';
import { expectStatus, type ResponseBody } from './observed';
import { startTestServer, type TestOrg, type TestServer } from './server';

export const ALLOW = ['127.0.0.1/32'];

export interface Harness {
  server: TestServer;
  receiver: Receiver;
  worker: WebhookWorker;
  /** The time of the app and the worker. */
  now(): Date;
  advance(ms: number): void;
  /** A fresh organisation whose events the worker handles. */
  org(): Promise<TestOrg>;
  /** The organisations the worker is limited to (for more workers of the same test). */
  orgIds: ReadonlySet<string>;
  /** Names the resolver answers for (tests never resolve real names). */
  names: Map<string, string[]>;
  close(): Promise<void>;
}

export async function startHarness(options: { timeoutMs?: number } = {}): Promise<Harness> {
  let clock = Date.now();
  const now = () => new Date(clock);
  const names = new Map<string, string[]>();
  const resolveHost = async (host: string) => names.get(host) ?? [];
  const server = await startTestServer({ config: { outboundAllowCidrs: ALLOW }, now, resolveHost });
  const receiver = await startReceiver();
  const orgIds = new Set<string>();
  const worker = createWebhookWorker({
    db: server.database.db,
    now,
    allowCidrs: ALLOW,
    resolveHost,
    timeoutMs: options.timeoutMs ?? 2000,
    orgIds,
  });
  return {
    server,
    receiver,
    worker,
    now,
    advance: (ms) => {
      clock += ms;
    },
    names,
    orgIds,
    async org() {
      const org = await server.newOrg({ plan: 'teams' });
      orgIds.add(org.orgId);
      return org;
    },
    async close() {
      await receiver.close();
      await server.close();
    },
  };
}

export interface Subscription {
  id: string;
  secret: string;
  path: string;
}

/** Subscribes (through the API) a fresh path of the receiver, or `url` when given. */
export async function subscribe(
  h: Harness,
  org: TestOrg,
  options: { eventTypes?: string[]; url?: string } = {},
): Promise<Subscription> {
  const path = `/hook-${randomUUID()}`;
  const body = { url: options.url ?? h.receiver.url(path), event_types: options.eventTypes ?? [] };
  const created = expectStatus(await org.api.call('createWebhook', { body }), 201);
  return { id: created.id, secret: created.secret, path };
}

export type EventBody = Exclude<WebhookEvent, { type: 'ping' }>;

/** The bodies a subscription's path received, in order, each checked against the contract's event schema. */
export const received = (h: Harness, sub: Subscription): EventBody[] =>
  h.receiver.to(sub.path).map((r) => WebhookEvent.parse(JSON.parse(r.body)) as EventBody);

/** Verifies a request as a Standard Webhooks receiver would at `at` (the package checks the timestamp against Date.now()). */
export function verifyAt(secret: string, request: ReceivedRequest, at: Date): unknown {
  const spy = vi.spyOn(Date, 'now').mockReturnValue(at.getTime());
  try {
    return new Webhook(secret).verify(request.body, request.headers as Record<string, string>);
  } finally {
    spy.mockRestore();
  }
}

export type DeliveryDto = ResponseBody<'listWebhookDeliveries', 200>[number];

/** The subscription's deliveries, oldest first. */
export async function deliveries(org: TestOrg, sub: Subscription): Promise<DeliveryDto[]> {
  const list = expectStatus(
    await org.api.call('listWebhookDeliveries', { params: { id: sub.id }, query: { limit: 100 } }),
    200,
  );
  return list.reverse();
}

export async function webhookOf(org: TestOrg, sub: Subscription) {
  return expectStatus(await org.api.call('getWebhook', { params: { id: sub.id } }), 200);
}
