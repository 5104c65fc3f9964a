/**
 * /tools/headers: the caller's own request, and remote sites on loopback (a plain http site and an https
 * one on 127.0.0.2, the only address allowed): status and headers, the security checklist, redirects
 * followed hop by hop with every hop checked, the hop cap, and failures. Names resolve through an injected
 * resolver; nothing leaves the machine. Without the openssl program (not under CI) the https site's test skips.
 */
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  callerHeaders,
  redirectTarget,
  reportedHeaders,
  securityChecklist,
} from '../../server/modules/tools/headers.service';
import { type Site, startGarbageServer, startHttpSite, startTlsSite } from '../fixtures/http-sites';
import { closedPort } from '../fixtures/receiver';
import { createPki, type Pki } from '../fixtures/tls';
import { clientIp, inOneMinuteWindow } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { missingProgram, skippedBecause } from '../support/programs';
import { testConfig } from '../support/server';

const noOpenssl = missingProgram('openssl');

const SECURE_HEADERS = {
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'content-security-policy': "default-src 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'permissions-policy': 'geolocation=()',
};
const ABSENT = { present: false, value: null };

const NAMES: Record<string, string[]> = {
  'site.test': ['127.0.0.2'],
  'good.test': ['127.0.0.2'],
  'refused.test': ['127.0.0.9'],
};

const f = {} as {
  pki: Pki;
  http: Site;
  https: Site;
  garbage: { hostPort: string; close(): Promise<void> };
  closed: number;
};

beforeAll(async () => {
  f.http = await startHttpSite({
    '/secure': { headers: SECURE_HEADERS },
    '/bare': {},
    '/cookies': { headers: { 'set-cookie': ['a=1; Path=/', 'b=2; Path=/'], 'x-long': 'v'.repeat(3000) } },
    '/redirect': { redirect: '/secure', status: 301 },
    '/to-name': { redirect: '' }, // set below, once the port is known
    '/to-private': { redirect: 'http://10.0.0.1/' },
    '/to-loopback': { redirect: '' },
    '/to-refused-name': { redirect: 'http://refused.test/' },
    '/to-ftp': { redirect: 'ftp://site.test/file' },
    '/hop/0': {},
  });
  for (let n = 1; n <= 6; n++) f.http.routes.set(`/hop/${n}`, { redirect: `/hop/${n - 1}`, status: 307 });
  f.http.routes.set('/to-name', { redirect: `http://site.test:${f.http.port}/bare` });
  f.http.routes.set('/to-loopback', { redirect: `http://127.0.0.9:${f.http.port}/bare` });
  if (!noOpenssl) {
    f.pki = createPki();
    f.https = await startTlsSite({
      identity: f.pki.valid,
      protocols: 'http/1.1',
      routes: { '/': { headers: SECURE_HEADERS } },
    });
  }
  f.garbage = await startGarbageServer();
  f.closed = await closedPort('127.0.0.2');
});

afterAll(async () => {
  await Promise.all([f.http?.close(), f.https?.close(), f.garbage?.close()]);
  f.pki?.close();
});

const t = useTestServer(
  {
    config: { outboundAllowCidrs: ['127.0.0.2/32'] },
    resolveHost: async (host) => NAMES[host.toLowerCase()] ?? [],
  },
  false,
);

const inspect = (url?: string, ip = clientIp(), headers: Record<string, string> = {}) =>
  t.server.anonymous.call('inspectHttpHeaders', {
    query: url === undefined ? {} : { url },
    headers: { 'x-forwarded-for': ip, ...headers },
  });

describe('GET /tools/headers without url', () => {
  it('answers the caller’s own request: headers, method and protocol', async () => {
    const body = expectStatus(await inspect(undefined, clientIp(), { 'x-test': 'hello' }), 200);
    expect(body).toMatchObject({ method: 'GET', proto: 'HTTP/1.1' });
    expect('headers' in body && body.headers).toMatchObject({ 'x-test': 'hello', host: new URL(t.server.url).host });
  });

  it('redacts the credentials the caller sent', async () => {
    const body = expectStatus(
      await inspect(undefined, clientIp(), { authorization: 'Bearer secret-token', cookie: 'session=secret' }),
      200,
    );
    expect(body.headers).toMatchObject({ authorization: '[redacted]', cookie: '[redacted]' });
    expect(JSON.stringify(body)).not.toContain('secret');
  });
});

describe('GET /tools/headers with url', () => {
  it.skipIf(noOpenssl)(
    `reports a site’s status, headers and a full security checklist (https)${skippedBecause(noOpenssl)}`,
    async () => {
      const url = `https://good.test:${f.https.port}/`;
      const body = expectStatus(await inspect(url), 200);
      expect(body).toMatchObject({ url, status: 200 });
      expect(body.headers).toMatchObject({ 'content-type': 'text/plain', ...SECURE_HEADERS });
      expect('security_checklist' in body && body.security_checklist).toEqual({
        hsts: { present: true, value: SECURE_HEADERS['strict-transport-security'] },
        csp: { present: true, value: "default-src 'self'" },
        x_frame_options: { present: true, value: 'DENY' },
        x_content_type_options: { present: true, value: 'nosniff' },
        referrer_policy: { present: true, value: 'no-referrer' },
        permissions_policy: { present: true, value: 'geolocation=()' },
      });
    },
  );

  it('does not count HSTS sent over plain http', async () => {
    const body = expectStatus(await inspect(`${f.http.origin}/secure`), 200);
    if (!('security_checklist' in body)) throw new Error('no checklist');
    expect(body.headers['strict-transport-security']).toBe(SECURE_HEADERS['strict-transport-security']);
    expect(body.security_checklist.hsts).toEqual(ABSENT);
    expect(body.security_checklist.x_content_type_options).toEqual({ present: true, value: 'nosniff' });
  });

  it('reports every security header absent on a bare response', async () => {
    const body = expectStatus(await inspect(`${f.http.origin}/bare`), 200);
    expect('security_checklist' in body && body.security_checklist).toEqual({
      hsts: ABSENT,
      csp: ABSENT,
      x_frame_options: ABSENT,
      x_content_type_options: ABSENT,
      referrer_policy: ABSENT,
      permissions_policy: ABSENT,
    });
  });

  it('sends a GET with the URL’s host and its own user agent', async () => {
    expectStatus(await inspect(`http://site.test:${f.http.port}/bare?q=1`), 200);
    expect(f.http.requests.at(-1)).toMatchObject({ method: 'GET', path: '/bare', host: `site.test:${f.http.port}` });
  });

  it('lists repeated set-cookie headers and cuts long values', async () => {
    const body = expectStatus(await inspect(`${f.http.origin}/cookies`), 200);
    expect(body.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(body.headers['x-long']).toBe('v'.repeat(1024));
  });

  it('follows a redirect and reports where it led', async () => {
    const body = expectStatus(await inspect(`${f.http.origin}/redirect`), 200);
    expect(body).toMatchObject({ url: `${f.http.origin}/secure`, status: 200 });
    expect(f.http.requests.slice(-2).map((r) => r.path)).toEqual(['/redirect', '/secure']);
  });

  it('checks and follows a redirect to another name', async () => {
    const body = expectStatus(await inspect(`${f.http.origin}/to-name`), 200);
    expect(body).toMatchObject({ url: `http://site.test:${f.http.port}/bare`, status: 200 });
  });

  it.each([
    ['a private address', '/to-private', '10.0.0.1'],
    ['a loopback address outside the allow-list', '/to-loopback', '127.0.0.9'],
    ['a name resolving to a refused address', '/to-refused-name', '127.0.0.9'],
  ])('refuses a redirect to %s with a 400, without contacting it', async (_, path, address) => {
    const body = expectStatus(await inspect(`${f.http.origin}${path}`), 400);
    expect(body.error).toMatch(/^url \(redirected to http:\/\//);
    expect(body.error).toContain(address);
  });

  it('reports a redirect to a scheme other than http(s) as the final response', async () => {
    const body = expectStatus(await inspect(`${f.http.origin}/to-ftp`), 200);
    expect(body).toMatchObject({ url: `${f.http.origin}/to-ftp`, status: 302 });
    expect(body.headers.location).toBe('ftp://site.test/file');
  });

  it('follows 5 redirects', async () => {
    const body = expectStatus(await inspect(`${f.http.origin}/hop/5`), 200);
    expect(body).toMatchObject({ url: `${f.http.origin}/hop/0`, status: 200 });
  });

  it('answers 502 at the 6th redirect, without following it', async () => {
    const before = f.http.requests.length;
    const body = expectStatus(await inspect(`${f.http.origin}/hop/6`), 502);
    expect(body.error).toBe('url: more than 5 redirects');
    expect(f.http.requests.slice(before).map((r) => r.path)).toEqual([6, 5, 4, 3, 2, 1].map((n) => `/hop/${n}`));
  });

  it.each([
    ['the service itself (loopback outside the allow-list)', () => 'http://127.0.0.1:9/', '127.0.0.1'],
    ['a name resolving to a refused address', () => 'http://refused.test/', '127.0.0.9'],
    ['an IPv4 address in another form', () => `http://0x7f.0.0.1:${f.http.port}/`, '127.0.0.1'],
    ['a name that resolves to nothing', () => 'https://nowhere.test/', 'does not resolve'],
  ])('refuses %s with a 400 naming url', async (_, url, problem) => {
    const body = expectStatus(await inspect(url()), 400);
    expect(body.error).toMatch(/^url: /);
    expect(body.error).toContain(problem);
  });

  it.each([
    ['a scheme other than http(s)', 'ftp://site.test/', 'must be an absolute http or https URL'],
    ['credentials in the URL', 'http://user:pass@site.test/', 'must not contain credentials'],
    ['a relative URL', '/secure', 'must be an absolute http or https URL'],
  ])('refuses %s with a 400', async (_, url, problem) => {
    expect(expectStatus(await inspect(url), 400).error).toContain(`url: ${problem}`);
  });

  it('answers 502 when nothing listens on the port', async () => {
    const body = expectStatus(await inspect(`http://127.0.0.2:${f.closed}/`), 502);
    expect(body.error).toBe(`url: cannot fetch http://127.0.0.2:${f.closed}/: connection refused`);
  });

  it('answers 502 when the host does not speak TLS, without echoing what it sent', async () => {
    const body = expectStatus(await inspect(`https://${f.garbage.hostPort}/`), 502);
    expect(body.error).toMatch(/^url: cannot fetch https:/);
    expect(body.error).not.toContain('not TLS');
  });

  it('limits lookups per client IP: the 11th in a minute is a 429', async () => {
    await inOneMinuteWindow();
    const ip = clientIp();
    for (let i = 0; i < 10; i++) expectStatus(await inspect('ftp://x/', ip), 400);
    expectStatus(await inspect('ftp://x/', ip), 429);
  });
});

describe('header reporting (pure)', () => {
  it('shows HTTP/2 requests as HTTP/2 and joins repeated request headers', () => {
    expect(callerHeaders({ ip: '::1', method: 'HEAD', httpVersion: '2.0', headers: { 'x-list': ['a', 'b'] } })).toEqual(
      {
        headers: { 'x-list': 'a, b' },
        method: 'HEAD',
        proto: 'HTTP/2',
      },
    );
  });

  it('removes control characters from remote values and keeps at most 100 headers', () => {
    const many = Object.fromEntries(Array.from({ length: 150 }, (_, i) => [`x-h${i}`, `v\u0007${i}`]));
    const reported = reportedHeaders(many);
    expect(Object.keys(reported)).toHaveLength(100);
    expect(reported['x-h0']).toBe('v 0');
    expect(securityChecklist({ 'x-frame-options': 'DENY\u0000' }, false).x_frame_options).toEqual({
      present: true,
      value: 'DENY ',
    });
  });

  it.each([
    [301, '/next', 'http://a.test/next'],
    [308, 'https://b.test/x', 'https://b.test/x'],
    [302, 'javascript:alert(1)', null],
    [200, '/next', null],
    [302, undefined, null],
  ])('status %s with Location %s redirects to %s', (status, location, expected) => {
    expect(redirectTarget(status, location, new URL('http://a.test/start'))?.href ?? null).toBe(expected);
  });
});

describe('the cap on tool requests at once (TOOLS_MAX_CONCURRENT)', () => {
  /** A TCP listener that holds every connection open without answering. */
  const held: Socket[] = [];
  let silent: Server;
  let port: number;
  beforeAll(async () => {
    silent = createServer((socket) => held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.2', resolve));
    port = (silent.address() as AddressInfo).port;
  });
  afterAll(() => {
    for (const socket of held) socket.destroy();
    silent?.close();
  });
  const capped = useTestServer(
    () => ({
      config: { outboundAllowCidrs: ['127.0.0.2/32'], tools: { ...testConfig().tools, maxConcurrentRuns: 1 } },
    }),
    false,
  );
  const headersOf = (url: string) =>
    capped.server.anonymous.call('inspectHttpHeaders', {
      query: { url },
      headers: { 'x-forwarded-for': clientIp() },
    });

  it('makes a second request wait until the first has ended', async () => {
    const first = headersOf(`http://127.0.0.2:${port}/first`);
    await vi.waitFor(() => expect(held).toHaveLength(1));
    const second = headersOf(`http://127.0.0.2:${port}/second`);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(held).toHaveLength(1); // the second has not connected: it waits for the slot
    defined(held[0], 'the first connection').destroy();
    expectStatus(await first, 502);
    await vi.waitFor(() => expect(held).toHaveLength(2));
    defined(held[1], 'the second connection').destroy();
    expectStatus(await second, 502);
  });
});
