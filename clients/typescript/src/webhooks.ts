/**
 * Receiving the service's webhooks: `verifyWebhook` checks a delivery's Standard Webhooks v1 signature
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`, HMAC-SHA256 keyed with the `whsec_` secret,
 * timestamps within 5 minutes) with the `standardwebhooks` reference library, and returns the typed event.
 * `signWebhook` is its counterpart, for testing a receiver without the service.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { PingEvent, ResourceChangeEvent, SubnetSplitEvent } from './generated/endpoints.schemas.js';

/** The bodies the service sends, generated from the document (`x-webhooks`); narrow on `type`. */
export type { PingEvent, ResourceChangeEvent, SubnetSplitEvent };
export type WebhookEvent = ResourceChangeEvent | SubnetSplitEvent | PingEvent;

/** `{field: [old, new]}` for each field a change touched (null for "none": old of a creation, new of a deletion). */
export type WebhookChanges = ResourceChangeEvent['data']['changes'];

/** The signature is missing, wrong, made with another secret, or too old (more than 5 minutes). */
export class WebhookSignatureError extends Error {
  override name = 'WebhookSignatureError';
}

/** Headers as Node's `IncomingHttpHeaders`, a fetch `Headers`, or a plain record. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/**
 * Verifies a delivery and returns its event. Pass the body **exactly as received** (the raw bytes or
 * string, not re-serialised JSON) and the request headers. Throws `WebhookSignatureError` when the
 * delivery is not authentic; reject it then (any 4xx). `webhook-id` is the same on every retry of one
 * event: use it to process an event once.
 */
export function verifyWebhook(secret: string, body: string | Uint8Array, headers: WebhookHeaders): WebhookEvent {
  const payload = typeof body === 'string' ? body : new TextDecoder().decode(body);
  try {
    return new Webhook(secret).verify(payload, plainHeaders(headers)) as WebhookEvent;
  } catch (error) {
    if (error instanceof WebhookVerificationError) throw new WebhookSignatureError(error.message);
    throw error;
  }
}

/**
 * The headers the service would send with `body`: for tests and local development of a receiver.
 * `timestamp` defaults to now.
 */
export function signWebhook(
  secret: string,
  id: string,
  body: string,
  timestamp: Date = new Date(),
): { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string } {
  const seconds = Math.floor(timestamp.getTime() / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': new Webhook(secret).sign(id, new Date(seconds * 1000), body),
  };
}
