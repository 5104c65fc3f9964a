/**
 * /tools/ssl and /tools/http2 against TLS sites on loopback: a PKI made with openssl (root → intermediate →
 * leaves valid, expired and for another name), the root trusted through TOOLS_EXTRA_CA_FILE. The sites
 * listen on 127.0.0.2 (and ::1 when the machine has it); only those addresses are allowed, so every other
 * loopback address stays refused. Names resolve through an injected resolver; nothing leaves the machine.
 * Without the openssl program (not under CI) the tests of the two routes skip, saying so.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, type TestFunction } from 'vitest';
import { splitHostPort } from '../../contract/tools/queries';
import { formatIp, parseIp } from '../../server/ipam';
import { advertisesHttp3, distinguishedName, parseSubjectAltNames } from '../../server/modules/tools/tls.service';
import { type Site, startGarbageServer, startTlsSite } from '../fixtures/http-sites';
import { closedPort } from '../fixtures/receiver';
import { createPki, type Pki } from '../fixtures/tls';
import { clientIp, inOneMinuteWindow } from '../support/client';
import { useTestServer } from '../support/factories';
import { excuseStatuses, expectStatus } from '../support/observed';
import { missingProgram, skippedBecause } from '../support/programs';
import { testConfig } from '../support/server';

const noOpenssl = missingProgram('openssl');
excuseStatuses(noOpenssl, { checkSslCertificate: [200], checkHttp2Support: [200] });
/** A test of a site with a certificate from the PKI: skipped without openssl. */
const withPki = (title: string, test: TestFunction) =>
  it.skipIf(noOpenssl)(`${title}${skippedBecause(noOpenssl)}`, test);

const DAY = 86_400_000;
const NAMES: Record<string, string[]> = {
  'good.test': ['127.0.0.2'],
  'expired.test': ['127.0.0.2'],
  'wrong.test': ['127.0.0.2'],
  'refused.test': ['127.0.0.9'],
  'mixed.test': ['127.0.0.2', '10.0.0.1'],
};
const resolveHost = async (host: string) => NAMES[host.toLowerCase()] ?? [];

const f = {} as {
  pki: Pki;
  h2: Site;
  h1: Site;
  v6: Site | null;
  garbage: { hostPort: string; close(): Promise<void> };
  closed: number;
  /** The servers' clock: 12.5 days before the valid leaf ends. */
  now: Date;
};

beforeAll(async () => {
  f.garbage = await startGarbageServer();
  f.closed = await closedPort('127.0.0.2');
  if (noOpenssl) {
    f.now = new Date(); // the tests left need no particular time
    return;
  }
  f.pki = createPki();
  f.now = new Date(Date.parse(f.pki.valid.x509.validTo) - 12.5 * DAY);
  const byName = { 'expired.test': f.pki.expired, 'wrong.test': f.pki.wrongName };
  f.h2 = await startTlsSite({
    identity: f.pki.valid,
    byName,
    protocols: 'h2',
    routes: { '/': { headers: { 'alt-svc': 'h3=":443"; ma=86400, h3-29=":443"' } } },
  });
  f.h1 = await startTlsSite({
    identity: f.pki.valid,
    protocols: 'http/1.1',
    routes: { '/': { headers: { 'alt-svc': 'h2=":443"; ma=60' } } },
  });
  f.v6 = await startTlsSite({ identity: f.pki.valid, protocols: 'h2', address: '::1' }).catch(() => null);
});

afterAll(async () => {
  await Promise.all([f.h2?.close(), f.h1?.close(), f.v6?.close(), f.garbage?.close()]);
  f.pki?.close();
});

const serverOptions = (extraCa: string | undefined) => () => ({
  config: {
    outboundAllowCidrs: ['127.0.0.2/32', '::1/128'],
    tools: { ...testConfig().tools, extraCa },
  },
  resolveHost,
  now: () => f.now,
});

const t = useTestServer(serverOptions(undefined), false);
/** The same app trusting the test root. */
const trusting = useTestServer(() => serverOptions(f.pki && readFileSync(f.pki.caFile, 'utf8'))(), false);

const ssl = (host: string, server = trusting.server, ip = clientIp()) =>
  server.anonymous.call('checkSslCertificate', { query: { host }, headers: { 'x-forwarded-for': ip } });
const http2 = (host: string, ip = clientIp()) =>
  t.server.anonymous.call('checkHttp2Support', { query: { host }, headers: { 'x-forwarded-for': ip } });

describe('GET /tools/ssl', () => {
  withPki('reports a chain through the intermediate to the trusted root as valid, leaf first', async () => {
    const body = expectStatus(await ssl(`good.test:${f.h2.port}`), 200);
    expect(body).toMatchObject({ host: `good.test:${f.h2.port}`, tls_version: 'TLSv1.3', chain_valid: true });
    expect(body.cipher_suite).toMatch(/^TLS_/);
    expect(body.certificates.map((c) => [c.subject, c.issuer])).toEqual([
      ['CN=good.test', 'CN=Tools Test Intermediate CA, O=IPAM Tests'],
      ['CN=Tools Test Intermediate CA, O=IPAM Tests', 'CN=Tools Test Root CA, O=IPAM Tests'],
      ['CN=Tools Test Root CA, O=IPAM Tests', 'CN=Tools Test Root CA, O=IPAM Tests'],
    ]);
    await expect.poll(() => f.h2.handshakes.at(-1)?.servername).toBe('good.test');
  });

  withPki('describes the leaf: names, validity window and days left by the server’s clock', async () => {
    const [leaf] = expectStatus(await ssl(`good.test:${f.h2.port}`), 200).certificates;
    expect(leaf).toEqual({
      subject: 'CN=good.test',
      issuer: 'CN=Tools Test Intermediate CA, O=IPAM Tests',
      sans: ['good.test', '127.0.0.2', '::1'],
      not_before: new Date(f.pki.valid.x509.validFrom).toISOString(),
      not_after: new Date(f.pki.valid.x509.validTo).toISOString(),
      days_remaining: 12,
      is_expired: false,
    });
  });

  withPki('reports the same chain as invalid when the root is not trusted (no extra CA file)', async () => {
    const body = expectStatus(await ssl(`good.test:${f.h2.port}`, t.server), 200);
    expect(body.chain_valid).toBe(false);
    expect(body.certificates.map((c) => c.subject)).toEqual([
      'CN=good.test',
      'CN=Tools Test Intermediate CA, O=IPAM Tests',
    ]);
  });

  withPki('reports an expired leaf as expired and the chain as invalid', async () => {
    const body = expectStatus(await ssl(`expired.test:${f.h2.port}`), 200);
    expect(body.chain_valid).toBe(false);
    expect(body.certificates[0]).toMatchObject({ subject: 'CN=expired.test', is_expired: true });
    expect(body.certificates[0]?.days_remaining).toBeLessThan(0);
    expect(body.certificates[1]?.is_expired).toBe(false);
  });

  withPki('reports a certificate for another name as an invalid chain', async () => {
    const body = expectStatus(await ssl(`wrong.test:${f.h2.port}`), 200);
    expect(body.chain_valid).toBe(false);
    expect(body.certificates[0]).toMatchObject({ subject: 'CN=other.test', sans: ['other.test'], is_expired: false });
  });

  withPki('checks an IPv4 literal against the certificate’s IP names, sending no SNI', async () => {
    const body = expectStatus(await ssl(f.h2.hostPort), 200);
    expect(body).toMatchObject({ host: f.h2.hostPort, chain_valid: true });
    await expect.poll(() => f.h2.handshakes.at(-1)?.servername).toBe(false);
  });

  withPki('connects to an IPv6 literal given as [::1]:port', async (context) => {
    if (!f.v6) return context.skip();
    const body = expectStatus(await ssl(f.v6.hostPort), 200);
    expect(body).toMatchObject({ host: f.v6.hostPort, chain_valid: true });
    await expect.poll(() => f.v6?.handshakes.length).toBe(1);
  });

  it.each([
    ['port 0', 'good.test:0', 'port must be a number from 1 to 65535'],
    ['port 65536', 'good.test:65536', 'port must be a number from 1 to 65535'],
    ['an empty port', 'good.test:', 'port must be a number from 1 to 65535'],
    ['a port that is not a number', 'good.test:https', 'port must be a number from 1 to 65535'],
    ['two ports', 'good.test:443:444', 'must be a hostname or IP address'],
    ['a bracketed name', '[good.test]:443', 'must be a hostname or IP address'],
    ['an IPv6 address and port without brackets', '::1:443:x', 'must be a hostname or IP address'],
    ['a space in the name', 'good test', 'must be a hostname or IP address'],
  ])('refuses %s with a 400 naming host', async (_, host, problem) => {
    const body = expectStatus(await ssl(host), 400);
    expect(body.error).toContain(`host: ${problem}`);
  });

  it.each([
    ['a name resolving to a refused address', 'refused.test', '127.0.0.9'],
    ['a name with one refused address among allowed ones', 'mixed.test:443', '10.0.0.1'],
    ['a loopback address outside the allow-list', '127.0.0.1:443', '127.0.0.1'],
    ['an IPv4-mapped form of loopback', '[::ffff:127.0.0.2]:443', '::ffff:127.0.0.2'],
  ])('refuses %s with a 400 before connecting', async (_, host, address) => {
    const body = expectStatus(await ssl(host), 400);
    expect(body.error).toMatch(/^host: /);
    expect(body.error).toContain(address);
  });

  it('refuses a name that resolves to nothing with a 400', async () => {
    const body = expectStatus(await ssl('nowhere.test'), 400);
    expect(body.error).toContain('does not resolve');
  });

  it('answers 502 when nothing listens on the port', async () => {
    const body = expectStatus(await ssl(`good.test:${f.closed}`), 502);
    expect(body.error).toBe(`host: cannot connect to port ${f.closed}: connection refused`);
  });

  it('answers 502 when the host does not speak TLS, without echoing what it sent', async () => {
    const body = expectStatus(await ssl(f.garbage.hostPort), 502);
    expect(body.error).toMatch(/^host: TLS handshake failed: /);
    expect(body.error).not.toContain('not TLS');
  });

  it('limits lookups per client IP: the 11th in a minute is a 429', async () => {
    await inOneMinuteWindow();
    const ip = clientIp();
    for (let i = 0; i < 10; i++) expectStatus(await ssl('bad:0', trusting.server, ip), 400);
    const limited = await ssl('bad:0', trusting.server, ip);
    expectStatus(limited, 429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('GET /tools/http2', () => {
  withPki('finds HTTP/2 and HTTP/1.1 offered and HTTP/3 advertised on an h2 site', async () => {
    const before = f.h2.handshakes.length;
    const body = expectStatus(await http2(`good.test:${f.h2.port}`), 200);
    expect(body).toEqual({
      host: `good.test:${f.h2.port}`,
      http11: true,
      http2: true,
      http3_advertised: true,
      alpn_negotiated: 'h2',
      tls_version: 'TLSv1.3',
    });
    // The GET went over HTTP/2; a second handshake offered only http/1.1.
    expect(f.h2.requests.at(-1)).toMatchObject({ method: 'GET', path: '/', httpVersion: '2.0' });
    await expect
      .poll(() => f.h2.handshakes.slice(before))
      .toEqual([
        { servername: 'good.test', alpn: 'h2' },
        { servername: 'good.test', alpn: 'http/1.1' },
      ]);
  });

  withPki('finds only HTTP/1.1 on a site without h2, and no HTTP/3 in an Alt-Svc without h3', async () => {
    const body = expectStatus(await http2(f.h1.hostPort), 200);
    expect(body).toEqual({
      host: f.h1.hostPort,
      http11: true,
      http2: false,
      http3_advertised: false,
      alpn_negotiated: 'http/1.1',
      tls_version: 'TLSv1.3',
    });
    expect(f.h1.requests.at(-1)).toMatchObject({ method: 'GET', path: '/', httpVersion: '1.1' });
  });

  it('reports a host that accepts the connection but not TLS as offering nothing', async () => {
    const body = expectStatus(await http2(f.garbage.hostPort), 200);
    expect(body).toEqual({
      host: f.garbage.hostPort,
      http11: false,
      http2: false,
      http3_advertised: false,
      alpn_negotiated: null,
      tls_version: null,
    });
  });

  it('answers 502 when nothing listens on the port', async () => {
    const body = expectStatus(await http2(`127.0.0.2:${f.closed}`), 502);
    expect(body.error).toContain('connection refused');
  });

  it('refuses a refused target with a 400 and a malformed port with a 400', async () => {
    expect(expectStatus(await http2('refused.test:8443'), 400).error).toContain('127.0.0.9');
    expect(expectStatus(await http2('good.test:99999'), 400).error).toBe('host: port must be a number from 1 to 65535');
  });

  it('limits lookups per client IP: the 11th in a minute is a 429', async () => {
    await inOneMinuteWindow();
    const ip = clientIp();
    for (let i = 0; i < 10; i++) expectStatus(await http2('bad:0', ip), 400);
    expectStatus(await http2('bad:0', ip), 429);
  });
});

/** The usual short form of an IPv6 address given as its 8 groups. */
const compressed = (groups: number[]) => {
  const ip = parseIp(groups.map((g) => g.toString(16)).join(':'));
  if (!ip) throw new Error('not an IPv6 address');
  return formatIp(ip);
};

describe('host:port parsing (pure)', () => {
  const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,10}[a-z0-9])?$/);
  const hostname = fc.array(label, { minLength: 1, maxLength: 4 }).map((labels) => labels.join('.'));
  const ipv4 = fc.ipV4();
  // Full and compressed forms (the contract's IPv6 check does not take every embedded-IPv4 spelling).
  const ipv6 = fc
    .array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 })
    .chain((groups) => fc.constantFrom(groups.map((g) => g.toString(16)).join(':'), compressed(groups)));

  it('splits any host, IPv4 or bracketed IPv6 with a valid port back into its parts', () => {
    fc.assert(
      fc.property(
        fc.oneof(hostname, ipv4, ipv6),
        fc.integer({ min: 1, max: 65535 }),
        fc.boolean(),
        (host, port, withPort) => {
          const shown = host.includes(':') ? `[${host}]` : host;
          const text = withPort ? `${shown}:${port}` : host;
          expect(splitHostPort(text, 443)).toEqual({ host, port: withPort ? port : 443 });
        },
      ),
    );
  });

  it('refuses every port outside 1 to 65535', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          hostname,
          ipv4,
          ipv6.map((ip) => `[${ip}]`),
        ),
        fc.oneof(fc.constant(0), fc.integer({ min: 65536, max: 10_000_000 })),
        (host, port) => {
          expect(splitHostPort(`${host}:${port}`, 443)).toHaveProperty('problem');
        },
      ),
    );
  });
});

describe('certificate and Alt-Svc parsing (pure)', () => {
  it('reads DNS names and IP addresses from Node’s subjectaltname text, quoted values included', () => {
    expect(
      parseSubjectAltNames(
        'DNS:a.example, IP Address:0:0:0:0:0:0:0:1, email:x@example.com, DNS:"b,\\u0000c.example", IP Address:10.0.0.1',
      ),
    ).toEqual(['a.example', '::1', 'b, c.example', '10.0.0.1']);
    expect(parseSubjectAltNames(undefined)).toEqual([]);
  });

  it('writes a distinguished name attribute by attribute, repeated ones each', () => {
    expect(distinguishedName({ CN: 'x', OU: ['a', 'b'], O: 'Org' })).toBe('CN=x, OU=a, OU=b, O=Org');
  });

  it.each([
    ['h3=":443"; ma=86400', true],
    ['h2=":443", h3-29=":443"', true],
    ['H3=":443"', true],
    ['h2=":443"; ma=60', false],
    ['clear', false],
    ['h3x=":443"', false],
  ])('Alt-Svc %s advertises HTTP/3: %s', (value, expected) => {
    expect(advertisesHttp3(value)).toBe(expected);
  });
});
