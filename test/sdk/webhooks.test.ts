/**
 * The SDK's webhook helpers: `verifyWebhook` against signatures made by the service's own signing code and
 * by a real delivery (the test endpoint's ping to a receiver on loopback), and the deliveries iterator.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  createClient,
  type IpamClient,
  signWebhook,
  verifyWebhook,
  type WebhookEvent,
  WebhookSignatureError,
} from '../../clients/typescript/src/index';
import { newWebhookSecret, sign, webhookHeaders } from '../../server/modules/webhooks/signing';
import { type Receiver, startReceiver } from '../fixtures/receiver';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';

const secret = newWebhookSecret();
const event = {
  type: 'subnet.created',
  timestamp: '2025-01-02T03:04:05.000Z',
  data: { id: randomUUID(), changes: {} },
};
const body = JSON.stringify(event);
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('verifyWebhook', () => {
  it('accepts a delivery signed by the service and returns the typed event', () => {
    const verified = verifyWebhook(secret, body, webhookHeaders(secret, 'msg_1', nowSeconds(), body));
    expectTypeOf(verified).toEqualTypeOf<WebhookEvent>();
    expect(verified).toEqual(event);
    if (verified.type === 'ping') expectTypeOf(verified.data).toEqualTypeOf<{ webhook_id: string }>();
  });

  it('accepts the raw bytes and Node-style headers', () => {
    const headers = { ...webhookHeaders(secret, 'msg_2', nowSeconds(), body), 'Content-Type': ['application/json'] };
    expect(verifyWebhook(secret, new TextEncoder().encode(body), headers)).toEqual(event);
  });

  it('rejects a changed body, another secret, an old timestamp and missing headers', () => {
    const headers = webhookHeaders(secret, 'msg_3', nowSeconds(), body);
    const changed = body.replace('subnet.created', 'subnet.deleted');
    expect(() => verifyWebhook(secret, changed, headers)).toThrow(WebhookSignatureError);
    expect(() => verifyWebhook(newWebhookSecret(), body, headers)).toThrow(WebhookSignatureError);
    const old = webhookHeaders(secret, 'msg_3', nowSeconds() - 6 * 60, body);
    expect(() => verifyWebhook(secret, body, old)).toThrow(WebhookSignatureError);
    expect(() => verifyWebhook(secret, body, {})).toThrow(WebhookSignatureError);
  });

  it('signWebhook signs as the service does', () => {
    const at = new Date('2025-01-02T03:04:05.678Z');
    const headers = signWebhook(secret, 'msg_4', body, at);
    expect(headers).toEqual({
      'webhook-id': 'msg_4',
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': sign(secret, 'msg_4', Math.floor(at.getTime() / 1000), body),
    });
  });
});

describe('against the real service', () => {
  const t = useTestServer({ config: { outboundAllowCidrs: ['127.0.0.1/32'] } }, { plan: 'teams' });
  let receiver: Receiver;
  let client: IpamClient;

  beforeAll(async () => {
    receiver = await startReceiver();
    client = createClient({ baseUrl: t.server.url, apiKey: t.org.key });
  });
  afterAll(() => receiver?.close());

  it('verifies the signed ping of the test endpoint', async () => {
    const path = `/hook-${randomUUID()}`;
    const subscription = await client.webhooks.create({ url: receiver.url(path), event_types: [] });
    expect(subscription.secret).toMatch(/^whsec_/);
    expect(await client.webhooks.test(subscription.id)).toMatchObject({ event_type: 'ping', response_status: 200 });
    const request = defined(receiver.to(path)[0], 'the ping');
    const verified = verifyWebhook(subscription.secret, request.body, request.headers);
    expect(verified).toEqual({ type: 'ping', timestamp: expect.any(String), data: { webhook_id: subscription.id } });
    expect(() => verifyWebhook(newWebhookSecret(), request.body, request.headers)).toThrow(WebhookSignatureError);
  });

  it('iterates the deliveries over several pages, stopping at a short page', async () => {
    const subscription = await client.webhooks.create({ url: receiver.url(`/hook-${randomUUID()}`) });
    for (let i = 0; i < 5; i++) await client.webhooks.test(subscription.id);
    const deliveries = [];
    for await (const delivery of client.webhooks.iterateDeliveries(subscription.id, { limit: 2 })) {
      deliveries.push(delivery);
    }
    expect(deliveries).toHaveLength(5);
    expect(deliveries.every((d) => d.event_type === 'ping' && d.response_status === 200)).toBe(true);
  });
});
