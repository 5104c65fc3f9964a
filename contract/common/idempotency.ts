import { z } from 'zod';
import type { RouteMeta } from './meta';

/** How long a key is kept, and so for how long a retry with it is answered from the first request. */
export const IDEMPOTENCY_KEY_TTL_HOURS = 24;

/** The optional `Idempotency-Key` of a POST a client may retry (Stripe's convention). */
export const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x21-\x7e]+$/, 'must be 1 to 255 visible ASCII characters')
    .optional()
    .describe(
      'A key of your choosing (a UUID is a good one) that makes retrying this POST safe: for 24 hours, a ' +
        'request with the same key and the same body gets the first answer again without being carried out ' +
        'twice (a replay carries `Idempotent-Replayed: true`); the same key with another body is a 422, and ' +
        'while the first request with it is still running a 409. Keys are per user: another member’s request ' +
        'with the same key is a request of its own.',
    ),
});

/**
 * Route metadata of a POST that accepts `Idempotency-Key`; `secretField` names the field of its answer that
 * shows a secret once (`RouteMeta.secretField`).
 */
export const idempotent = <const M extends RouteMeta>(meta: M, secretField?: string) => ({
  ...meta,
  idempotent: true as const,
  ...(secretField ? { secretField } : {}),
});
