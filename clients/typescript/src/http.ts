/**
 * The transport of @ipam/sdk and the fetch mutator of the orval-generated client (`override.mutator`):
 * every generated operation calls `ipamFetch(url, options)`, where `options.client` is the calling
 * client's configuration. Timeouts and retries happen here, so both the generated operations and the
 * resource methods built on them (index.ts) get them.
 */
import {
  ApiConnectionError,
  ApiTimeoutError,
  apiErrorFor,
  type RateLimitInfo,
  rateLimitOf,
  retryAfterOf,
} from './errors.js';
import { parseJson } from './json.js';

/**
 * Where and as whom a client talks to the API. Each `createClient()` instance carries its own: there is
 * no module-level configuration.
 */
export interface ClientConfig {
  /** Origin (and optional path prefix) of the service, e.g. `https://ipam.example.com`. The generated
   * paths already start with `/api/v1`. */
  baseUrl: string;
  /** API key (`svc_…`), sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** The fetch implementation; `globalThis.fetch` when absent. */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every request (per-call headers override them). */
  headers?: Record<string, string>;
  /** Milliseconds to wait for each attempt's response (default 30,000; 0 waits forever). */
  timeoutMs?: number;
  /** Retries after the first attempt (default 2; 0 disables retrying). See {@link retryDelay}. */
  maxRetries?: number;
  /** The longest `Retry-After` honoured, in ms (default 60,000): a longer wait is returned to the caller. */
  maxRetryAfterMs?: number;
  /** Waits between attempts; inject one in tests to retry without real waiting. */
  sleep?: (ms: number) => Promise<void>;
  /** The jitter source, `Math.random` by default. */
  random?: () => number;
  /** Called with every call's final answer (after retries): its request id, rate-limit figures, headers. */
  onResponse?: (response: ResponseInfo) => void;
}

/** What the SDK tells of each answer: `lastResponse` of a resource method's result, and `onResponse`. */
export interface ResponseInfo {
  method: string;
  url: string;
  status: number;
  /** `X-Request-Id` of the request, the one to quote to support. */
  requestId: string | null;
  /** `X-RateLimit-*` of the answer; null on routes without a per-user limit. */
  rateLimit: RateLimitInfo | null;
  /** `Idempotency-Key` the request carried (the SDK makes one for every POST it may retry). */
  idempotencyKey: string | null;
  headers: Headers;
}

/**
 * The last argument of every generated operation: fetch options plus, when bound, the client's config;
 * `throwOnError` (set by the resource methods) turns an error status into a thrown `ApiError`. `ifMatch`
 * (PATCH, DELETE: change only that version, else `PreconditionFailedError`) and `ifNoneMatch` (GET: a 304
 * and no body while that version is current) take the `etag` a single resource's answer carried.
 */
export type RequestOptions = RequestInit & {
  client?: ClientConfig;
  throwOnError?: boolean;
  ifMatch?: string;
  ifNoneMatch?: string;
};

/** What every generated operation resolves to; the generated types narrow `data` by `status`. */
export interface HttpResponse<T = unknown> {
  data: T;
  status: number;
  headers: Headers;
}

export const DEFAULTS = { timeoutMs: 30_000, maxRetries: 2, maxRetryAfterMs: 60_000 } as const;
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

/** Methods whose repetition the service treats as harmless: retried after a network error or a 5xx. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'DELETE']);

/**
 * Whether a request may be sent again after a network error or a 5xx: an idempotent method, or a POST with an
 * `Idempotency-Key`, which the service answers from the first attempt if that one did its work.
 */
const repeatable = (method: string, headers: Headers) => IDEMPOTENT.has(method) || headers.has('idempotency-key');

/**
 * The wait before retry number `retry` (0-based): exponential (0.5 s, 1 s, 2 s … capped at 8 s) with
 * "equal jitter" (between half and all of it), unless the answer's `Retry-After` says how long.
 */
export function retryDelay(retry: number, retryAfterSeconds: number | null, random: () => number): number {
  if (retryAfterSeconds !== null) return retryAfterSeconds * 1000;
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retry);
  return ceiling / 2 + (ceiling / 2) * random();
}

/**
 * Whether an answer is worth another attempt: a 429 always (the service did not process the request); a
 * 5xx other than 501 (not implemented is permanent) only for a request that may be repeated (a POST
 * without an `Idempotency-Key` that failed with a 500 may have done its work); a 409 of a POST with a key,
 * whose first attempt is still running.
 */
export function shouldRetryStatus(method: string, status: number, idempotencyKey = false): boolean {
  if (status === 429) return true;
  if (status === 409) return idempotencyKey;
  return status >= 500 && status !== 501 && (IDEMPOTENT.has(method) || idempotencyKey);
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The fetch mutator. It resolves the generated path against the client's base URL, adds the API key and
 * an `X-Request-Id` (the same on every attempt), and returns `{data, status, headers}` for every HTTP
 * status after the retries the status allows: an error status is a value here, unless `throwOnError`
 * (the resource methods) asks for a thrown `ApiError`. No answer at all rejects with `ApiConnectionError`.
 * Bodies: JSON when the response says so (integers past 2^53 as bigints), text otherwise (CSV exports),
 * `undefined` when empty.
 */
export async function ipamFetch<T>(url: string, options: RequestOptions = {}): Promise<T> {
  const { client, headers: requestHeaders, signal, throwOnError, ifMatch, ifNoneMatch, ...init } = options;
  const headers = new Headers(client?.headers);
  if (client?.apiKey) headers.set('authorization', `Bearer ${client.apiKey}`);
  for (const [name, value] of headerEntries(requestHeaders)) headers.set(name, value);
  if (ifMatch !== undefined) headers.set('if-match', ifMatch);
  if (ifNoneMatch !== undefined) headers.set('if-none-match', ifNoneMatch);
  if (!headers.has('x-request-id')) headers.set('x-request-id', globalThis.crypto.randomUUID());
  const target = client ? `${client.baseUrl.replace(/\/+$/, '')}${url}` : url;
  const method = (init.method ?? 'GET').toUpperCase();
  // One key for every attempt of a POST, so a retry of one that did its work gets its answer, not a twin.
  if (method === 'POST' && !headers.has('idempotency-key')) {
    headers.set('idempotency-key', globalThis.crypto.randomUUID());
  }
  const keyed = headers.has('idempotency-key');
  const fetchImpl = client?.fetch ?? globalThis.fetch;
  const maxRetries = client?.maxRetries ?? DEFAULTS.maxRetries;
  const timeoutMs = client?.timeoutMs ?? DEFAULTS.timeoutMs;
  const sleep = client?.sleep ?? defaultSleep;
  const random = client?.random ?? Math.random;

  for (let attempt = 0; ; attempt++) {
    const retriesLeft = attempt < maxRetries;
    const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    const signals = [signal, timeout].filter((s): s is AbortSignal => s != null);
    let response: Response;
    try {
      response = await fetchImpl(target, {
        ...init,
        headers,
        signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0],
      });
    } catch (error) {
      if (signal?.aborted) throw error; // the caller cancelled: not ours to retry
      const timedOut = timeout?.aborted === true;
      if (retriesLeft && repeatable(method, headers)) {
        await sleep(retryDelay(attempt, null, random));
        continue;
      }
      const ErrorClass = timedOut ? ApiTimeoutError : ApiConnectionError;
      const what = timedOut ? `no answer within ${timeoutMs} ms` : describe(error);
      throw new ErrorClass(`${method} ${target}: ${what}`, method, target, headers.get('x-request-id'), {
        cause: error,
      });
    }
    if (retriesLeft && shouldRetryStatus(method, response.status, keyed)) {
      const retryAfter = retryAfterOf(response.headers);
      if (retryAfter === null || retryAfter * 1000 <= (client?.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs)) {
        await response.body?.cancel();
        await sleep(retryDelay(attempt, retryAfter, random));
        continue;
      }
    }
    const result: HttpResponse = { data: await readBody(response), status: response.status, headers: response.headers };
    client?.onResponse?.({
      method,
      url: target,
      status: response.status,
      requestId: headers.get('x-request-id'),
      rateLimit: rateLimitOf(response.headers),
      idempotencyKey: headers.get('idempotency-key'),
      headers: response.headers,
    });
    if (throwOnError && response.status >= 400)
      throw apiErrorFor({ ...result, body: result.data, method, url: target });
    return result as T;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/** Header pairs from any HeadersInit, or from the `{name: string | string[]}` records the generated code builds. */
function headerEntries(init: unknown): [string, string][] {
  if (!init) return [];
  if (init instanceof Headers) return [...init.entries()];
  if (Array.isArray(init)) return init.map(([name, value]) => [String(name), String(value)]);
  return Object.entries(init as Record<string, unknown>)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]);
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  const type = response.headers.get('content-type') ?? '';
  // Exact: an integer past Number.MAX_SAFE_INTEGER (a count of IPv6 addresses) becomes a bigint.
  return /[/+]json\b/i.test(type) ? parseJson(text) : text;
}
