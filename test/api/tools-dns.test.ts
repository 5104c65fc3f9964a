/**
 * /tools/dns, /tools/dns-propagation and /tools/rdns against DNS servers on loopback (test/fixtures/dns.ts):
 * eight "public resolvers" on 127.0.1.1-8 (the first three are /tools/dns's), the server's own resolver on
 * 127.0.0.1, and for `authoritative=true` two nameservers on port 53 of 127.53.0.1 (the only address allowed
 * outbound) and 127.53.0.2 (refused: it must never be asked). All of them share one "public" view of the
 * zones; the nameservers hold their own data, so an answer shows who gave it.
 */
import dgram from 'node:dgram';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ResolverConfig } from '../../server/config';
import { type DnsFixture, startDnsServer, type ZoneRecord } from '../fixtures/dns';
import { clientIp, inOneMinuteWindow } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { testConfig } from '../support/server';

const soa = (zone: string, minimum = 300): ZoneRecord => ({
  name: zone,
  type: 'SOA',
  ttl: 3600,
  data: {
    mname: `ns1.${zone}`,
    rname: `hostmaster.${zone}`,
    serial: 2024010101,
    refresh: 7200,
    retry: 3600,
    expire: 1209600,
    minimum,
  },
});
const ns = (zone: string, ...names: string[]): ZoneRecord[] =>
  names.map((data) => ({ name: zone, type: 'NS', ttl: 86400, data }));
const a = (name: string, data: string, ttl = 300): ZoneRecord => ({ name, type: 'A', ttl, data });
const aaaa = (name: string, data: string, ttl = 300): ZoneRecord => ({ name, type: 'AAAA', ttl, data });
const ptr = (name: string, data: string): ZoneRecord => ({ name, type: 'PTR', ttl: 3600, data });

/** 2001:4860:4860::8844 reversed nibble by nibble (the 16 zeros are its 4 zero groups). */
const V6_ARPA = `4.4.8.8.${'0.'.repeat(16)}0.6.8.4.0.6.8.4.1.0.0.2.ip6.arpa`;
const V6_ZONE = '0.6.8.4.1.0.0.2.ip6.arpa';

/** What every resolver (and the server's own) answers. */
const PUBLIC: ZoneRecord[] = [
  soa('example.test'),
  ...ns('example.test', 'ns1.example.test', 'ns2.example.test'),
  a('example.test', '93.184.215.14', 300),
  a('example.test', '93.184.215.15', 60),
  aaaa('example.test', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', 120),
  { name: 'example.test', type: 'MX', ttl: 900, data: { preference: 10, exchange: 'mail.example.test' } },
  { name: 'example.test', type: 'TXT', ttl: 600, data: ['v=spf1 ', '-all'] },
  { name: 'www.example.test', type: 'CNAME', ttl: 30, data: 'example.test' },
  { name: 'bell.example.test', type: 'TXT', data: '\u0007ring' },
  a('quiet.example.test', '93.184.215.20'),
  a('mute.example.test', '93.184.215.21'),
  a('big.example.test', '93.184.215.22'),
  a('broken.example.test', '93.184.215.23'),
  a('nodata.example.test', '93.184.215.24'),
  ...Array.from({ length: 150 }, (_, i) => a('many.example.test', `198.51.${100 + (i >> 8)}.${i & 255}`)),
  // authoritative=true: the zone's public view, and its nameservers (one allowed, one refused)
  soa('auth.test'),
  ...ns('auth.test', 'ns1.auth.test', 'ns2.auth.test'),
  a('auth.test', '192.0.2.1'),
  a('ns1.auth.test', '127.53.0.1'),
  a('ns2.auth.test', '127.53.0.2'),
  soa('private-ns.test'),
  ...ns('private-ns.test', 'ns.private-ns.test'),
  a('ns.private-ns.test', '10.1.2.3'),
  soa('lame.test'),
  ...ns('lame.test', 'ns.nowhere.test'),
  // Reverse zones
  soa('8.8.in-addr.arpa'),
  ...ns('8.8.in-addr.arpa', 'ns2.google.test', 'ns1.google.test'),
  ptr('4.4.8.8.in-addr.arpa', 'dns.google'),
  ptr('4.4.8.8.in-addr.arpa', 'stale.example.test'),
  a('dns.google', '8.8.4.4'),
  a('dns.google', '8.8.8.8'),
  a('stale.example.test', '93.184.215.99'),
  soa(V6_ZONE),
  ...ns(V6_ZONE, 'ns1.google.test'),
  ptr(V6_ARPA, 'dns6.google'),
  aaaa('dns6.google', '2001:4860:4860:0:0:0:0:8844'),
  ptr(V6_ARPA.replace('4.4.8.8.', '4.6.4.6.'), 'dns64.example.test'),
  aaaa('dns64.example.test', '2001:4860:4860::6465'),
  // RFC 2317 classless delegation: the PTR is reached through a CNAME
  soa('2.0.192.in-addr.arpa'),
  ...ns('2.0.192.in-addr.arpa', 'ns1.classless.test'),
  { name: '130.2.0.192.in-addr.arpa', type: 'CNAME', data: '130.128/26.2.0.192.in-addr.arpa' },
  ptr('130.128/26.2.0.192.in-addr.arpa', 'host.classless.test'),
  a('host.classless.test', '192.0.2.130'),
  soa('9.9.9.in-addr.arpa'),
  ...Array.from({ length: 12 }, (_, i) => ptr('9.9.9.9.in-addr.arpa', `name${i}.example.test`)),
];

/** What the zone's own nameserver answers (newer than the resolvers' view). */
const AUTHORITATIVE: ZoneRecord[] = [
  soa('auth.test'),
  ...ns('auth.test', 'ns1.auth.test'),
  a('auth.test', '198.51.100.7'),
];

let resolvers: DnsFixture[] = [];
const resolver = (i: number) => defined(resolvers[i], `resolver ${i + 1}`);
let own: DnsFixture;
let nameserver: DnsFixture | undefined;
let refusedNameserver: DnsFixture | undefined;
let port53Unavailable = '';

beforeAll(async () => {
  resolvers = await Promise.all(
    Array.from({ length: 8 }, (_, i) => startDnsServer(PUBLIC, { address: `127.0.1.${i + 1}` })),
  );
  own = await startDnsServer(PUBLIC);
  try {
    nameserver = await startDnsServer(AUTHORITATIVE, { address: '127.53.0.1', port: 53 });
    refusedNameserver = await startDnsServer(AUTHORITATIVE, { address: '127.53.0.2', port: 53 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EACCES') throw error;
    port53Unavailable = 'binding port 53 needs root (EACCES): the authoritative=true tests cannot run';
  }
});
afterAll(async () => {
  await Promise.all([...resolvers, own, nameserver, refusedNameserver].map((f) => f?.close()));
});

const resolverConfig = (fixture: DnsFixture, i: number): ResolverConfig => ({
  label: `Resolver ${i + 1}`,
  address: fixture.address,
  port: fixture.port,
  // The last one has no location in its configuration.
  ...(i < 7 ? { location: `City ${i + 1}, XX` } : {}),
});

const t = useTestServer(
  () => ({
    config: {
      outboundAllowCidrs: ['127.53.0.1/32'],
      tools: {
        ...testConfig().tools,
        dnsResolvers: resolvers.slice(0, 3).map(resolverConfig),
        propagationResolvers: resolvers.map(resolverConfig),
        recursiveResolver: { address: own.address, port: own.port },
      },
    },
  }),
  false,
);

type Query = Record<string, string>;
const dns = (query: Query, ip = clientIp()) =>
  t.server.anonymous.call('lookupDns', { query, headers: { 'x-forwarded-for': ip } });
const propagation = (query: Query, ip = clientIp()) =>
  t.server.anonymous.call('checkDnsPropagation', { query, headers: { 'x-forwarded-for': ip } });
const rdns = (query: Query, ip = clientIp()) =>
  t.server.anonymous.call('lookupReverseDns', { query, headers: { 'x-forwarded-for': ip } });

/** The records every resolver answered, asserting they all agree. */
const agreed = (results: { records: string[] }[]) => {
  expect(results).toHaveLength(3);
  const first = defined(results[0], 'the first resolver’s result');
  for (const result of results) expect(result.records).toEqual(first.records);
  return first.records;
};

/** The questions `fixture` receives while `action` runs. */
async function questionsDuring(fixture: DnsFixture, action: () => Promise<unknown>) {
  const before = fixture.questions.length;
  await action();
  return fixture.questions.slice(before);
}

describe('/tools/dns', () => {
  it.each([
    ['A', ['93.184.215.14', '93.184.215.15'], 60],
    ['AAAA', ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'], 120],
    ['MX', ['10 mail.example.test.'], 900],
    ['TXT', ['v=spf1 -all'], 600],
    ['NS', ['ns1.example.test.', 'ns2.example.test.'], 86400],
    ['SOA', ['ns1.example.test. hostmaster.example.test. 2024010101 7200 3600 1209600 300'], 3600],
  ])(
    'answers %s records in presentation form, with their smallest TTL, from each of 3 resolvers',
    async (type, records, ttl) => {
      const body = expectStatus(await dns({ domain: 'example.test', type }), 200);
      expect(body).toMatchObject({ domain: 'example.test', type });
      expect(body.results.map((r) => r.resolver)).toEqual(['127.0.1.1', '127.0.1.2', '127.0.1.3']);
      expect(agreed(body.results)).toEqual(records);
      for (const result of body.results) {
        expect(result.ttl).toBe(ttl);
        expect(result.response_time_ms).toBeGreaterThanOrEqual(0);
        expect(result.response_time_ms).toBeLessThan(1000);
      }
    },
  );

  it('answers a CNAME question with the alias’s target', async () => {
    const body = expectStatus(await dns({ domain: 'www.example.test', type: 'CNAME' }), 200);
    expect(agreed(body.results)).toEqual(['example.test.']);
    expect(body.results[0]?.ttl).toBe(30);
  });

  it('follows a CNAME to the records of the type asked, without the CNAME itself or its TTL', async () => {
    const body = expectStatus(await dns({ domain: 'www.example.test' }), 200);
    expect(body.type).toBe('A');
    expect(agreed(body.results)).toEqual(['93.184.215.14', '93.184.215.15']);
    expect(body.results[0]?.ttl).toBe(60);
  });

  it('asks each common type separately with all=true (never ANY), prefixing records with their type', async () => {
    let body: { type: string; results: { records: string[]; ttl: number | null }[] } | undefined;
    const asked = await questionsDuring(resolver(0), async () => {
      body = expectStatus(await dns({ domain: 'example.test', all: 'true' }), 200);
    });
    expect(asked.map((q) => q.type).sort()).toEqual(['A', 'AAAA', 'CNAME', 'MX', 'NS', 'SOA', 'TXT']);
    expect(asked.every((q) => q.name === 'example.test' && q.recursionDesired)).toBe(true);
    expect(body?.type).toBe('ALL');
    expect(new Set(agreed(body?.results ?? []))).toEqual(
      new Set([
        'A 93.184.215.14',
        'A 93.184.215.15',
        'AAAA 2606:2800:21f:cb07:6820:80da:af6b:8b2c',
        'MX 10 mail.example.test.',
        'TXT v=spf1 -all',
        'NS ns1.example.test.',
        'NS ns2.example.test.',
        'SOA ns1.example.test. hostmaster.example.test. 2024010101 7200 3600 1209600 300',
      ]),
    );
    expect(body?.results[0]?.ttl).toBe(60);
  });

  it('answers a name that does not exist with rcode NXDOMAIN, empty records and null ttl', async () => {
    const body = expectStatus(await dns({ domain: 'nothing.example.test', type: 'MX' }), 200);
    expect(body.results).toEqual(
      ['127.0.1.1', '127.0.1.2', '127.0.1.3'].map((resolver) => ({
        resolver,
        records: [],
        ttl: null,
        response_time_ms: expect.any(Number),
        rcode: 'NXDOMAIN',
      })),
    );
  });

  it('answers a name without records of the type (NODATA) with empty records and rcode NOERROR', async () => {
    const body = expectStatus(await dns({ domain: 'nodata.example.test', type: 'MX' }), 200);
    expect(agreed(body.results)).toEqual([]);
    expect(body.results[0]?.ttl).toBeNull();
    expect(body.results.map((r) => r.rcode)).toEqual(['NOERROR', 'NOERROR', 'NOERROR']);
  });

  it('reports NXDOMAIN with all=true for a name that does not exist', async () => {
    const body = expectStatus(await dns({ domain: 'nothing.example.test', all: 'true' }), 200);
    expect(body.results.map((r) => r.rcode)).toEqual(['NXDOMAIN', 'NXDOMAIN', 'NXDOMAIN']);
  });

  it('retries over TCP when the UDP answer is truncated', async () => {
    for (const resolver of resolvers.slice(0, 3)) resolver.truncate.add('big.example.test');
    const asked = await questionsDuring(resolver(0), async () => {
      const body = expectStatus(await dns({ domain: 'big.example.test' }), 200);
      expect(agreed(body.results)).toEqual(['93.184.215.22']);
    });
    expect(asked.map((q) => q.transport)).toEqual(['udp', 'tcp']);
  });

  it('counts a resolver answering SERVFAIL as an answer with no records, saying SERVFAIL', async () => {
    resolver(2).rcodes.set('broken.example.test', 'SERVFAIL');
    const body = expectStatus(await dns({ domain: 'broken.example.test' }), 200);
    expect(body.results.map((r) => r.records)).toEqual([['93.184.215.23'], ['93.184.215.23'], []]);
    expect(body.results.map((r) => r.rcode)).toEqual(['NOERROR', 'NOERROR', 'SERVFAIL']);
    expect(body.results[2]?.ttl).toBeNull();
    expect(body.results[2]?.response_time_ms).toBeLessThan(1000);
  });

  it('caps the records of a result at 100', async () => {
    const body = expectStatus(await dns({ domain: 'many.example.test' }), 200);
    for (const result of body.results) expect(result.records).toHaveLength(100);
  });

  it('writes control characters of remote data as \\DDD escapes', async () => {
    const body = expectStatus(await dns({ domain: 'bell.example.test', type: 'TXT' }), 200);
    expect(agreed(body.results)).toEqual(['\\007ring']);
  });

  // Each waits for the resolver timeout (2 s): run side by side.
  describe.concurrent('silent resolvers', () => {
    it('gives a silent resolver empty records, null ttl and rcode, and the time waited, while the others answer', async () => {
      resolver(1).silent.add('quiet.example.test');
      const body = expectStatus(await dns({ domain: 'quiet.example.test' }), 200);
      expect(body.results.map((r) => r.records)).toEqual([['93.184.215.20'], [], ['93.184.215.20']]);
      expect(body.results[1]).toMatchObject({ resolver: '127.0.1.2', ttl: null, rcode: null });
      expect(body.results[1]?.response_time_ms).toBeGreaterThanOrEqual(1900);
      expect(body.results[0]?.ttl).toBe(300);
    });

    it('answers 502 when no resolver answers', async () => {
      for (const resolver of resolvers.slice(0, 3)) resolver.silent.add('mute.example.test');
      const error = expectStatus(await dns({ domain: 'mute.example.test' }), 502);
      expect(error).toEqual({
        code: 'upstream_failed',
        error: 'none of the DNS resolvers answered for mute.example.test',
      });
    });
  });

  it.each([
    ['no domain', {}, /^domain: /],
    ['a domain with a space', { domain: 'exa mple.test' }, /^domain: /],
    ['a label of 64 characters', { domain: `${'a'.repeat(64)}.test` }, /^domain: /],
    ['type ANY', { domain: 'example.test', type: 'ANY' }, /^type: /],
    ['type PTR', { domain: 'example.test', type: 'PTR' }, /^type: /],
    ['all=yes', { domain: 'example.test', all: 'yes' }, /^all: /],
    ['an unknown parameter', { domain: 'example.test', recurse: 'true' }, /recurse/],
  ])('refuses %s (400)', async (_, query, message) => {
    const error = expectStatus(await dns(query), 400);
    expect(error.code).toBe('validation');
    expect(error.error).toMatch(message);
  });

  it('limits a client to 10 lookups a minute (429 with Retry-After)', async () => {
    await inOneMinuteWindow();
    const ip = clientIp();
    for (let i = 0; i < 10; i++) expectStatus(await dns({ domain: 'bad domain' }, ip), 400);
    const limited = await dns({ domain: 'example.test' }, ip);
    expectStatus(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('/tools/dns with authoritative=true', () => {
  it('asks the zone’s nameservers on port 53 without recursion, skipping one at a refused address', async (ctx) => {
    if (!nameserver || !refusedNameserver) return ctx.skip(port53Unavailable);
    const ownAsked = await questionsDuring(own, async () => {
      const body = expectStatus(await dns({ domain: 'auth.test', authoritative: 'true' }), 200);
      expect(body).toEqual({
        domain: 'auth.test',
        type: 'A',
        results: [
          {
            resolver: '127.53.0.1',
            records: ['198.51.100.7'],
            ttl: 300,
            response_time_ms: expect.any(Number),
            rcode: 'NOERROR',
          },
        ],
      });
    });
    expect(ownAsked.map((q) => `${q.type} ${q.name}`).sort()).toEqual(
      ['NS auth.test', 'A ns1.auth.test', 'AAAA ns1.auth.test', 'A ns2.auth.test', 'AAAA ns2.auth.test'].sort(),
    );
    expect(nameserver.questions.at(-1)).toEqual({
      name: 'auth.test',
      type: 'A',
      recursionDesired: false,
      transport: 'udp',
    });
    expect(refusedNameserver.questions).toEqual([]);
  });

  it('finds the zone of a name below it through the SOA of the negative answer', async (ctx) => {
    if (!nameserver) return ctx.skip(port53Unavailable);
    const ownAsked = await questionsDuring(own, async () => {
      const body = expectStatus(await dns({ domain: 'www.auth.test', type: 'MX', authoritative: 'true' }), 200);
      expect(body.results).toEqual([
        { resolver: '127.53.0.1', records: [], ttl: null, response_time_ms: expect.any(Number), rcode: 'NXDOMAIN' },
      ]);
    });
    expect(ownAsked.filter((q) => q.type === 'NS').map((q) => q.name)).toEqual(['www.auth.test', 'auth.test']);
  });

  it('asks every common type of the nameservers with all=true', async (ctx) => {
    if (!nameserver) return ctx.skip(port53Unavailable);
    const asked = await questionsDuring(nameserver, async () => {
      const body = expectStatus(await dns({ domain: 'auth.test', all: 'true', authoritative: 'true' }), 200);
      expect(body.results[0]?.records).toEqual(
        expect.arrayContaining([
          'A 198.51.100.7',
          'NS ns1.auth.test.',
          expect.stringMatching(/^SOA ns1\.auth\.test\. /),
        ]),
      );
    });
    expect(asked.map((q) => q.type).sort()).toEqual(['A', 'AAAA', 'CNAME', 'MX', 'NS', 'SOA', 'TXT']);
    expect(asked.some((q) => q.recursionDesired)).toBe(false);
  });

  it('refuses a zone whose nameservers all resolve to refused addresses (400), asking none', async () => {
    const error = expectStatus(await dns({ domain: 'private-ns.test', authoritative: 'true' }), 400);
    expect(error).toEqual({
      code: 'validation',
      error:
        'domain: no nameserver of private-ns.test may be asked (ns.private-ns.test resolves to 10.1.2.3, a private address)',
    });
  });

  it('refuses a name with no enclosing zone (400)', async () => {
    const error = expectStatus(await dns({ domain: 'nothing.invalid', authoritative: 'true' }), 400);
    expect(error.error).toBe('domain: no zone with nameservers was found for nothing.invalid');
  });

  it('answers 502 when no nameserver of the zone resolves', async () => {
    const error = expectStatus(await dns({ domain: 'lame.test', authoritative: 'true' }), 502);
    expect(error.error).toBe('none of the nameservers of lame.test resolves to an address');
  });
});

describe('/tools/dns-propagation', () => {
  it('asks the 8 resolvers, each result with its label and location', async () => {
    const body = expectStatus(await propagation({ domain: 'example.test', type: 'MX' }), 200);
    expect(body).toMatchObject({ domain: 'example.test', type: 'MX' });
    expect(body.results).toHaveLength(8);
    body.results.forEach((result, i) => {
      expect(result).toEqual({
        resolver: `127.0.1.${i + 1}`,
        label: `Resolver ${i + 1}`,
        location: i < 7 ? `City ${i + 1}, XX` : 'Unknown',
        records: ['10 mail.example.test.'],
        ttl: 900,
        response_time_ms: expect.any(Number),
        rcode: 'NOERROR',
      });
    });
  });

  it('shows a resolver that answers differently, with its rcode', async () => {
    resolver(5).rcodes.set('stale.example.test', 'NXDOMAIN');
    const body = expectStatus(await propagation({ domain: 'stale.example.test' }), 200);
    expect(body.results.map((r) => r.records.length)).toEqual([1, 1, 1, 1, 1, 0, 1, 1]);
    expect(body.results.map((r) => r.rcode)).toEqual([...Array(5).fill('NOERROR'), 'NXDOMAIN', 'NOERROR', 'NOERROR']);
  });

  it.each([
    ['no domain', {}, /^domain: /],
    ['type SRV', { domain: 'example.test', type: 'SRV' }, /^type: /],
    ['all=true (not a parameter of this route)', { domain: 'example.test', all: 'true' }, /all/],
  ])('refuses %s (400)', async (_, query, message) => {
    const error = expectStatus(await propagation(query), 400);
    expect(error.error).toMatch(message);
  });

  it('limits a client to 10 lookups a minute (429)', async () => {
    await inOneMinuteWindow();
    const ip = clientIp();
    for (let i = 0; i < 10; i++) expectStatus(await propagation({ domain: '-bad' }, ip), 400);
    expectStatus(await propagation({ domain: 'example.test' }, ip), 429);
  });
});

describe('/tools/rdns', () => {
  it('finds the PTR names of an IPv4 address, forward-confirms each, and the reverse zone’s nameservers', async () => {
    const body = expectStatus(await rdns({ ip: '8.8.4.4' }), 200);
    expect(body).toEqual({
      ip: '8.8.4.4',
      arpa_query: '4.4.8.8.in-addr.arpa',
      names: [
        { name: 'dns.google', fcrdns_valid: true },
        { name: 'stale.example.test', fcrdns_valid: false },
      ],
      authoritative_ns: ['ns1.google.test', 'ns2.google.test'],
    });
  });

  it('uses the nibble form for IPv6 and compares addresses as numbers, not text', async () => {
    const body = expectStatus(await rdns({ ip: '2001:4860:4860::8844' }), 200);
    expect(body).toEqual({
      ip: '2001:4860:4860::8844',
      arpa_query: V6_ARPA,
      names: [{ name: 'dns6.google', fcrdns_valid: true }],
      authoritative_ns: ['ns1.google.test'],
    });
  });

  it('does not confirm an IPv6 name whose AAAA is another address', async () => {
    const body = expectStatus(await rdns({ ip: '2001:4860:4860::6464' }), 200);
    expect(body.names).toEqual([{ name: 'dns64.example.test', fcrdns_valid: false }]);
  });

  it('follows a classless-delegation CNAME (RFC 2317) to the PTR', async () => {
    const body = expectStatus(await rdns({ ip: '192.0.2.130' }), 200);
    expect(body.names).toEqual([{ name: 'host.classless.test', fcrdns_valid: true }]);
    expect(body.authoritative_ns).toEqual(['ns1.classless.test']);
  });

  it('answers an address without PTR with no names, and still the reverse zone’s nameservers', async () => {
    const body = expectStatus(await rdns({ ip: '8.8.8.8' }), 200);
    expect(body).toMatchObject({ arpa_query: '8.8.8.8.in-addr.arpa', names: [] });
    expect(body.authoritative_ns).toEqual(['ns1.google.test', 'ns2.google.test']);
  });

  it('reports at most 10 names', async () => {
    const body = expectStatus(await rdns({ ip: '9.9.9.9' }), 200);
    expect(body.names).toHaveLength(10);
    expect(body.authoritative_ns).toEqual([]);
  });

  it('answers 502 when the resolver answers SERVFAIL for the PTR', async () => {
    own.rcodes.set('1.4.8.8.in-addr.arpa', 'SERVFAIL');
    const error = expectStatus(await rdns({ ip: '8.8.4.1' }), 502);
    expect(error.error).toBe('the DNS resolver answered SERVFAIL for PTR 1.4.8.8.in-addr.arpa');
  });

  it.each([
    ['no ip', {}],
    ['an address out of range', { ip: '256.1.1.1' }],
    ['a name', { ip: 'example.test' }],
    ['a CIDR', { ip: '8.8.8.0/24' }],
  ])('refuses %s (400)', async (_, query) => {
    const error = expectStatus(await rdns(query), 400);
    expect(error.error).toMatch(/^ip: /);
  });

  it('limits a client to 10 lookups a minute (429)', async () => {
    await inOneMinuteWindow();
    const ip = clientIp();
    for (let i = 0; i < 10; i++) expectStatus(await rdns({ ip: 'x' }, ip), 400);
    expectStatus(await rdns({ ip: '8.8.4.4' }, ip), 429);
  });
});

describe('when the resolvers are unreachable', () => {
  let closed: number;
  beforeAll(async () => {
    closed = await closedUdpPort();
  });
  const u = useTestServer(
    () => ({
      config: {
        outboundAllowCidrs: [],
        tools: {
          ...testConfig().tools,
          dnsResolvers: [1, 2, 3].map((i) => ({ label: `R${i}`, address: `127.0.2.${i}`, port: closed })),
          propagationResolvers: [1, 2].map((i) => ({ label: `R${i}`, address: `127.0.2.${i}`, port: closed })),
          recursiveResolver: { address: '127.0.2.9', port: closed },
        },
      },
    }),
    false,
  );
  const call = (id: 'lookupDns' | 'checkDnsPropagation' | 'lookupReverseDns', query: Query) =>
    u.server.anonymous.call(id, { query, headers: { 'x-forwarded-for': clientIp() } });

  it('answers 502 for a lookup', async () => {
    const error = expectStatus(await call('lookupDns', { domain: 'example.test' }), 502);
    expect(error.code).toBe('upstream_failed');
  });

  it('answers 502 for an authoritative lookup (the zone cannot be found)', async () => {
    const error = expectStatus(await call('lookupDns', { domain: 'example.test', authoritative: 'true' }), 502);
    expect(error.error).toBe('the DNS resolver did not answer for NS example.test');
  });

  it('answers 502 for a propagation check', async () => {
    const error = expectStatus(await call('checkDnsPropagation', { domain: 'example.test' }), 502);
    expect(error.error).toBe('none of the DNS resolvers answered for example.test');
  });

  it('answers 502 for a reverse lookup', async () => {
    const error = expectStatus(await call('lookupReverseDns', { ip: '8.8.8.8' }), 502);
    expect(error.error).toBe('the DNS resolver did not answer for PTR 8.8.8.8.in-addr.arpa');
  });
});

/** A UDP port on loopback with nothing behind it (ICMP unreachable: a refused question fails at once). */
async function closedUdpPort(): Promise<number> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const { port } = socket.address();
  await new Promise<void>((resolve) => socket.close(() => resolve()));
  return port;
}
