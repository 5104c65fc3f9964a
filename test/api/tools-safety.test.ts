/**
 * The SSRF refusal matrix of the network tools, through /tools/ping (every tool checks its targets with the
 * same `checkedTarget`): every refused class as an IP literal and behind a name, a name with one public and
 * one refused address, a name resolving to nothing, and OUTBOUND_ALLOW_CIDRS letting exactly its addresses
 * through. Refused targets are never contacted; the injected resolver answers names without DNS traffic.
 */
import { type AddressInfo, createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientIp } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import type { TestServer } from '../support/server';

/** Refused addresses and the reason the 400 gives. */
const REFUSED: [string, RegExp][] = [
  ['127.0.0.1', /loopback/],
  ['127.0.0.2', /loopback/],
  ['127.255.255.254', /loopback/],
  ['::1', /loopback/],
  ['10.0.0.1', /private/],
  ['172.16.0.1', /private/],
  ['172.31.255.254', /private/],
  ['192.168.1.1', /private/],
  ['169.254.0.1', /link-local/],
  ['fe80::1', /link-local/],
  ['169.254.169.254', /cloud metadata/],
  ['fd00:ec2::254', /cloud metadata/],
  ['100.64.0.1', /CGNAT/],
  ['224.0.0.1', /multicast/],
  ['ff02::1', /multicast/],
  ['255.255.255.255', /broadcast/],
  ['0.0.0.0', /unspecified/],
  ['::', /unspecified/],
  ['240.0.0.1', /reserved/],
  ['198.18.0.1', /benchmarking/],
  ['192.0.2.1', /documentation/],
  ['198.51.100.1', /documentation/],
  ['203.0.113.1', /documentation/],
  ['2001:db8::1', /documentation/],
  ['fc00::1', /unique-local/],
  ['fdff::1', /unique-local/],
  ['::ffff:127.0.0.1', /IPv4-mapped loopback/],
  ['::ffff:169.254.169.254', /IPv4-mapped cloud metadata/],
  ['2002:7f00:1::', /6to4 loopback/],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', /Teredo loopback/],
  ['64:ff9b::7f00:1', /NAT64 loopback/],
  ['64:ff9b::a00:1', /NAT64 private/],
];

/** Each refused address behind a name of its own: `refused-<n>.test`. */
const names = new Map<string, string[]>(REFUSED.map(([address], i) => [`refused-${i}.test`, [address]]));
names.set('mixed.test', ['93.184.215.14', '10.0.0.1']);
names.set('mixed-reverse.test', ['127.0.0.1', '2606:4700:4700::1111']);
names.set('empty.test', []);
names.set('allowed.test', ['127.0.0.1']);
names.set('allowed-and-other.test', ['127.0.0.1', '127.0.0.2']);
const resolveHost = async (host: string) => {
  if (host === 'broken.test') throw new Error('SERVFAIL');
  return names.get(host) ?? [];
};

/** Pings through `t`'s server, each request from a client address of its own (3 probes per minute per IP). */
const pingVia = (t: { server: TestServer }) => (host: string, port?: number) =>
  t.server.anonymous.call('pingHost', {
    query: port === undefined ? { host } : { host, port },
    headers: { 'x-forwarded-for': clientIp() },
  });

describe('with no allow list', () => {
  const t = useTestServer({ resolveHost }, false);
  const ping = pingVia(t);

  it.each(REFUSED)('refuses the literal %s with 400 naming host and the reason', async (address, reason) => {
    const { error } = expectStatus(await ping(address), 400);
    expect(error).toMatch(/^host: /);
    expect(error).toMatch(reason);
  });

  it.each(REFUSED.map(([address, reason], i) => [`refused-${i}.test`, address, reason] as const))(
    'refuses %s (resolving to %s) with 400 naming host and the reason',
    async (name, _address, reason) => {
      const { error } = expectStatus(await ping(name), 400);
      expect(error).toMatch(new RegExp(`^host: ${name.replace(/\./g, '\\.')} resolves to `));
      expect(error).toMatch(reason);
    },
  );

  it('refuses a name with one public and one refused address', async () => {
    expect(expectStatus(await ping('mixed.test'), 400).error).toMatch(
      /^host: mixed\.test resolves to 10\.0\.0\.1, .*private/,
    );
    expect(expectStatus(await ping('mixed-reverse.test'), 400).error).toMatch(/127\.0\.0\.1, .*loopback/);
  });

  it('refuses a name that resolves to nothing, or whose resolution fails, with 400', async () => {
    expect(expectStatus(await ping('empty.test'), 400).error).toMatch(/^host: empty\.test does not resolve/);
    expect(expectStatus(await ping('unknown.test'), 400).error).toMatch(/^host: unknown\.test does not resolve/);
    expect(expectStatus(await ping('broken.test'), 400).error).toMatch(/^host: broken\.test does not resolve/);
  });

  it('refuses a refused target on the port scan and the traceroute too', async () => {
    const headers = { 'x-forwarded-for': clientIp() };
    const scan = await t.server.anonymous.call('scanPorts', { query: { host: '169.254.169.254' }, headers });
    expect(expectStatus(scan, 400).error).toMatch(/^host: .*cloud metadata/);
    const trace = await t.server.anonymous.call('traceRoute', { query: { host: 'refused-0.test' }, headers });
    expect(expectStatus(trace, 400).error).toMatch(/^host: .*loopback/);
  });
});

describe('with OUTBOUND_ALLOW_CIDRS 127.0.0.1/32', () => {
  let listener: Server;
  let port: number;
  beforeAll(async () => {
    listener = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => listener?.close(resolve)));

  const t = useTestServer({ resolveHost, config: { outboundAllowCidrs: ['127.0.0.1/32'] } }, false);
  const ping = pingVia(t);

  it('lets exactly the allowed address through, as a literal and behind a name', async () => {
    expect(expectStatus(await ping('127.0.0.1', port), 200).results[0]?.open).toBe(true);
    expect(expectStatus(await ping('allowed.test', port), 200)).toMatchObject({ ip: '127.0.0.1' });
  });

  it('still refuses the rest of loopback and the allowed address’s IPv6 forms', async () => {
    expect(expectStatus(await ping('127.0.0.2', port), 400).error).toMatch(/^host: 127\.0\.0\.2 .*loopback/);
    expect(expectStatus(await ping('::ffff:127.0.0.1', port), 400).error).toMatch(/IPv4-mapped loopback/);
    expect(expectStatus(await ping('64:ff9b::7f00:1', port), 400).error).toMatch(/NAT64 loopback/);
  });

  it('refuses a name with the allowed address and a refused one', async () => {
    expect(expectStatus(await ping('allowed-and-other.test', port), 400).error).toMatch(/127\.0\.0\.2, .*loopback/);
  });
});
