/**
 * 04 — A webhook receiver that verifies signatures (Standard Webhooks: webhook-id, webhook-timestamp,
 * webhook-signature), on 127.0.0.1.
 *
 *   IPAM_API_KEY=svc_… npx tsx examples/04-webhook-receiver.ts
 *
 * The service delivers only to public HTTPS URLs, unless its operator allows a range for testing
 * (OUTBOUND_ALLOW_CIDRS=127.0.0.1/32 npm start). When it accepts this receiver's loopback URL, the example
 * subscribes and asks the service for a signed test `ping`. When it refuses it (the default), the example
 * stays self-contained: it signs a sample event locally with the SDK's `signWebhook` — exactly what the
 * service sends — and posts it to the receiver itself.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  BadRequestError,
  createClient,
  signWebhook,
  verifyWebhook,
  WebhookSignatureError,
} from '../clients/typescript/src';

const apiKey = process.env.IPAM_API_KEY;
if (!apiKey) throw new Error('Set IPAM_API_KEY to a key from `npm run admin -- create-key`');
const ipam = createClient({ baseUrl: process.env.IPAM_BASE_URL ?? 'http://localhost:3000', apiKey });

let secret = ''; // the subscription's whsec_… secret, shown once when it is created

// The receiver: verify the raw body (never re-serialised JSON) before trusting anything in it.
const receiver = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const event = verifyWebhook(secret, Buffer.concat(chunks), req.headers);
    console.log(`verified ${event.type} (webhook-id ${req.headers['webhook-id']})`, JSON.stringify(event.data));
    res.writeHead(204).end(); // any 2xx acknowledges; the webhook-id is the same on retries: process it once
  } catch (error) {
    if (!(error instanceof WebhookSignatureError)) throw error;
    console.log('rejected a delivery:', error.message);
    res.writeHead(400).end();
  }
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/ipam-events`;

try {
  const subscription = await ipam.webhooks.create({ url, description: 'example 04', event_types: ['subnet.created'] });
  secret = subscription.secret;
  const ping = await ipam.webhooks.test(subscription.id);
  console.log(`the service sent a ping: our receiver answered ${ping.response_status} in ${ping.duration_ms} ms`);
  await ipam.webhooks.delete(subscription.id);
} catch (error) {
  if (!(error instanceof BadRequestError)) throw error;
  console.log(`the service refused a loopback URL (${error.message}); signing a sample event locally instead`);
  secret = `whsec_${Buffer.from(randomUUID()).toString('base64')}`;
  const body = JSON.stringify({
    type: 'subnet.created',
    timestamp: new Date().toISOString(),
    data: { id: randomUUID(), changes: { network: [null, '10.0.1.0/24'] } },
  });
  const headers = { 'content-type': 'application/json', ...signWebhook(secret, `msg_${randomUUID()}`, body) };
  console.log('genuine →', (await fetch(url, { method: 'POST', headers, body })).status);
  const forged = body.replace('10.0.1.0/24', '10.6.6.0/24');
  console.log('tampered →', (await fetch(url, { method: 'POST', headers, body: forged })).status);
}
receiver.close();
