import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

/** The codes, in the order of their usual status; `errorCodeDescriptions` says what each means. */
const codes = z.enum([
  'validation',
  'bad_request',
  'duplicate',
  'in_use',
  'last_admin',
  'unauthenticated',
  'plan_limit',
  'forbidden',
  'csrf',
  'session_required',
  'checkout_cooldown',
  'not_found',
  'method_not_allowed',
  'exhausted',
  'idempotency_in_flight',
  'cursor_expired',
  'precondition_failed',
  'payload_too_large',
  'unsupported_media_type',
  'idempotency_mismatch',
  'idempotency_secret_unavailable',
  'rate_limited',
  'too_many_concurrent',
  'internal',
  'upstream_failed',
  'webhook_failed',
  'unavailable',
  'billing_unavailable',
]);

/** One line per code (its usual status first): the OpenAPI description and `x-enumDescriptions` of `ErrorCode`. */
export const errorCodeDescriptions: { readonly [C in z.infer<typeof codes>]: string } = {
  validation: '400: a field, parameter or rule of the request failed; the message names it',
  bad_request: '4xx: the request could not be read (a malformed percent-escape in the path, a body the parser refused)',
  duplicate: '400: already taken in the organisation (a name, number, network, address, member or invitation)',
  in_use: '400: the object is still used by others (a VRF by subnets) and cannot be deleted',
  last_admin: '400: the change would leave an organisation with other members without an admin',
  unauthenticated: '401: credentials missing, malformed, unknown, revoked or expired',
  plan_limit: '402: a limit of the organisation’s plan would be exceeded; the message names the limit',
  forbidden: '403: the API key’s permissions, the plan’s API access or the user’s role does not allow this',
  csrf: '403: a write signed in with the session cookie lacks the header X-Requested-With: XMLHttpRequest',
  session_required: '403: a person’s act: only a signed-in session may do it, not an API key',
  checkout_cooldown:
    '403: checkout is refused while the organisation is younger than the checkout cooldown (CheckoutCooldownError)',
  not_found: '404: no such object in the caller’s organisation, or no such route',
  method_not_allowed: '405: the path does not take this method; the Allow header lists those it takes',
  exhausted: '409: too few free addresses or blocks for the allocation',
  idempotency_in_flight: '409: a request with the same Idempotency-Key is still running; retry after Retry-After',
  cursor_expired:
    '410: the change feed no longer keeps the changes after this cursor (older than the plan’s retention)',
  precondition_failed:
    '412: the resource changed since the version in If-Match; the answer’s ETag is its current version',
  payload_too_large: '413: the request body is over the size limit',
  unsupported_media_type: '415: the request body is not JSON',
  idempotency_mismatch: '422: the Idempotency-Key was used before with another request (method, path or body)',
  idempotency_secret_unavailable:
    '422: the first request with this Idempotency-Key succeeded, but the secret it showed cannot be shown again',
  rate_limited: '429: too many requests (per caller, address or organisation); retry after Retry-After',
  too_many_concurrent: '429: too many heavy requests (exports, imports, searches …) of the caller at once',
  internal: '500: an unexpected fault of the server; the request id identifies it in the logs',
  upstream_failed: '502: a server a network tool asked (DNS, whois, the target) did not answer usefully',
  webhook_failed: '502: the webhook endpoint refused the test event or could not be reached',
  unavailable: '503: a dependency (the database …) is unavailable for now; retry after Retry-After',
  billing_unavailable: '503: billing is not configured on this server, or the payment provider refused',
};

/** Every code an error answer can carry: the server's errors take one of these, the SDK's are typed by them. */
export const ErrorCode = extendApi(codes, {
  title: 'ErrorCode',
  description: `Machine-readable code of an error answer (the message in \`error\` says more):\n\n${codes.options
    .map((code) => `- \`${code}\` — ${errorCodeDescriptions[code]}`)
    .join('\n')}`,
  example: 'validation',
  'x-enumDescriptions': errorCodeDescriptions,
});
export type ErrorCode = z.infer<typeof ErrorCode>;

/** Every error body. Named ApiError so orval does not shadow the global Error. */
export const ApiError = extendApi(
  z
    .object({
      error: z
        .string()
        .describe('Human-readable message naming the problem (the field, the limit, the conflicting network …)'),
      code: ErrorCode,
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
      code: ErrorCode.extract(['checkout_cooldown']).describe('Machine-readable code, always checkout_cooldown'),
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
  410: 'The cursor is older than the changes kept (the plan’s retention): read the current state again and follow after=now',
  412: 'If-Match names none of the resource’s current version, which the ETag header carries: read it again and retry',
  413: 'Request body too large',
  415: 'Request body is not JSON',
  422: 'The Idempotency-Key was used before with another request (method, path or body)',
  429: 'Rate limited; retry after the number of seconds in Retry-After',
  502: 'The remote endpoint was unreachable or answered non-2xx',
  503: 'A dependency is unavailable',
};

export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 409 | 410 | 412 | 413 | 415 | 422 | 429 | 502 | 503;

/** The error responses of a route, each answering `ApiError`. */
export function errors<const S extends readonly ErrorStatus[]>(...statuses: S): { [K in S[number]]: typeof ApiError } {
  return Object.fromEntries(statuses.map((s) => [s, ApiError])) as { [K in S[number]]: typeof ApiError };
}
