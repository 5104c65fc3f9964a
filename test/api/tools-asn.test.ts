/**
 * /tools/asn through HTTP: Team Cymru's zones (origin.asn.cymru.com, origin6.asn.cymru.com, asn.cymru.com,
 * names unchanged) served by the DNS fixture the server uses as its resolver, and RDAP on loopback
 * (test/fixtures/rdap.ts, the only address allowed outbound) for when Cymru does not answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsFixture, type Rcode, startDnsServer, type ZoneRecord } from '../fixtures/dns';
import { RDAP_AUTNUM_ARIN, RDAP_IP_ARIN, type RdapFixture, startRdapServer } from '../fixtures/rdap';
import { clientIp, inOneMinuteWindow } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { testConfig } from '../support/server';

const txt = (name: string, ...data: string[]): ZoneRecord[] => data.map((d) => ({ name, type: 'TXT', data: d }));

/** 2606:4700:4700::1111, nibble by nibble from the last. */
const CLOUDFLARE_V6 = `1.1.1.1.${'0.'.repeat(16)}0.0.7.4.0.0.7.4.6.0.6.2.origin6.asn.cymru.com`;

const CYMRU: ZoneRecord[] = [
  ...txt('1.1.1.1.origin.asn.cymru.com', '13335 | 1.1.1.0/24 | AU | apnic | 2011-08-11'),
  ...txt(CLOUDFLARE_V6, '13335 | 2606:4700::/32 | US | arin | 2011-11-01'),
  ...txt('AS13335.asn.cymru.com', '13335 | US | arin | 2010-07-14 | CLOUDFLARENET, US'),
  // Two announcements covering 8.8.8.8: the /24 is the more specific.
  ...txt(
    '8.8.8.8.origin.asn.cymru.com',
    '15169 | 8.0.0.0/12 | US | arin | 1992-12-01',
    '15169 | 8.8.8.0/24 | US | arin | 2023-12-28',
  ),
  ...txt('AS15169.asn.cymru.com', '15169 | US | arin | 2000-03-30 | GOOGLE, US'),
  // A prefix announced by two origin ASes.
  ...txt('31.108.90.216.origin.asn.cymru.com', '23028 701 | 216.90.108.0/24 | US | arin | 1998-09-25'),
  ...txt('AS23028.asn.cymru.com', '23028 | US | arin | 2002-01-04 | TEAMCYMRU, US'),
  // An origin whose AS has no record.
  ...txt('9.9.9.9.origin.asn.cymru.com', '19281 | 9.9.9.0/24 | US | arin | 2017-09-13'),
];

let dns: DnsFixture;
let rdap: RdapFixture;
beforeAll(async () => {
  dns = await startDnsServer(CYMRU);
  rdap = await startRdapServer({
    '/ip/8.8.4.4': { json: RDAP_IP_ARIN },
    '/autnum/15169': { json: RDAP_AUTNUM_ARIN },
    '/ip/1.2.3.4': { status: 500 },
    '/autnum/3333': { status: 503 },
  });
});
afterAll(async () => {
  await Promise.all([dns?.close(), rdap?.close()]);
});

const t = useTestServer(
  () => ({
    config: {
      outboundAllowCidrs: ['127.0.0.1/32'],
      tools: {
        ...testConfig().tools,
        recursiveResolver: { address: dns.address, port: dns.port },
        rdapUrl: rdap.origin,
      },
    },
  }),
  false,
);

const asn = (query: string, ip = clientIp()) =>
  t.server.anonymous.call('lookupAsn', { query: { query }, headers: { 'x-forwarded-for': ip } });

/** Runs `body` with these Cymru names answering `rcode`. */
async function withRcode<T>(names: string[], rcode: Rcode, body: () => Promise<T>): Promise<T> {
  for (const name of names) dns.rcodes.set(name.toLowerCase(), rcode);
  try {
    return await body();
  } finally {
    for (const name of names) dns.rcodes.delete(name.toLowerCase());
  }
}

describe('/tools/asn through Team Cymru', () => {
  it('an IPv4 address: its origin AS, prefix, country, registry and date, and the AS name', async () => {
    expect(expectStatus(await asn('1.1.1.1'), 200)).toEqual({
      query: '1.1.1.1',
      type: 'ip',
      asn: 13335,
      as_name: 'CLOUDFLARENET, US',
      prefix: '1.1.1.0/24',
      country: 'AU',
      rir: 'apnic',
      allocated: '2011-08-11',
    });
    expect(dns.questions.map((q) => `${q.name} ${q.type}`)).toEqual(
      expect.arrayContaining(['1.1.1.1.origin.asn.cymru.com TXT', 'as13335.asn.cymru.com TXT']),
    );
  });

  it('an IPv6 address: the 32 nibbles under origin6', async () => {
    expect(expectStatus(await asn('2606:4700:4700::1111'), 200)).toEqual({
      query: '2606:4700:4700::1111',
      type: 'ip',
      asn: 13335,
      as_name: 'CLOUDFLARENET, US',
      prefix: '2606:4700::/32',
      country: 'US',
      rir: 'arin',
      allocated: '2011-11-01',
    });
  });

  it.each(['AS13335', 'as13335', '13335'])('an AS number written %s', async (query) => {
    expect(expectStatus(await asn(query), 200)).toEqual({
      query,
      type: 'asn',
      asn: 13335,
      as_name: 'CLOUDFLARENET, US',
      prefix: null,
      country: 'US',
      rir: 'arin',
      allocated: '2010-07-14',
    });
  });

  it('of several announcements, the most specific prefix', async () => {
    const body = expectStatus(await asn('8.8.8.8'), 200);
    expect(body).toMatchObject({ asn: 15169, prefix: '8.8.8.0/24', allocated: '2023-12-28', as_name: 'GOOGLE, US' });
  });

  it('of several origin ASes of one prefix, the first listed', async () => {
    const body = expectStatus(await asn('216.90.108.31'), 200);
    expect(body).toMatchObject({ asn: 23028, as_name: 'TEAMCYMRU, US', prefix: '216.90.108.0/24' });
  });

  it('an AS without its own record: the name is null, the rest from the origin', async () => {
    const body = expectStatus(await asn('9.9.9.9'), 200);
    expect(body).toMatchObject({ asn: 19281, as_name: null, prefix: '9.9.9.0/24', country: 'US', rir: 'arin' });
  });

  it('an address nobody announces (NXDOMAIN): 404 not_found, RDAP not asked', async () => {
    const asked = rdap.requests.length;
    expect(expectStatus(await asn('5.5.5.5'), 404)).toEqual({
      code: 'not_found',
      error: 'no routing data for 5.5.5.5',
    });
    expect(rdap.requests.length).toBe(asked);
  });

  it('an AS number Cymru does not know (NXDOMAIN): 404 not_found naming it', async () => {
    expect(expectStatus(await asn('as4000'), 404)).toEqual({ code: 'not_found', error: 'no routing data for AS4000' });
  });
});

describe('/tools/asn falls back to RDAP when Cymru does not answer', () => {
  it('an address (SERVFAIL): the network and its origin AS from RDAP', async () => {
    const body = await withRcode(['4.4.8.8.origin.asn.cymru.com'], 'SERVFAIL', async () =>
      expectStatus(await asn('8.8.4.4'), 200),
    );
    expect(body).toEqual({
      query: '8.8.4.4',
      type: 'ip',
      asn: 15169,
      as_name: null,
      prefix: '8.8.4.0/24',
      country: null,
      rir: 'arin',
      allocated: '2023-12-28',
    });
    expect(rdap.requests.map((r) => r.path)).toContain('/ip/8.8.4.4');
  });

  it('an AS number (REFUSED): the autnum from RDAP', async () => {
    const body = await withRcode(['AS15169.asn.cymru.com'], 'REFUSED', async () =>
      expectStatus(await asn('AS15169'), 200),
    );
    expect(body).toEqual({
      query: 'AS15169',
      type: 'asn',
      asn: 15169,
      as_name: 'GOOGLE',
      prefix: null,
      country: null,
      rir: 'arin',
      allocated: '2000-03-30',
    });
  });

  it("RDAP's 404: 404 not_found", async () => {
    const body = await withRcode(['AS174.asn.cymru.com'], 'SERVFAIL', async () => expectStatus(await asn('174'), 404));
    expect(body).toEqual({ code: 'not_found', error: 'no routing data for AS174' });
  });

  it('502 when RDAP fails too (an address)', async () => {
    const body = await withRcode(['4.3.2.1.origin.asn.cymru.com'], 'SERVFAIL', async () =>
      expectStatus(await asn('1.2.3.4'), 502),
    );
    expect(body).toEqual({
      code: 'upstream_failed',
      error: "query: Team Cymru's DNS did not answer and RDAP failed (HTTP 500)",
    });
  });

  it('502 when RDAP fails too (an AS number)', async () => {
    const body = await withRcode(['AS3333.asn.cymru.com'], 'SERVFAIL', async () =>
      expectStatus(await asn('AS3333'), 502),
    );
    expect(body.code).toBe('upstream_failed');
  });
});

describe('/tools/asn refuses', () => {
  it.each([
    ['abc', /^query: must be an IP address or an AS number/],
    ['AS', /^query:/],
    ['10.1.2.3', /^query: 10\.1\.2\.3 is a private address/],
    ['127.0.0.1', /^query: 127\.0\.0\.1 is a loopback address/],
    ['2001:db8::1', /^query: 2001:db8::1 is a documentation address/],
    ['AS64512', /^query: AS64512 is for private use/],
    ['AS0', /^query: AS0 is reserved/],
    ['4294967296', /^query: AS4294967296 is beyond the largest AS number/],
  ])('%s with a 400 naming the query', async (query, message) => {
    const asked = dns.questions.length;
    const body = expectStatus(await asn(query), 400);
    expect(body.error).toMatch(message);
    expect(dns.questions.length).toBe(asked);
  });

  it('429 after 10 lookups a minute from one client', async () => {
    await inOneMinuteWindow();
    const ip = clientIp();
    for (let i = 0; i < 10; i++) expectStatus(await asn('abc', ip), 400);
    const limited = await asn('1.1.1.1', ip);
    expectStatus(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
