/**
 * Retries, backoff, Retry-After and timeouts of the SDK, against a tiny scripted HTTP server on loopback
 * (the real service never answers 503 on demand). The sleep is injected: nothing really waits.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { shouldRetryStatus } from '../../clients/typescript/src/http';
import {
  ApiConnectionError,
  ApiTimeoutError,
  type ClientConfig,
  createClient,
  InternalServerError,
  NotImplementedError,
  RateLimitError,
  type ResponseInfo,
  retryDelay,
} from '../../clients/typescript/src/index';
import { defined } from '../support/defined';

interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Never answer (for timeouts). */
  hang?: boolean;
}

let script: Scripted[] = [];
let seen: { method: string; url: string; requestId: string; idempotencyKey?: string }[] = [];
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({
      method: req.method!,
      url: req.url!,
      requestId: String(req.headers['x-request-id']),
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
    });
    const next = script.shift() ?? { status: 200, body: [] };
    if (next.hang) return;
    const body = next.body ?? (next.status >= 400 ? { error: `scripted ${next.status}`, code: 'scripted' } : {});
    res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  script = [];
  seen = [];
});

/** A client of the scripted server whose sleeps are recorded, not waited. */
function client(config: Partial<ClientConfig> = {}) {
  const waits: number[] = [];
  const sdk = createClient({
    baseUrl,
    apiKey: 'svc_test',
    random: () => 0.5,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...config,
  });
  return { sdk, waits };
}

describe('backoff', () => {
  it('doubles from 0.5 s up to 8 s, with jitter between half and all of it', () => {
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelay(n, null, () => 1))).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
    expect([0, 1, 2].map((n) => retryDelay(n, null, () => 0))).toEqual([250, 500, 1000]);
    expect(retryDelay(3, 7, () => 0)).toBe(7000);
  });
});

describe('retries by status and method', () => {
  it('retries a GET after 503s with exponential backoff, then succeeds', async () => {
    script = [{ status: 503 }, { status: 503 }, { status: 200, body: [{ id: 'f1' }] }];
    const { sdk, waits } = client();
    expect(await sdk.folders.list()).toEqual([{ id: 'f1' }]);
    expect(waits).toEqual([375, 750]);
    expect(seen.map((r) => r.method)).toEqual(['GET', 'GET', 'GET']);
    expect(new Set(seen.map((r) => r.requestId)).size).toBe(1);
  });

  it('retries PATCH and DELETE after a 500', async () => {
    script = [{ status: 500 }, { status: 200, body: { id: 'f1' } }, { status: 502 }, { status: 204 }];
    const { sdk } = client();
    await sdk.folders.update('f1', { name: 'x' });
    await sdk.folders.delete('f1');
    expect(seen.map((r) => r.method)).toEqual(['PATCH', 'PATCH', 'DELETE', 'DELETE']);
  });

  it('honours Retry-After on a 429, for a POST too', async () => {
    script = [
      { status: 429, headers: { 'retry-after': '3' } },
      { status: 201, body: { id: 'f1' } },
    ];
    const { sdk, waits } = client();
    expect(await sdk.folders.create({ name: 'x' })).toEqual({ id: 'f1' });
    expect(waits).toEqual([3000]);
    expect(seen.map((r) => r.method)).toEqual(['POST', 'POST']);
  });

  it('retries a POST after a 5xx with the same Idempotency-Key on every attempt', async () => {
    script = [{ status: 503 }, { status: 500 }, { status: 201, body: { id: 'f1' } }];
    const { sdk, waits } = client();
    expect(await sdk.folders.create({ name: 'x' })).toEqual({ id: 'f1' });
    expect(waits).toHaveLength(2);
    const keys = seen.map((r) => r.idempotencyKey);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys)).toEqual(new Set([keys[0]]));
  });

  it('gives each POST call a key of its own, and keeps a key the caller gave', async () => {
    script = [
      { status: 201, body: { id: 'a' } },
      { status: 201, body: { id: 'b' } },
      { status: 201, body: { id: 'c' } },
    ];
    const { sdk } = client();
    await sdk.folders.create({ name: 'a' });
    await sdk.folders.create({ name: 'b' });
    await sdk.folders.create({ name: 'c' }, { headers: { 'Idempotency-Key': 'order-42' } });
    const [a, b, c] = seen.map((r) => r.idempotencyKey);
    expect(a).not.toBe(b);
    expect(c).toBe('order-42');
    expect(seen.filter((r) => r.method === 'GET').every((r) => r.idempotencyKey === undefined)).toBe(true);
  });

  it('tells onResponse of each call once, after its retries: status, request id, rate limit, key', async () => {
    script = [
      { status: 503 },
      {
        status: 201,
        body: { id: 'f1' },
        headers: { 'x-ratelimit-limit': '3000', 'x-ratelimit-remaining': '2999', 'x-ratelimit-reset': '1900000000' },
      },
    ];
    const told: ResponseInfo[] = [];
    const { sdk } = client({ onResponse: (info) => told.push(info) });
    await sdk.folders.create({ name: 'x' });
    expect(told).toHaveLength(1);
    const retry = defined(seen[1], 'the retry');
    expect(told[0]).toMatchObject({ method: 'POST', status: 201, requestId: retry.requestId });
    expect(told[0]?.idempotencyKey).toBe(retry.idempotencyKey);
    expect(told[0]?.rateLimit).toEqual({ limit: 3000, remaining: 2999, reset: new Date(1_900_000_000_000) });
  });

  it('retries a keyed POST answered 409 while its first attempt still runs, after Retry-After', async () => {
    script = [
      { status: 409, headers: { 'retry-after': '1' }, body: { error: 'running', code: 'idempotency_in_flight' } },
      { status: 201, body: { id: 'f1' } },
    ];
    const { sdk, waits } = client();
    expect(await sdk.folders.create({ name: 'x' })).toEqual({ id: 'f1' });
    expect(waits).toEqual([1000]);
  });

  it('would not retry a POST without an Idempotency-Key after a 5xx: it may have been processed', () => {
    expect(shouldRetryStatus('POST', 503, false)).toBe(false);
    expect(shouldRetryStatus('POST', 503, true)).toBe(true);
    expect(shouldRetryStatus('POST', 409, false)).toBe(false);
    expect(shouldRetryStatus('PATCH', 503)).toBe(true);
  });

  it('does not retry a 501 (not implemented is permanent)', async () => {
    script = [{ status: 501 }];
    const { sdk } = client();
    await expect(sdk.folders.list()).rejects.toBeInstanceOf(NotImplementedError);
    expect(seen).toHaveLength(1);
  });

  it('gives up after maxRetries with the last error, rate-limit headers included', async () => {
    const limited = {
      status: 429,
      headers: {
        'retry-after': '1',
        'x-ratelimit-limit': '600',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '2',
      },
    };
    script = [limited, limited, limited, limited];
    const { sdk, waits } = client({ maxRetries: 3 });
    const error: RateLimitError = await sdk.vlans.list().catch((e) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error.retryAfter).toBe(1);
    expect(error.rateLimit).toEqual({ limit: 600, remaining: 0, reset: new Date(2000) });
    expect(waits).toEqual([1000, 1000, 1000]);
    expect(seen).toHaveLength(4);
  });

  it('does not wait longer than maxRetryAfterMs: the 429 goes to the caller', async () => {
    script = [{ status: 429, headers: { 'retry-after': '3600' } }];
    const { sdk, waits } = client();
    const error = await sdk.vlans.list().catch((e) => e);
    expect(error).toMatchObject({ status: 429, retryAfter: 3600 });
    expect(waits).toEqual([]);
  });

  it('maxRetries 0 disables retrying', async () => {
    script = [{ status: 500 }];
    const { sdk } = client({ maxRetries: 0 });
    await expect(sdk.vlans.list()).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(1);
  });

  it('the operationId functions retry too and return the final status as a value', async () => {
    script = [{ status: 503 }, { status: 503 }, { status: 503 }];
    const { sdk } = client();
    expect((await sdk.listVlans()).status).toBe(503);
    expect(seen).toHaveLength(3);
  });
});

describe('network errors and timeouts', () => {
  /** A fetch that fails like a refused connection, counting its calls. */
  function refusing() {
    const calls: string[] = [];
    const failing: typeof fetch = async (_input, init) => {
      calls.push(init?.method ?? 'GET');
      throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    };
    return { calls, failing };
  }

  it('retries a GET after a network error, then throws ApiConnectionError', async () => {
    const { calls, failing } = refusing();
    const { sdk, waits } = client({ fetch: failing });
    const error = await sdk.folders.list().catch((e) => e);
    expect(error).toBeInstanceOf(ApiConnectionError);
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls).toEqual(['GET', 'GET', 'GET']);
    expect(waits).toHaveLength(2);
  });

  it('retries a POST after a network error: its Idempotency-Key makes that safe', async () => {
    const { calls, failing } = refusing();
    const { sdk } = client({ fetch: failing });
    await expect(sdk.folders.create({ name: 'x' })).rejects.toBeInstanceOf(ApiConnectionError);
    expect(calls).toEqual(['POST', 'POST', 'POST']);
  });

  it('times out each attempt after timeoutMs and throws ApiTimeoutError', async () => {
    script = [
      { status: 0, hang: true },
      { status: 0, hang: true },
    ];
    const { sdk } = client({ timeoutMs: 100, maxRetries: 1 });
    const error = await sdk.folders.list().catch((e) => e);
    expect(error).toBeInstanceOf(ApiTimeoutError);
    expect(error.message).toMatch(/no answer within 100 ms/);
    expect(seen).toHaveLength(2);
  });

  it('does not retry when the caller aborts', async () => {
    script = [{ status: 0, hang: true }];
    const { sdk } = client();
    const controller = new AbortController();
    const pending = sdk.folders.list(undefined, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(1);
  });
});
