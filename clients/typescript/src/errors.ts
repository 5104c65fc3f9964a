/**
 * The errors the SDK throws. An HTTP error status becomes an `ApiError` subclass chosen by the status
 * (`NotFoundError` for 404, `RateLimitError` for 429 …), carrying the service's `{error, code}` body, the
 * response headers and the request id; a request that got no answer becomes an `ApiConnectionError`
 * (`ApiTimeoutError` when the client's `timeoutMs` ran out).
 */

import { ErrorCode } from './generated/endpoints.schemas.js';

/**
 * The `code` of an `ApiError`: one of the service's `ErrorCode`s (`not_found`, `validation`, `plan_limit` …),
 * or `http_<status>` for an answer that carries none of them (a proxy's error page, a code newer than this
 * SDK; `body` keeps what was answered). Typed, so `error.code === 'plan_limit'` narrows and a misspelt code
 * does not compile.
 */
export type ApiErrorCode = ErrorCode | `http_${number}`;

const ERROR_CODES: ReadonlySet<unknown> = new Set(Object.values(ErrorCode));

/** Whether a value is one of the service's error codes. */
export const isErrorCode = (value: unknown): value is ErrorCode => ERROR_CODES.has(value);

/** The rate-limit headers of a response (`X-RateLimit-*`), when it carried them. */
export interface RateLimitInfo {
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window. */
  remaining: number;
  /** When the window resets. */
  reset: Date;
}

/** Reads `X-RateLimit-Limit`, `-Remaining` and `-Reset` (Unix seconds); null when any is missing. */
export function rateLimitOf(headers: Headers): RateLimitInfo | null {
  const read = (name: string) => Number.parseInt(headers.get(`x-ratelimit-${name}`) ?? '', 10);
  const [limit, remaining, reset] = [read('limit'), read('remaining'), read('reset')];
  if ([limit, remaining, reset].some(Number.isNaN)) return null;
  return { limit, remaining, reset: new Date(reset * 1000) };
}

/** `Retry-After` in seconds (delta-seconds or an HTTP date); null when absent or unreadable. */
export function retryAfterOf(headers: Headers, now = Date.now()): number | null {
  const value = headers.get('retry-after')?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - now) / 1000));
}

export interface ApiErrorInit {
  status: number;
  /** The response body: `{error, code}` from this service, anything else from a proxy in between. */
  body: unknown;
  headers: Headers;
  method: string;
  url: string;
}

/** A non-2xx answer. `code` is the service's machine-readable code (`not_found`, `validation`, `plan_limit` …). */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: ApiErrorCode;
  readonly body: unknown;
  readonly headers: Headers;
  /** `X-Request-Id` of the response: quote it in a support request. */
  readonly requestId: string | null;
  readonly rateLimit: RateLimitInfo | null;
  /** Seconds to wait before trying again (`Retry-After`), when the answer said. */
  readonly retryAfter: number | null;
  readonly method: string;
  readonly url: string;

  constructor(init: ApiErrorInit) {
    const body = (typeof init.body === 'object' && init.body !== null ? init.body : {}) as Record<string, unknown>;
    const message = typeof body.error === 'string' ? body.error : `HTTP ${init.status}`;
    super(message);
    this.status = init.status;
    this.code = isErrorCode(body.code) ? body.code : `http_${init.status}`;
    this.body = init.body;
    this.headers = init.headers;
    this.requestId = init.headers.get('x-request-id');
    this.rateLimit = rateLimitOf(init.headers);
    this.retryAfter = retryAfterOf(init.headers);
    this.method = init.method;
    this.url = init.url;
  }
}

/** 400: the request is invalid; `message` names the field (`vlan_number: …`). */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}
/** 401: no credentials, or a wrong, revoked or expired key. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
/** 402: a limit of the organisation's plan is reached (`code: plan_limit`). */
export class PlanLimitError extends ApiError {
  override name = 'PlanLimitError';
}
/** 403: the key, role or plan may not do this. */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}
/** 404: no such object in this organisation. */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 409: the request conflicts with the current state. */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
/**
 * 410: the change feed no longer keeps the changes after this cursor (older than the plan's retention). Read the
 * current state again and follow from `after: 'now'`.
 */
export class CursorExpiredError extends ApiError {
  override name = 'CursorExpiredError';
}
/**
 * 412: the resource changed since the version sent in `ifMatch`; `headers.get('etag')` is its current version.
 * Read it again, reapply your change, and send it with the new version.
 */
export class PreconditionFailedError extends ApiError {
  override name = 'PreconditionFailedError';
}
/** 413: the body is too large. */
export class PayloadTooLargeError extends ApiError {
  override name = 'PayloadTooLargeError';
}
/** 415: the body is not JSON. */
export class UnsupportedMediaTypeError extends ApiError {
  override name = 'UnsupportedMediaTypeError';
}
/** 429: too many requests; `retryAfter` says when to try again (the client already retried `maxRetries` times). */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
}
/** 501: the route is declared but not built yet on this server. */
export class NotImplementedError extends ApiError {
  override name = 'NotImplementedError';
}
/** 502: an upstream the service called failed (a webhook endpoint, a network tool's target). */
export class BadGatewayError extends ApiError {
  override name = 'BadGatewayError';
}
/** 503: a dependency of the service is unavailable for now. */
export class ServiceUnavailableError extends ApiError {
  override name = 'ServiceUnavailableError';
}
/** Any other 5xx. */
export class InternalServerError extends ApiError {
  override name = 'InternalServerError';
}

const BY_STATUS: Record<number, typeof ApiError> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PlanLimitError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  410: CursorExpiredError,
  412: PreconditionFailedError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  429: RateLimitError,
  501: NotImplementedError,
  502: BadGatewayError,
  503: ServiceUnavailableError,
};

/** The `ApiError` subclass for this status (`ApiError` itself for an unlisted 4xx). */
export function apiErrorFor(init: ApiErrorInit): ApiError {
  const ErrorClass = BY_STATUS[init.status] ?? (init.status >= 500 ? InternalServerError : ApiError);
  return new ErrorClass(init);
}

/** The request got no HTTP answer (connection refused or reset, DNS failure …), after the retries allowed. */
export class ApiConnectionError extends Error {
  override name = 'ApiConnectionError';
  constructor(
    message: string,
    readonly method: string,
    readonly url: string,
    /** The `X-Request-Id` the SDK sent with the request. */
    readonly requestId: string | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** No answer within the client's `timeoutMs` (per attempt). */
export class ApiTimeoutError extends ApiConnectionError {
  override name = 'ApiTimeoutError';
}
