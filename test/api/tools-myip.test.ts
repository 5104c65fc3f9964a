/**
 * /tools/myip: the caller's address as the trusted proxy (loopback in tests) names it in X-Forwarded-For,
 * its forward-confirmed reverse name and its Team Cymru registration, all answered by the DNS fixture as
 * the server's resolver. Callers get public-looking addresses of their own (8.0.0.0/8, 2a00::/12): the
 * header is all that is sent, no traffic goes to them.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MYIP_DNS_TIMEOUT_MS } from '../../server/modules/tools/myip.service';
import { type DnsFixture, startDnsServer } from '../fixtures/dns';
import { clientIp, inOneMinuteWindow } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { testConfig } from '../support/server';

let dns: DnsFixture;
beforeAll(async () => {
  dns = await startDnsServer();
});
afterAll(() => dns?.close());

const t = useTestServer(
  () => ({
    config: {
      tools: { ...testConfig().tools, recursiveResolver: { address: dns.address, port: dns.port } },
    },
  }),
  false,
);

const octets = () => [...randomBytes(3)];
/** A public IPv4 address of its own: 8.x.y.z, with its reverse name and Cymru origin name. */
function publicV4() {
  const [a, b, c] = octets();
  return {
    ip: `8.${a}.${b}.${c}`,
    arpa: `${c}.${b}.${a}.8.in-addr.arpa`,
    origin: `${c}.${b}.${a}.8.origin.asn.cymru.com`,
  };
}
/** A public IPv6 address in a /64 of its own (the per-IP limit counts /64s). */
function publicV6() {
  const hex = randomBytes(4).toString('hex');
  const group = (word: string) => word.replace(/^0+(?=.)/, '');
  const ip = `2a00:${group(hex.slice(0, 4))}:${group(hex.slice(4))}::7`;
  const nibbles = `7.${'0.'.repeat(19)}${[...hex].reverse().join('.')}.0.0.a.2`;
  return { ip, arpa: `${nibbles}.ip6.arpa` };
}

const myIp = (forwardedFor: string) =>
  t.server.anonymous.call('getMyIp', { headers: { 'x-forwarded-for': forwardedFor } });

describe('GET /tools/myip', () => {
  it('answers the client address the trusted proxy names, and nothing more when DNS knows nothing of it', async () => {
    const { ip } = publicV4();
    expect(expectStatus(await myIp(ip), 200)).toEqual({ ip });
  });

  it('answers the forward-confirmed reverse name as hostname', async () => {
    const { ip, arpa } = publicV4();
    const name = `host-${ip.replace(/\./g, '-')}.isp.test`;
    dns.records.push({ name: arpa, type: 'PTR', data: name }, { name, type: 'A', data: ip });
    expect(expectStatus(await myIp(ip), 200)).toEqual({ ip, hostname: name });
  });

  it('omits a reverse name that does not resolve back to the address', async () => {
    const { ip, arpa } = publicV4();
    dns.records.push(
      { name: arpa, type: 'PTR', data: 'mail.bank.test' },
      { name: 'mail.bank.test', type: 'A', data: '9.9.9.9' },
    );
    expect(expectStatus(await myIp(ip), 200)).not.toHaveProperty('hostname');
  });

  it('takes the first confirmed name of several PTR records', async () => {
    const { ip, arpa } = publicV4();
    dns.records.push(
      { name: arpa, type: 'PTR', data: 'spoofed.other.test' },
      { name: arpa, type: 'PTR', data: 'real.isp.test' },
      { name: 'real.isp.test', type: 'A', data: ip },
    );
    expect(expectStatus(await myIp(ip), 200).hostname).toBe('real.isp.test');
  });

  it('answers an IPv6 caller with its nibble-form reverse name', async () => {
    const { ip, arpa } = publicV6();
    dns.records.push({ name: arpa, type: 'PTR', data: 'v6.isp.test' }, { name: 'v6.isp.test', type: 'AAAA', data: ip });
    expect(expectStatus(await myIp(ip), 200)).toEqual({ ip, hostname: 'v6.isp.test' });
  });

  it('shows an IPv4-mapped IPv6 address as the IPv4 address', async () => {
    const { ip } = publicV4();
    expect(expectStatus(await myIp(`::ffff:${ip}`), 200)).toEqual({ ip });
  });

  it('answers country and network from Team Cymru’s data for the most specific prefix', async () => {
    const { ip, origin } = publicV4();
    dns.records.push(
      { name: origin, type: 'TXT', data: '3356 | 8.0.0.0/8 | US | arin | 1992-12-01' },
      { name: origin, type: 'TXT', data: '64500 64501 | 8.1.0.0/16 | de | ripencc | 2001-01-01' },
      {
        name: 'AS64500.asn.cymru.com',
        type: 'TXT',
        data: '64500 | DE | ripencc | 2001-01-01 | EXAMPLE-DC - Example Hosting GmbH, DE',
      },
    );
    expect(expectStatus(await myIp(ip), 200)).toEqual({
      ip,
      country: 'DE',
      datacenter: 'EXAMPLE-DC - Example Hosting GmbH, DE',
    });
  });

  it('omits a country that is not a two-letter code and strips control characters from the network name', async () => {
    const { ip, origin } = publicV4();
    dns.records.push(
      { name: origin, type: 'TXT', data: '64502 | 8.0.0.0/8 |  | arin | ' },
      { name: 'AS64502.asn.cymru.com', type: 'TXT', data: '64502 | US | arin | | NET\u0007\u001b[2J -\u202e Name' },
    );
    expect(expectStatus(await myIp(ip), 200)).toEqual({ ip, datacenter: 'NET[2J - Name' });
  });

  it('shows what the trusted proxy named as text when it is not an address', async () => {
    const name = `unknown-${randomBytes(4).toString('hex')}`;
    expect(expectStatus(await myIp(name), 200)).toEqual({ ip: name });
  });

  it('asks DNS nothing about a private address', async () => {
    const ip = clientIp();
    const asked = dns.questions.length;
    expect(expectStatus(await myIp(ip), 200)).toEqual({ ip });
    expect(dns.questions.length).toBe(asked);
  });

  it('answers the address alone when the resolver stays silent', async () => {
    const { ip, arpa, origin } = publicV4();
    dns.silent.add(arpa);
    dns.silent.add(origin);
    const started = Date.now();
    expect(expectStatus(await myIp(ip), 200)).toEqual({ ip });
    expect(Date.now() - started).toBeLessThan(2 * MYIP_DNS_TIMEOUT_MS + 1000);
  });

  it('answers 429 with Retry-After on the 11th lookup from one address in a minute', async () => {
    await inOneMinuteWindow();
    const ip = clientIp();
    for (let i = 0; i < 10; i++) expectStatus(await myIp(ip), 200);
    const limited = await myIp(ip);
    expect(expectStatus(limited, 429).error).toMatch(/10 network tool lookups/);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
