import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

/** Every error body. Named ApiError so orval does not shadow the global Error. */
export const ApiError = extendApi(
  z
    .object({
      error: z
        .string()
        .describe('Human-readable message naming the problem (the field, the limit, the conflicting network …)'),
      code: z
        .string()
        .describe(
          'Machine-readable code: validation, not_found, duplicate, in_use, plan_limit, exhausted, rate_limited, csrf, forbidden, unauthenticated, payload_too_large, unsupported_media_type, upstream_failed, unavailable …',
        ),
    })
    .strict(),
  {
    title: 'ApiError',
    description: 'Error response',
    example: { error: 'name: Required', code: 'validation' },
  },
);
export type ApiError = z.infer<typeof ApiError>;

/** 403 answered by checkout during the organisation's checkout cooldown. */
export const CheckoutCooldownError = extendApi(
  z
    .object({
      error: z.string().describe('Human-readable message naming when checkout becomes possible'),
      code: z.literal('checkout_cooldown').describe('Machine-readable code, always checkout_cooldown'),
      retry_after_seconds: z.number().int().nonnegative().describe('Seconds until checkout becomes possible'),
      available_at: z.string().datetime().describe('RFC 3339 UTC timestamp from which checkout is possible'),
    })
    .strict(),
  {
    title: 'CheckoutCooldownError',
    description: 'Checkout refused while the organisation is younger than the checkout cooldown',
    example: {
      error: 'Checkout is available 24 hours after the organisation was created',
      code: 'checkout_cooldown',
      retry_after_seconds: 3600,
      available_at: '2026-11-22T11:00:00.000Z',
    },
  },
);

export const errorDescriptions: Record<number, string> = {
  400: 'Invalid input: the message names the field or rule that failed',
  401: 'Missing, malformed, unknown or revoked credentials',
  402: 'A plan limit would be exceeded; the message names the limit',
  403: 'Insufficient permissions (key scope, plan API access, role) or a cookie write without the CSRF header',
  404: 'Not found in the caller’s organisation',
  409: 'Conflict: a request with the same Idempotency-Key is still running (retry it later), or (allocation) too few free addresses or blocks',
  413: 'Request body too large',
  415: 'Request body is not JSON',
  422: 'The Idempotency-Key was used before with another request (method, path or body)',
  429: 'Rate limited; retry after the number of seconds in Retry-After',
  502: 'The remote endpoint was unreachable or answered non-2xx',
  503: 'A dependency is unavailable',
};

export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 422 | 429 | 502 | 503;

/** The error responses of a route, each answering `ApiError`. */
export function errors<const S extends readonly ErrorStatus[]>(...statuses: S): { [K in S[number]]: typeof ApiError } {
  return Object.fromEntries(statuses.map((s) => [s, ApiError])) as { [K in S[number]]: typeof ApiError };
}
