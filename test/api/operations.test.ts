/**
 * Operations through HTTP against the real app on the test database: the probes (/healthz, /readyz), the
 * JSON request and error logs (captured through the stream createApp takes), the Prometheus metrics, the
 * security headers (Swagger UI's page included), the CORS allow-list, and the 503 of a database that does
 * not answer. The app under test is built here with what each test exercises, on the database of the
 * shared test server (which makes the organisations).
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type AppDeps, createApp } from '../../server/app';
import type { AppConfig } from '../../server/config';
import * as schema from '../../server/db/schema';
import type { Db } from '../../server/db/types';
import { checkReadiness, expectedMigrations } from '../../server/http/health';
import { serializeError } from '../../server/http/logging';
import { memoryCounters } from '../../server/http/rate-limit';
import { createMailer } from '../../server/mail/mailer';
import { ApiClient, clientIp } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { testConfig } from '../support/server';

const t = useTestServer();

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A running app of this file's own, with the JSON lines it logged. */
interface OwnApp {
  url: string;
  lines: string[];
  logged(): LogLine[];
  /** The request line of a request id, once written (it is written when the response has ended). */
  lineOf(requestId: string): Promise<LogLine>;
  warnings: string[];
  close(): Promise<void>;
}

const started: OwnApp[] = [];
afterAll(async () => {
  await Promise.all(started.map((app) => app.close()));
});

async function startApp(
  config: Partial<AppConfig> = {},
  deps: Partial<AppDeps> & { db?: Db } = {},
  { captureErrors = false } = {},
): Promise<OwnApp> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  const warnings: string[] = [];
  const errors: unknown[] = [];
  const db = deps.db ?? t.server.database.db;
  const app = createApp(testConfig({ outboundAllowCidrs: ['127.0.0.1/32'], ...config }), {
    db,
    counters: memoryCounters(),
    mailer: createMailer({ from: 'IPAM Test <no-reply@example.test>' }, () => {}),
    resolveHost: async () => [],
    logStream: stream,
    warn: (message) => warnings.push(message),
    // Unexpected errors go to the log stream when a test looks at them there, else they fail the test.
    ...(captureErrors ? {} : { log: (message: string, error: unknown) => errors.push([message, error]) }),
    ...deps,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const logged = () => lines.map((line) => JSON.parse(line) as LogLine);
  const own: OwnApp = {
    url,
    lines,
    logged,
    warnings,
    async lineOf(requestId) {
      for (let i = 0; i < 100; i++) {
        const line = logged().find((l) => l.msg === 'request' && l.reqId === requestId);
        if (line) return line;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`no request line for ${requestId} in:\n${lines.join('\n')}`);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      if (errors.length > 0) throw new Error(`unexpected errors: ${JSON.stringify(errors)}`);
    },
  };
  started.push(own);
  return own;
}

/** A database whose server refuses every connection (nothing listens on port 1). */
function unreachableDatabase(): Db {
  const pool = new pg.Pool({ connectionString: 'postgres://postgres@127.0.0.1:1/none', connectionTimeoutMillis: 2000 });
  pool.on('error', () => {});
  return drizzle(pool, { schema });
}

/** A database whose every statement fails with an error no rule expects (a bug's 500). */
function failingDatabase(): Db {
  class FailingPool extends pg.Pool {
    override query(..._args: any[]): any {
      return Promise.reject(new Error('synthetic failure for the error log'));
    }
  }
  return drizzle(new FailingPool(), { schema }) as unknown as Db;
}

/** A syntactically valid API key that exists nowhere. */
const someKey = () => `svc_${randomBytes(48).toString('base64url').slice(0, 64)}`;

describe('probes', () => {
  it('GET /healthz answers 200 {status: "ok"} without credentials', async () => {
    const response = await fetch(`${t.server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when the database answers and has every migration', async () => {
    const response = await fetch(`${t.server.url}/readyz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready' });
  });

  it('are outside the API: not rate limited, no rate-limit headers, not in the contract or the document', async () => {
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => fetch(`${t.server.url}/${i % 2 ? 'healthz' : 'readyz'}`)),
    );
    expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
    expect(answers.some((r) => r.headers.has('x-ratelimit-limit'))).toBe(false);
    const document = await (await fetch(`${t.server.url}/openapi.json`)).json();
    expect(Object.keys(document.paths).filter((p) => /healthz|readyz|metrics/.test(p))).toEqual([]);
  });

  it('readiness names the migrations the database lacks', async () => {
    const expected = expectedMigrations();
    expect(expected[0]).toBe('0001_foundation.sql');
    expect(await checkReadiness(t.server.database.db, expected, 2000)).toEqual({ ready: true });
    const ahead = [...expected, '9998_later.sql', '9999_latest.sql'];
    expect(await checkReadiness(t.server.database.db, ahead, 2000)).toEqual({
      ready: false,
      problem: 'Database migrations not applied: 9998_later.sql, 9999_latest.sql',
    });
  });

  it('with the database unreachable: /healthz still 200, /readyz 503 naming the problem', async () => {
    const app = await startApp({}, { db: unreachableDatabase() });
    const health = await fetch(`${app.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${app.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      error: expect.stringMatching(/^The database does not answer \(ECONNREFUSED\)$/),
      code: 'unavailable',
    });
  });
});

describe('a database that does not answer', () => {
  it('answers 503 unavailable with Retry-After, never 500, and warns rather than logging an error', async () => {
    const app = await startApp({}, { db: unreachableDatabase() });
    const api = new ApiClient(app.url, { key: someKey() });
    for (const response of [
      await api.call('getCurrentUser'),
      await api.call('listFolders'),
      await api.call('createFolder', { body: { name: 'x' } }),
    ]) {
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ error: expect.stringMatching(/database is unavailable/), code: 'unavailable' });
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect(app.warnings).toHaveLength(3);
    expect(app.warnings[0]).toMatch(/^database unavailable on GET \/api\/v1\/auth\/me \(request [\w-]+\): /);
  });
});

describe('JSON logs', () => {
  it('write one line per request: id, method, route template, status, duration, organisation', async () => {
    const app = await startApp();
    const subnet = await createSubnet(t.org.api, '10.77.0.0/24');
    const api = new ApiClient(app.url, { key: t.org.key });
    const got = await api.call('getSubnet', { params: { id: subnet.id } });
    expectStatus(got, 200);
    const line = await app.lineOf(got.headers.get('x-request-id') as string);
    expect(line).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: expect.any(String),
      reqId: got.headers.get('x-request-id'),
      method: 'GET',
      route: '/api/v1/subnets/:id',
      status: 200,
      durationMs: expect.any(Number),
      orgId: t.org.orgId,
      msg: 'request',
    });
    expect(line.durationMs).toBeGreaterThan(0);

    // Unauthenticated: no organisation; unknown paths share one route value.
    const anonymous = await fetch(`${app.url}/api/v1/folders`);
    const unknown = await fetch(`${app.url}/api/v1/no/such/${subnet.id}`);
    expect(await app.lineOf(anonymous.headers.get('x-request-id') as string)).toMatchObject({
      route: '/api/v1/folders',
      status: 401,
    });
    expect((await app.lineOf(anonymous.headers.get('x-request-id') as string)).orgId).toBeUndefined();
    expect(await app.lineOf(unknown.headers.get('x-request-id') as string)).toMatchObject({
      route: 'unmatched',
      status: 404,
    });
  });

  it('never contain an API key, a session cookie, an Authorization header or a query string value', async () => {
    const app = await startApp();
    const subnet = await createSubnet(t.org.api, '10.78.0.0/24');
    const token = `tok${randomBytes(16).toString('hex')}`;
    const secrets = [t.org.key, t.org.session, token, `Bearer ${t.org.key}`];
    const responses = [
      await fetch(`${app.url}/api/v1/subnets/${subnet.id}?token=${token}`, {
        headers: { authorization: `Bearer ${t.org.key}` },
      }),
      await fetch(`${app.url}/api/v1/auth/me?token=${token}`, {
        headers: { cookie: `service_session=${t.org.session}` },
      }),
      await fetch(`${app.url}/api/v1/auth/verify?token=${token}`, {
        redirect: 'manual',
        headers: { 'x-forwarded-for': clientIp() },
      }),
      // A key that exists nowhere (401) and one sent to a route that does not exist (404).
      await fetch(`${app.url}/api/v1/folders?token=${token}`, { headers: { authorization: `Bearer ${token}` } }),
      await fetch(`${app.url}/api/v1/nowhere?token=${token}`, { headers: { authorization: `Bearer ${t.org.key}` } }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 307, 401, 404]);
    for (const response of responses) await app.lineOf(response.headers.get('x-request-id') as string);
    const text = app.lines.join('\n');
    expect(app.lines).toHaveLength(responses.length);
    for (const secret of secrets) expect(text).not.toContain(secret);
    expect(text).not.toMatch(/token=|svc_|service_session|authorization|cookie/i);
  });

  it('log a 500 with its error (type, message, stack), the method, path and request id, and no credentials', async () => {
    const app = await startApp({}, { db: failingDatabase() }, { captureErrors: true });
    const key = someKey();
    const response = await fetch(`${app.url}/api/v1/auth/me?token=abc123secret`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: 'Internal server error', code: 'internal' });
    const id = response.headers.get('x-request-id') as string;
    await app.lineOf(id);
    const error = app.logged().find((l) => l.level === 50);
    expect(error).toMatchObject({
      msg: `unhandled error on GET /api/v1/auth/me (request ${id})`,
      err: { type: 'Error', message: 'synthetic failure for the error log', stack: expect.stringMatching(/at /) },
    });
    const text = app.lines.join('\n');
    expect(text).not.toContain(key);
    expect(text).not.toContain('abc123secret');
  });

  it("leave a failed statement's parameters out of a logged error", () => {
    const failed = new Error('Failed query: select * from users where email = $1\nparams: someone@example.test', {
      cause: Object.assign(new Error('connection reset'), { code: 'ECONNRESET' }),
    });
    const logged = JSON.stringify(serializeError(failed));
    expect(logged).not.toContain('someone@example.test');
    expect(serializeError(failed)).toMatchObject({
      type: 'Error',
      message: 'Failed query: select * from users where email = $1',
      cause: { message: 'connection reset', code: 'ECONNRESET' },
    });
  });

  it('follow LOG_LEVEL: above info, no request lines', async () => {
    const app = await startApp({ logLevel: 'warn' });
    const response = await fetch(`${app.url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${t.org.key}` } });
    expect(response.status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(app.lines).toEqual([]);
  });
});

/** The value of one series of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const match = /^[^{\s]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const present = Object.fromEntries(
      [...(match[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => present[k] === v)) return Number(match[2]);
  }
  return undefined;
}

describe('metrics', () => {
  it('count requests by method, route template and status, time them by route, and include process metrics', async () => {
    const app = await startApp();
    const subnet = await createSubnet(t.org.api, '10.79.0.0/24');
    const api = new ApiClient(app.url, { key: t.org.key });
    for (let i = 0; i < 3; i++) expectStatus(await api.call('getSubnet', { params: { id: subnet.id } }), 200);
    expect((await api.call('getSubnet', { params: { id: '00000000-0000-4000-8000-000000000000' } })).status).toBe(404);
    await fetch(`${app.url}/healthz`);

    const response = await fetch(`${app.url}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    const route = '/api/v1/subnets/:id';
    expect(sample(text, 'http_requests_total', { method: 'GET', route, status: '200' })).toBe(3);
    expect(sample(text, 'http_requests_total', { method: 'GET', route, status: '404' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', { route })).toBe(4);
    expect(sample(text, 'http_request_duration_seconds_bucket', { route, le: '+Inf' })).toBe(4);
    expect(sample(text, 'http_request_duration_seconds_bucket', { route, le: '10' })).toBe(4);
    // No series names an id, and the probes are not counted.
    expect(text).not.toContain(subnet.id);
    expect(text).not.toMatch(/route="\/(healthz|readyz|metrics)"/);
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
    ])
      expect(sample(text, name), name).toBeGreaterThanOrEqual(0);
  });

  it('report the webhook queue depth: outbox rows not yet delivered', async () => {
    const app = await startApp();
    const org = await t.server.newOrg({ plan: 'teams' });
    const api = new ApiClient(app.url, { key: org.key });
    // Nothing delivers this organisation's events here: its attempts stay pending (a receiver that refuses).
    expectStatus(
      await api.call('createWebhook', { body: { url: 'http://127.0.0.1:9/hook', event_types: ['folder.created'] } }),
      201,
    );
    for (let i = 0; i < 3; i++) expectStatus(await api.call('createFolder', { body: { name: `queued ${i}` } }), 201);
    const depth = sample(await (await fetch(`${app.url}/metrics`)).text(), 'webhook_queue_depth');
    // Other test files may share the database (and its queue): at least this organisation's three.
    expect(depth).toBeGreaterThanOrEqual(3);
  });

  it('reports an unknown queue depth (NaN) rather than failing the scrape when the database does not answer', async () => {
    const app = await startApp({}, { db: unreachableDatabase() });
    const response = await fetch(`${app.url}/metrics`);
    expect(response.status).toBe(200);
    expect(sample(await response.text(), 'webhook_queue_depth')).toBeNaN();
  });

  it('need the bearer METRICS_TOKEN when it is set', async () => {
    const app = await startApp({ metricsToken: 'scrape-secret' });
    const none = await fetch(`${app.url}/metrics`);
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ error: expect.stringMatching(/METRICS_TOKEN/), code: 'unauthenticated' });
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    const wrong = await fetch(`${app.url}/metrics`, { headers: { authorization: 'Bearer scrape-secreT' } });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${app.url}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } });
    expect(right.status).toBe(200);
    expect(await right.text()).toMatch(/^# HELP /m);
  });
});

describe('security headers', () => {
  it('API answers carry the headers that protect JSON, with a policy that loads and frames nothing', async () => {
    for (const response of [
      await fetch(`${t.server.url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${t.org.key}` } }),
      await fetch(`${t.server.url}/api/v1/folders`), // errors too
      await fetch(`${t.server.url}/api/v1/no/such/path`), // and a path that is not the API's nor the console's
    ]) {
      expect(response.headers.get('content-security-policy')).toBe("default-src 'none';frame-ancestors 'none'");
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('cross-origin-resource-policy')).toBe('same-origin');
      expect(response.headers.get('strict-transport-security')).toMatch(/^max-age=\d+/);
      expect(response.headers.has('x-powered-by')).toBe(false);
      // The headers for HTML documents are on Swagger UI's page only.
      expect(response.headers.has('referrer-policy')).toBe(false);
    }
  });

  it('Swagger UI at /docs loads under its policy: same-origin scripts only, inline styles and data: images', async () => {
    const page = await fetch(`${t.server.url}/docs/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = page.headers.get('content-security-policy') as string;
    const directives = new Map(
      csp.split(';').map((d) => {
        const [name, ...values] = d.trim().split(/\s+/);
        return [name, values] as const;
      }),
    );
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('style-src')).toContain("'unsafe-inline'");
    expect(directives.get('img-src')).toEqual(expect.arrayContaining(["'self'", 'data:']));
    // Not upgrade-insecure-requests: the page must work when served over plain http.
    expect(directives.has('upgrade-insecure-requests')).toBe(false);

    // Every script of the page is a file of this origin (script-src 'self' allows no inline script) …
    const html = await page.text();
    const scripts = [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes = '', body = ''] of scripts) {
      expect(body.trim()).toBe('');
      const src = /src=["']([^"']+)["']/.exec(attributes)?.[1] as string;
      expect(src).toMatch(/^\.\//);
      const script = await fetch(new URL(src, `${t.server.url}/docs/`));
      expect(script.status, src).toBe(200);
      expect(script.headers.get('content-type')).toMatch(/javascript/);
    }
    // … and so is its stylesheet; the document it loads is on the same origin (connect-src falls back to 'self').
    const stylesheet = /<link rel="stylesheet" type="text\/css" href="([^"]+)"/.exec(html)?.[1] as string;
    expect((await fetch(new URL(stylesheet, `${t.server.url}/docs/`))).status).toBe(200);
    const init = await (await fetch(`${t.server.url}/docs/swagger-ui-init.js`)).text();
    expect(init).toMatch(/"url": "\/openapi\.json"/);
  });
});

describe('CORS', () => {
  const allowed = 'https://app.example.test';

  it('sends no CORS headers at all when CORS_ORIGINS is unset', async () => {
    const preflight = await fetch(`${t.server.url}/api/v1/folders`, {
      method: 'OPTIONS',
      headers: { origin: allowed, 'access-control-request-method': 'POST' },
    });
    expect([...preflight.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const get = await fetch(`${t.server.url}/api/v1/folders`, {
      headers: { origin: allowed, authorization: `Bearer ${t.org.key}` },
    });
    expect(get.status).toBe(200);
    expect([...get.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('answers the preflight of an allowed origin with the methods and headers the API uses, credentials allowed', async () => {
    const app = await startApp({ corsOrigins: [allowed, 'http://localhost:5173'] });
    const preflight = await fetch(`${app.url}/api/v1/folders`, {
      method: 'OPTIONS',
      headers: {
        origin: allowed,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization,content-type,idempotency-key,x-requested-with',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-methods')?.split(',')).toEqual(
      expect.arrayContaining(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']),
    );
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase().split(',')).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'x-requested-with', 'idempotency-key']),
    );
    expect(preflight.headers.get('vary')).toMatch(/Origin/);

    const get = await fetch(`${app.url}/api/v1/folders`, {
      headers: { origin: allowed, authorization: `Bearer ${t.org.key}` },
    });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBe(allowed);
    expect(get.headers.get('access-control-allow-credentials')).toBe('true');
    expect(get.headers.get('access-control-expose-headers')).toMatch(/X-Request-Id/);
    expect(get.headers.get('access-control-expose-headers')).toMatch(/X-RateLimit-Remaining/);
  });

  it('gives another origin no Access-Control-Allow-Origin, on the preflight or the request', async () => {
    const app = await startApp({ corsOrigins: [allowed] });
    for (const origin of [
      'https://evil.example.test',
      'https://app.example.test.evil.test',
      'http://app.example.test',
    ]) {
      const preflight = await fetch(`${app.url}/api/v1/folders`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.has('access-control-allow-origin'), origin).toBe(false);
      expect(preflight.headers.has('access-control-allow-credentials'), origin).toBe(false);
      const get = await fetch(`${app.url}/api/v1/folders`, {
        headers: { origin, authorization: `Bearer ${t.org.key}` },
      });
      expect(get.headers.has('access-control-allow-origin'), origin).toBe(false);
      expect(get.headers.has('access-control-allow-credentials'), origin).toBe(false);
    }
  });
});
