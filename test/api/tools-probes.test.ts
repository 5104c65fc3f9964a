/**
 * /tools/ping and /tools/ports against TCP listeners on loopback: an open port (a listener the test starts),
 * a closed one (a port bound and released), names resolved by an injected resolver, the port list's limits,
 * and the per-IP probe limit. Only 127.0.0.1 and ::1 are allowed (the SSRF matrix is tools-safety.test.ts).
 */
import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCAN_PORTS, mapBounded } from '../../server/modules/tools/probes.service';
import { type DnsFixture, startDnsServer } from '../fixtures/dns';
import { closedPort } from '../fixtures/receiver';
import { clientIp, inOneMinuteWindow } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { testConfig } from '../support/server';

let listener: Server;
let openPort: number;
let portClosed: number;

beforeAll(async () => {
  listener = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  openPort = (listener.address() as AddressInfo).port;
  portClosed = await closedPort();
});
afterAll(() => new Promise((resolve) => listener?.close(resolve)));

const names = new Map<string, string[]>([
  ['probe.test', ['127.0.0.1']],
  ['dual.test', ['::1', '127.0.0.1']],
]);
const t = useTestServer(
  {
    config: { outboundAllowCidrs: ['127.0.0.1/32', '::1/128'] },
    resolveHost: async (host) => names.get(host) ?? [],
  },
  false,
);

/** Each call from a client address of its own: the probe limit is 3 per minute per IP. */
const ping = (query: Record<string, string | number>) =>
  t.server.anonymous.call('pingHost', { query, headers: { 'x-forwarded-for': clientIp() } });
const scan = (query: Record<string, string | number>) =>
  t.server.anonymous.call('scanPorts', { query, headers: { 'x-forwarded-for': clientIp() } });

describe('GET /tools/ping', () => {
  it('reports an open port with its connect latency', async () => {
    const body = expectStatus(await ping({ host: '127.0.0.1', port: openPort }), 200);
    expect(body).toMatchObject({ host: '127.0.0.1', ip: '127.0.0.1' });
    expect(body.results).toHaveLength(1);
    expect(body.results[0]).toMatchObject({ port: openPort, open: true });
    expect(body.results[0]?.latency_ms).toBeGreaterThanOrEqual(0);
    expect(body.results[0]?.latency_ms).toBeLessThan(3000);
  });

  it('reports a closed port as not open with null latency, not as an error', async () => {
    const body = expectStatus(await ping({ host: '127.0.0.1', port: portClosed }), 200);
    expect(body.results).toEqual([{ port: portClosed, open: false, latency_ms: null }]);
  });

  it('probes ports 80 and 443, in that order, when no port is given', async () => {
    const body = expectStatus(await ping({ host: '127.0.0.1' }), 200);
    expect(body.results.map((r) => r.port)).toEqual([80, 443]);
    for (const result of body.results) expect(result.latency_ms === null).toBe(!result.open);
  });

  it('stamps the check time', async () => {
    const before = Date.now();
    const body = expectStatus(await ping({ host: '127.0.0.1', port: portClosed }), 200);
    const at = Date.parse(body.checked_at);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('probes the address a name resolves to and names it', async () => {
    const body = expectStatus(await ping({ host: 'probe.test', port: openPort }), 200);
    expect(body).toMatchObject({ host: 'probe.test', ip: '127.0.0.1' });
    expect(body.results[0]?.open).toBe(true);
  });

  it('prefers the IPv4 address of a name that has both', async () => {
    const body = expectStatus(await ping({ host: 'dual.test', port: openPort }), 200);
    expect(body.ip).toBe('127.0.0.1');
    expect(body.results[0]?.open).toBe(true);
  });

  it('refuses a bracketed IPv6 literal with 400: a host is a name or a plain address', async () => {
    const response = await ping({ host: '[::1]', port: openPort });
    expect(expectStatus(response, 400).error).toMatch(/host/);
  });

  it.each([
    [{ host: '' }, /host/],
    [{ host: 'bad host' }, /host/],
    [{ host: '127.0.0.1', port: 0 }, /port/],
    [{ host: '127.0.0.1', port: 65536 }, /port/],
  ])('refuses %j with 400 naming the field', async (query, field) => {
    expect(expectStatus(await ping(query), 400).error).toMatch(field);
  });

  it('answers 400 for a name that resolves to nothing', async () => {
    expect(expectStatus(await ping({ host: 'nowhere.test' }), 400).error).toMatch(
      /host: nowhere\.test does not resolve/,
    );
  });

  it('answers 429 with Retry-After on the 4th probe from one address in a minute', async () => {
    await inOneMinuteWindow();
    const headers = { 'x-forwarded-for': clientIp() };
    for (let i = 0; i < 3; i++) {
      expectStatus(await t.server.anonymous.call('pingHost', { query: { host: '' }, headers }), 400);
    }
    const limited = await t.server.anonymous.call('pingHost', { query: { host: '127.0.0.1' }, headers });
    expect(expectStatus(limited, 429).error).toMatch(/3 active network probes/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('GET /tools/ports', () => {
  it('scans the ports given, once each, in the order given', async () => {
    const body = expectStatus(await scan({ host: '127.0.0.1', ports: `${openPort}, ${portClosed},${openPort}` }), 200);
    expect(body).toMatchObject({ host: '127.0.0.1', open_count: 1, total: 2 });
    expect(body.results.map((r) => [r.port, r.open])).toEqual([
      [openPort, true],
      [portClosed, false],
    ]);
  });

  it('gives the latency of open ports and omits it for closed ones', async () => {
    const body = expectStatus(await scan({ host: '127.0.0.1', ports: `${openPort},${portClosed}` }), 200);
    const [open, closed] = body.results;
    expect(open?.latency_ms).toBeGreaterThanOrEqual(0);
    expect(closed).not.toHaveProperty('latency_ms');
  });

  it('names the usual service of a known port and `unknown` otherwise', async () => {
    const body = expectStatus(await scan({ host: '127.0.0.1', ports: `22,443,5432,${portClosed}` }), 200);
    expect(body.results.map(({ port, service, category }) => ({ port, service, category }))).toEqual([
      { port: 22, service: 'ssh', category: 'remote' },
      { port: 443, service: 'https', category: 'web' },
      { port: 5432, service: 'postgresql', category: 'database' },
      { port: portClosed, service: 'unknown', category: 'unknown' },
    ]);
  });

  it('scans 19 common ports, each with its service and category, when no list is given', async () => {
    const body = expectStatus(await scan({ host: '127.0.0.1' }), 200);
    expect(body.total).toBe(19);
    expect(body.results.map((r) => r.port)).toEqual(DEFAULT_SCAN_PORTS);
    expect(new Set(DEFAULT_SCAN_PORTS).size).toBe(19);
    expect(body.results.filter((r) => r.service === 'unknown' || r.category === 'unknown')).toEqual([]);
    expect(body.results.find((r) => r.port === 3306)).toMatchObject({ service: 'mysql', category: 'database' });
    expect(body.results.find((r) => r.port === 25)).toMatchObject({ service: 'smtp', category: 'mail' });
    expect(body.open_count).toBe(body.results.filter((r) => r.open).length);
  });

  it('scans a list of 25 ports', async () => {
    const others = Array.from({ length: 30 }, (_, i) => 40000 + i).filter((port) => port !== openPort);
    const ports = [openPort, ...others.slice(0, 24)];
    const body = expectStatus(await scan({ host: '127.0.0.1', ports: ports.join(',') }), 200);
    expect(body.total).toBe(25);
    expect(body.results.map((r) => r.port)).toEqual(ports);
    expect(body.results[0]?.open).toBe(true);
  });

  it('refuses a list of 26 ports with 400 naming `ports`', async () => {
    const ports = Array.from({ length: 26 }, (_, i) => 40000 + i).join(',');
    expect(expectStatus(await scan({ host: '127.0.0.1', ports }), 400).error).toMatch(/ports/);
  });

  it.each(['0', '65536', '22,,80', 'ssh', '22;80'])('refuses the port list %j with 400', async (ports) => {
    expect(expectStatus(await scan({ host: '127.0.0.1', ports }), 400).error).toMatch(/ports/);
  });

  it('refuses a refused target with 400 naming `host`', async () => {
    expect(expectStatus(await scan({ host: '127.0.0.2' }), 400).error).toMatch(/^host: 127\.0\.0\.2 .*loopback/);
  });

  it('answers 429 with Retry-After on the 4th probe from one address in a minute', async () => {
    await inOneMinuteWindow();
    const headers = { 'x-forwarded-for': clientIp() };
    for (let i = 0; i < 3; i++) {
      expectStatus(
        await t.server.anonymous.call('scanPorts', { query: { host: '127.0.0.1', ports: '0' }, headers }),
        400,
      );
    }
    const limited = await t.server.anonymous.call('scanPorts', { query: { host: '127.0.0.1' }, headers });
    expectStatus(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('mapBounded (the scan’s concurrency bound)', () => {
  it('runs at most `limit` at once and answers in the items’ order', async () => {
    let running = 0;
    let most = 0;
    const items = Array.from({ length: 25 }, (_, i) => i);
    const answers = await mapBounded(items, 8, async (item) => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, (item * 7) % 5));
      running--;
      return item * 2;
    });
    expect(most).toBe(8);
    expect(answers).toEqual(items.map((item) => item * 2));
  });
});

describe('when the server’s DNS resolver does not answer', () => {
  let dns: DnsFixture;
  beforeAll(async () => {
    dns = await startDnsServer();
    dns.silent.add('quiet.test');
  });
  afterAll(() => dns?.close());
  const quiet = useTestServer(
    () => ({
      config: { tools: { ...testConfig().tools, recursiveResolver: { address: dns.address, port: dns.port } } },
    }),
    false,
  );

  it('answers 502 for ping, port scan and traceroute of a name (not a 400 blaming the name)', async () => {
    const call = (id: 'pingHost' | 'scanPorts' | 'traceRoute') =>
      quiet.server.anonymous.call(id, { query: { host: 'quiet.test' }, headers: { 'x-forwarded-for': clientIp() } });
    const [pinged, scanned, traced] = await Promise.all([call('pingHost'), call('scanPorts'), call('traceRoute')]);
    expect(expectStatus(pinged, 502).error).toMatch(/resolver did not answer for quiet\.test/);
    expect(expectStatus(scanned, 502).error).toMatch(/quiet\.test/);
    expect(expectStatus(traced, 502).error).toMatch(/quiet\.test/);
  });
});
