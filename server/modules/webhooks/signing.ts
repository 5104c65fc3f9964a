/** Standard Webhooks v1 signing: HMAC-SHA256 of "id.timestamp.body" keyed with the secret's decoded bytes. */
import { createHmac, randomBytes } from 'node:crypto';

export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The headers of one attempt, signed when it is sent (the timestamp is this attempt's). */
export function webhookHeaders(secret: string, id: string, timestampSeconds: number, body: string) {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': sign(secret, id, timestampSeconds, body),
  };
}
