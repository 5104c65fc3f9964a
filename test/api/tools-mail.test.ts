/**
 * /tools/spf and /tools/dmarc through HTTP, the server's own resolver being a DNS server on loopback
 * (test/fixtures/dns.ts) that holds every zone asked about: the RFC 7208 edge cases (lookup and void
 * limits counted through nested includes, loops, several records, MX targets) and the DMARC tags.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsFixture, startDnsServer, type ZoneRecord } from '../fixtures/dns';
import { clientIp, inOneMinuteWindow } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { testConfig } from '../support/server';

const txt = (name: string, data: string): ZoneRecord => ({ name, type: 'TXT', data });
const a = (name: string, data = '192.0.2.10'): ZoneRecord => ({ name, type: 'A', data });
const mx = (name: string, exchange: string, preference = 10): ZoneRecord => ({
  name,
  type: 'MX',
  data: { preference, exchange },
});

/** `n` a-mechanisms on names that exist, so each costs one lookup and no void lookup. */
const aTerms = (n: number) => Array.from({ length: n }, (_, i) => `a:h${i}.hosts.test`).join(' ');

const ZONES: ZoneRecord[] = [
  ...Array.from({ length: 10 }, (_, i) => a(`h${i}.hosts.test`)),
  // A simple valid record, next to a TXT record that is not SPF.
  txt('simple.test', 'v=spf1 ip4:192.0.2.0/24 include:_spf.simple.test mx -all'),
  txt('simple.test', 'google-site-verification=abc123'),
  txt('_spf.simple.test', 'v=spf1 ip6:2001:db8::/32 ~all'),
  mx('simple.test', 'mail.simple.test'),
  a('mail.simple.test'),
  // Two SPF records.
  txt('multiple.test', 'v=spf1 -all'),
  txt('multiple.test', 'v=spf1 ip4:192.0.2.1 -all'),
  // 11 lookups: 1 include + (1 include + 4 a) + (5 a), nested two deep.
  txt('over.test', 'v=spf1 include:one.over.test -all'),
  txt('one.over.test', `v=spf1 include:two.over.test ${aTerms(4)} -all`),
  txt('two.over.test', `v=spf1 ${aTerms(5)} -all`),
  // Exactly 10: the same with one a fewer.
  txt('ten.test', 'v=spf1 include:one.ten.test -all'),
  txt('one.ten.test', `v=spf1 include:two.ten.test ${aTerms(4)} -all`),
  txt('two.ten.test', `v=spf1 ${aTerms(4)} -all`),
  // Void lookups: names that do not exist.
  txt('void3.test', 'v=spf1 a:nx1.void.test mx:nx2.void.test exists:nx3.void.test -all'),
  txt('void2.test', 'v=spf1 a:nx1.void.test mx:nx2.void.test -all'),
  // A loop through two includes.
  txt('loop-a.test', 'v=spf1 include:loop-b.test -all'),
  txt('loop-b.test', 'v=spf1 include:loop-a.test -all'),
  // Redirects, followed and ignored.
  txt('redirect.test', 'v=spf1 redirect=_spf.redirect.test'),
  txt('_spf.redirect.test', 'v=spf1 a:h0.hosts.test -all'),
  txt('redirect-all.test', 'v=spf1 ip4:192.0.2.1 redirect=_spf.redirect.test -all'),
  txt('ptr.test', 'v=spf1 ptr -all'),
  txt('plusall.test', 'v=spf1 +all'),
  txt('badip.test', 'v=spf1 ip4:300.1.1.1 -all'),
  txt('nospf.test', 'some other text'),
  // 11 MX records for one mx mechanism.
  txt('mxcap.test', 'v=spf1 mx -all'),
  ...Array.from({ length: 11 }, (_, i) => mx('mxcap.test', `mx${i}.mxcap.test`, i)),

  // DMARC
  txt(
    '_dmarc.good.test',
    'v=DMARC1; p=reject; sp=quarantine; rua=mailto:dmarc@good.test!10m; ruf=mailto:forensic@good.test; ' +
      'adkim=s; aspf=r; pct=100; fo=0:d; ri=86400; rf=afrf',
  ),
  txt('_dmarc.good.test', 'not a dmarc record'),
  txt('_dmarc.example.co.uk', 'v=DMARC1; p=quarantine; sp=reject; rua=mailto:reports@example.co.uk'),
  txt('_dmarc.parent.test', 'v=DMARC1; p=reject; rua=mailto:d@parent.test'),
  txt('_dmarc.badp.test', 'v=DMARC1; p=block; rua=mailto:d@badp.test'),
  txt('_dmarc.pct.test', 'v=DMARC1; p=reject; pct=150; rua=mailto:d@pct.test'),
  txt('_dmarc.pct50.test', 'v=DMARC1; p=reject; pct=50; rua=mailto:d@pct50.test'),
  txt('_dmarc.badrua.test', 'v=DMARC1; p=reject; rua=dmarc@badrua.test'),
  txt('_dmarc.external.test', 'v=DMARC1; p=reject; rua=mailto:d@reports.example.net'),
  txt('_dmarc.twice.test', 'v=DMARC1; p=reject; rua=mailto:d@twice.test'),
  txt('_dmarc.twice.test', 'v=DMARC1; p=none; rua=mailto:d@twice.test'),
  txt('_dmarc.unknown.test', 'v=DMARC1; p=reject; rua=mailto:d@unknown.test; foo=bar'),
  txt('_dmarc.dup.test', 'v=DMARC1; p=reject; p=none; rua=mailto:d@dup.test'),
  txt('_dmarc.monitor.test', 'v=DMARC1; p=none; rua=mailto:d@monitor.test'),
];

let dns: DnsFixture;
beforeAll(async () => {
  dns = await startDnsServer(ZONES);
});
afterAll(() => dns?.close());

const t = useTestServer(
  () => ({
    config: { tools: { ...testConfig().tools, recursiveResolver: { address: dns.address, port: dns.port } } },
  }),
  false,
);

const spf = async (domain: string) =>
  t.server.anonymous.call('checkSpfRecord', { query: { domain }, headers: { 'x-forwarded-for': clientIp() } });
const dmarc = async (domain: string) =>
  t.server.anonymous.call('checkDmarcRecord', { query: { domain }, headers: { 'x-forwarded-for': clientIp() } });
const matching = (pattern: RegExp) => expect.arrayContaining([expect.stringMatching(pattern)]);

describe('/tools/spf', () => {
  it('parses a valid record, counting the include and the mx', async () => {
    const body = expectStatus(await spf('Simple.test.'), 200);
    expect(body).toEqual({
      domain: 'simple.test',
      found: true,
      valid: true,
      raw: 'v=spf1 ip4:192.0.2.0/24 include:_spf.simple.test mx -all',
      mechanisms: [
        { qualifier: '+', mechanism: 'ip4', value: '192.0.2.0/24' },
        { qualifier: '+', mechanism: 'include', value: '_spf.simple.test' },
        { qualifier: '+', mechanism: 'mx', value: null },
        { qualifier: '-', mechanism: 'all', value: null },
      ],
      dns_lookup_count: 2,
      dns_lookup_limit: 10,
      warnings: [],
      errors: [],
    });
  });

  it('answers found: false for a domain without an SPF record, and for one that does not exist', async () => {
    for (const domain of ['nospf.test', 'nowhere.test']) {
      const body = expectStatus(await spf(domain), 200);
      expect(body).toMatchObject({
        domain,
        found: false,
        valid: false,
        raw: null,
        mechanisms: [],
        dns_lookup_count: 0,
      });
    }
  });

  it('reports several SPF records as an error', async () => {
    const body = expectStatus(await spf('multiple.test'), 200);
    expect(body.found).toBe(true);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual(matching(/multiple SPF records \(2\)/));
  });

  it('counts lookups through nested includes: 11 is over the limit', async () => {
    const body = expectStatus(await spf('over.test'), 200);
    expect(body.dns_lookup_count).toBe(11);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual(matching(/too many DNS lookups: 11 counted, over the limit of 10/));
  });

  it('accepts exactly 10 lookups', async () => {
    const body = expectStatus(await spf('ten.test'), 200);
    expect(body.dns_lookup_count).toBe(10);
    expect(body.errors).toEqual([]);
    expect(body.valid).toBe(true);
  });

  it('reports 3 void lookups as an error', async () => {
    const body = expectStatus(await spf('void3.test'), 200);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual(matching(/too many void lookups: 3, over the limit of 2/));
  });

  it('accepts 2 void lookups', async () => {
    const body = expectStatus(await spf('void2.test'), 200);
    expect(body.errors).toEqual([]);
    expect(body.valid).toBe(true);
  });

  it('detects an include loop', async () => {
    const body = expectStatus(await spf('loop-a.test'), 200);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual(matching(/include loop: loop-a\.test → loop-b\.test → loop-a\.test/));
  });

  it('follows a redirect and counts it', async () => {
    const body = expectStatus(await spf('redirect.test'), 200);
    expect(body.mechanisms).toEqual([{ qualifier: '+', mechanism: 'redirect', value: '_spf.redirect.test' }]);
    expect(body.dns_lookup_count).toBe(2);
    expect(body.valid).toBe(true);
  });

  it('ignores a redirect beside an all mechanism, with a warning', async () => {
    const body = expectStatus(await spf('redirect-all.test'), 200);
    expect(body.dns_lookup_count).toBe(0);
    expect(body.warnings).toEqual(matching(/redirect is ignored/));
  });

  it('warns about the deprecated ptr mechanism and counts it', async () => {
    const body = expectStatus(await spf('ptr.test'), 200);
    expect(body.valid).toBe(true);
    expect(body.dns_lookup_count).toBe(1);
    expect(body.warnings).toEqual(matching(/ptr is deprecated/));
  });

  it('warns about +all', async () => {
    const body = expectStatus(await spf('plusall.test'), 200);
    expect(body.mechanisms).toEqual([{ qualifier: '+', mechanism: 'all', value: null }]);
    expect(body.warnings).toEqual(matching(/\+all passes mail from any server/));
  });

  it('reports an invalid ip4 network as an error', async () => {
    const body = expectStatus(await spf('badip.test'), 200);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual(matching(/ip4:300\.1\.1\.1: not a valid IPv4 address/));
  });

  it('reports an mx mechanism with more than 10 MX records as an error', async () => {
    const body = expectStatus(await spf('mxcap.test'), 200);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual(matching(/mx:mxcap\.test has 11 MX records, over the limit of 10/));
  });

  it('answers 400 naming the field for a domain that is not one', async () => {
    const body = expectStatus(await spf('not a domain!'), 400);
    expect(body.error).toMatch(/domain/);
  });

  it('answers 429 past 10 lookups a minute from one IP', async () => {
    await inOneMinuteWindow();
    const headers = { 'x-forwarded-for': clientIp() };
    for (let i = 0; i < 10; i++) await t.server.anonymous.call('checkSpfRecord', { query: { domain: '-' }, headers });
    const response = await t.server.anonymous.call('checkSpfRecord', { query: { domain: 'simple.test' }, headers });
    expect(expectStatus(response, 429).code).toBe('rate_limited');
  });
});

describe('/tools/dmarc', () => {
  it('parses a valid record with every tag, ignoring TXT records that are not DMARC', async () => {
    const body = expectStatus(await dmarc('good.test'), 200);
    expect(body).toMatchObject({
      domain: 'good.test',
      found: true,
      valid: true,
      policy: 'reject',
      subdomain_policy: 'quarantine',
      tags: {
        v: 'DMARC1',
        p: 'reject',
        sp: 'quarantine',
        rua: 'mailto:dmarc@good.test!10m',
        ruf: 'mailto:forensic@good.test',
        adkim: 's',
        aspf: 'r',
        pct: '100',
        fo: '0:d',
        ri: '86400',
        rf: 'afrf',
      },
      warnings: [],
      errors: [],
    });
    expect(body.raw).toMatch(/^v=DMARC1; p=reject;/);
  });

  it('answers found: false when neither the domain nor its organisational domain has a record', async () => {
    const body = expectStatus(await dmarc('mail.nodmarc.test'), 200);
    expect(body).toEqual({
      domain: 'mail.nodmarc.test',
      found: false,
      valid: false,
      policy: null,
      subdomain_policy: null,
      raw: null,
      tags: {},
      warnings: [],
      errors: [],
    });
  });

  it('falls back to the organisational domain (two labels)', async () => {
    const body = expectStatus(await dmarc('a.b.parent.test'), 200);
    expect(body).toMatchObject({ found: true, valid: true, policy: 'reject', subdomain_policy: 'reject' });
    expect(body.warnings).toEqual(matching(/no DMARC record at _dmarc\.a\.b\.parent\.test: .* parent\.test applies/));
  });

  it('falls back to the organisational domain under a multi-label public suffix (co.uk)', async () => {
    const body = expectStatus(await dmarc('shop.example.co.uk'), 200);
    expect(body).toMatchObject({ found: true, policy: 'quarantine', subdomain_policy: 'reject' });
    expect(body.warnings).toEqual(
      matching(/organisational domain example\.co\.uk applies, with its subdomain policy \(reject\)/),
    );
  });

  it('reports an invalid p as an error', async () => {
    const body = expectStatus(await dmarc('badp.test'), 200);
    expect(body).toMatchObject({ found: true, valid: false, policy: null });
    expect(body.errors).toEqual(matching(/^p=block: must be one of none, quarantine, reject/));
  });

  it('reports pct out of range as an error, and pct below 100 as a warning', async () => {
    const over = expectStatus(await dmarc('pct.test'), 200);
    expect(over.valid).toBe(false);
    expect(over.errors).toEqual(matching(/^pct=150: must be an integer from 0 to 100/));
    const half = expectStatus(await dmarc('pct50.test'), 200);
    expect(half.valid).toBe(true);
    expect(half.warnings).toEqual(matching(/pct=50/));
  });

  it('reports a rua that is not a URI as an error', async () => {
    const body = expectStatus(await dmarc('badrua.test'), 200);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual(matching(/^rua=dmarc@badrua\.test: "dmarc@badrua\.test" is not a URI/));
  });

  it('warns that an external report destination must authorise the reports', async () => {
    const body = expectStatus(await dmarc('external.test'), 200);
    expect(body.valid).toBe(true);
    expect(body.warnings).toEqual(matching(/external\.test\._report\._dmarc\.reports\.example\.net/));
  });

  it('reports several records as an error', async () => {
    const body = expectStatus(await dmarc('twice.test'), 200);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual(matching(/multiple DMARC records at _dmarc\.twice\.test \(2\)/));
  });

  it('warns about an unknown tag and keeps it in tags', async () => {
    const body = expectStatus(await dmarc('unknown.test'), 200);
    expect(body.valid).toBe(true);
    expect(body.tags).toMatchObject({ foo: 'bar' });
    expect(body.warnings).toEqual(matching(/unknown tag foo/));
  });

  it('reports a duplicate tag as an error', async () => {
    const body = expectStatus(await dmarc('dup.test'), 200);
    expect(body.valid).toBe(false);
    expect(body.errors).toEqual(matching(/duplicate tag p/));
  });

  it('warns that p=none is monitoring only', async () => {
    const body = expectStatus(await dmarc('monitor.test'), 200);
    expect(body).toMatchObject({ valid: true, policy: 'none', subdomain_policy: 'none' });
    expect(body.warnings).toEqual(matching(/p=none: monitoring only/));
  });

  it('answers 400 naming the field for a domain that is not one', async () => {
    const body = expectStatus(await dmarc('bad_domain_-'), 400);
    expect(body.error).toMatch(/domain/);
  });

  it('answers 429 past 10 lookups a minute from one IP', async () => {
    await inOneMinuteWindow();
    const headers = { 'x-forwarded-for': clientIp() };
    for (let i = 0; i < 10; i++) await t.server.anonymous.call('checkDmarcRecord', { query: { domain: '-' }, headers });
    const response = await t.server.anonymous.call('checkDmarcRecord', { query: { domain: 'good.test' }, headers });
    expect(expectStatus(response, 429).code).toBe('rate_limited');
  });
});

// Each waits for the DNS client's timeout (2.5 s): side by side.
describe('when the resolver does not answer', () => {
  it.concurrent('/tools/spf answers 502', async () => {
    dns.silent.add('silent.test');
    const body = expectStatus(await spf('silent.test'), 502);
    expect(body.code).toBe('upstream_failed');
  });

  it.concurrent('/tools/dmarc answers 502', async () => {
    dns.silent.add('_dmarc.silent-dmarc.test');
    const body = expectStatus(await dmarc('silent-dmarc.test'), 502);
    expect(body.code).toBe('upstream_failed');
  });
});
