/**
 * /tools/whois through HTTP against whois servers on loopback (test/fixtures/whois.ts) named in a DNS
 * fixture: an IANA-style root on a high port of 127.0.0.1 (TOOLS_WHOIS_ROOT), and the servers it refers to on
 * port 43 of 127.43.0.2-5 (a registry, a registrar, RIPE, ARIN; binding port 43 needs root, as these tests
 * have here and in CI) and ARIN's RWhois referral on 127.43.0.6:4321. Chains that do not need port 43 refer
 * with `whois://host:port` to servers on 127.0.0.1. Only those exact addresses are allowed outbound: a
 * referral to 127.0.0.9 (where a server listens, counting connections) or to 10.0.0.1 is refused. RDAP
 * (test/fixtures/rdap.ts) is the fallback when the root is down.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHOIS_ANSWER_LIMIT } from '../../server/modules/tools/whois.service';
import { type DnsFixture, startDnsServer, type ZoneRecord } from '../fixtures/dns';
import { RDAP_DOMAIN_GOOGLE, RDAP_IP_RIPE, type RdapFixture, startRdapServer } from '../fixtures/rdap';
import { closedPort } from '../fixtures/receiver';
import {
  ARIN_38_104_1_1,
  IANA_ARIN,
  IANA_COM,
  IANA_RIPE,
  listenError,
  MARKMONITOR_GOOGLE,
  RIPE_193_0_6_139,
  RWHOIS_38_104_1_1,
  RWHOIS_BANNER,
  startWhoisServer,
  VERISIGN_GOOGLE,
  type WhoisFixture,
} from '../fixtures/whois';
import { clientIp, inOneMinuteWindow } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { testConfig } from '../support/server';

const NOW = new Date('2025-06-01T00:00:00Z');
const REGISTRY = '127.43.0.2';
const REGISTRAR = '127.43.0.3';
const RIPE = '127.43.0.4';
const ARIN = '127.43.0.5';
const RWHOIS = '127.43.0.6';
const RDAP_REGISTRY = '127.43.0.7';
/** Refused (loopback, not allowed): a server listens there to show it is never contacted. */
const REFUSED = '127.0.0.9';
const ALLOWED = ['127.0.0.1', REGISTRY, REGISTRAR, RIPE, ARIN, RWHOIS, RDAP_REGISTRY].map((a) => `${a}/32`);

const port43 = await listenError(REGISTRY, 43);
const needs43 = port43 ? ` (skipped: port 43 cannot be bound here, ${port43}; it needs root)` : '';

const a = (name: string, data: string): ZoneRecord => ({ name, type: 'A', data });

/** A whois answer pointing at a server on a high port (ARIN's form, which may carry a port). */
const referTo = (name: string, server: WhoisFixture) => `ReferralServer: whois://${name}:${server.port}\r\n`;

let dns: DnsFixture;
let rdap: RdapFixture;
const f = {} as Record<
  | 'root'
  | 'registry'
  | 'registrar'
  | 'ripe'
  | 'arin'
  | 'rwhois'
  | 'hop1'
  | 'hop2'
  | 'hop3'
  | 'hop4'
  | 'loopA'
  | 'loopB'
  | 'evil',
  WhoisFixture
>;
const sparseRegistry = VERISIGN_GOOGLE.replace(/GOOGLE\.COM/g, 'SPARSE.COM');
const sparseRegistrar = 'Domain Name: sparse.com\r\nRegistrar: MarkMonitor, Inc.\r\nName Server: ns1.sparse.com\r\n';

/** The root, IANA-style: the TLD's or the block's record with a referral, or a final answer. */
function rootAnswer(query: string): string {
  if (query === 'google.com' || query === 'sparse.com') return IANA_COM;
  if (query.startsWith('193.')) return IANA_RIPE;
  if (query.startsWith('38.')) return IANA_ARIN;
  if (query === 'hops.example') return referTo('hop1.test', f.hop1);
  if (query === 'loop.example') return referTo('loop-a.test', f.loopA);
  if (query === 'refused.example') return `% IANA WHOIS server\r\n\r\n${referTo('whois.evil.test', f.evil)}`;
  if (query === 'private.example') return 'refer:        whois.private.test\r\n';
  if (query === 'big.example') return `remarks: ${'x'.repeat(WHOIS_ANSWER_LIMIT + 50_000)}\r\n`;
  if (query === 'ctrl.example') return 'domain: CTRL.EXAMPLE\r\nremarks: \u001b[2Jcleared\u0007\r\nstatus: ACTIVE\r\n';
  return `% IANA WHOIS server\r\n\r\n% Error: Invalid query ${query}\r\n`;
}

beforeAll(async () => {
  f.root = await startWhoisServer(rootAnswer);
  f.hop1 = await startWhoisServer(() => referTo('hop2.test', f.hop2));
  f.hop2 = await startWhoisServer(() => `% hop 2\r\n${referTo('hop3.test', f.hop3)}`);
  f.hop3 = await startWhoisServer(() => referTo('hop4.test', f.hop4));
  f.hop4 = await startWhoisServer(() => 'domain: HOPS.EXAMPLE\r\n');
  f.loopA = await startWhoisServer(() => referTo('loop-b.test', f.loopB));
  f.loopB = await startWhoisServer(() => `% loop B\r\n${referTo('loop-a.test', f.loopA)}`);
  f.evil = await startWhoisServer(() => 'domain: EVIL\r\n', { address: REFUSED });
  if (!port43) {
    f.registry = await startWhoisServer((q) => (q === 'sparse.com' ? sparseRegistry : VERISIGN_GOOGLE), {
      address: REGISTRY,
      port: 43,
    });
    f.registrar = await startWhoisServer((q) => (q === 'sparse.com' ? sparseRegistrar : MARKMONITOR_GOOGLE), {
      address: REGISTRAR,
      port: 43,
    });
    f.ripe = await startWhoisServer(() => RIPE_193_0_6_139, { address: RIPE, port: 43 });
    f.arin = await startWhoisServer(() => ARIN_38_104_1_1, { address: ARIN, port: 43 });
    f.rwhois = await startWhoisServer(() => RWHOIS_38_104_1_1, {
      address: RWHOIS,
      port: 4321,
      banner: RWHOIS_BANNER,
      keepOpen: true,
    });
  }
  rdap = await startRdapServer();
  dns = await startDnsServer([
    a('whois.verisign-grs.com', REGISTRY),
    a('whois.markmonitor.com', REGISTRAR),
    a('whois.ripe.net', RIPE),
    a('whois.arin.net', ARIN),
    a('rwhois.cogentco.com', RWHOIS),
    ...['hop1', 'hop2', 'hop3', 'hop4', 'loop-a', 'loop-b'].map((h) => a(`${h}.test`, '127.0.0.1')),
    a('whois.evil.test', REFUSED),
    a('whois.private.test', '10.0.0.1'),
    a('rdap.verisign.test', RDAP_REGISTRY),
    a('rdap.evil.test', REFUSED),
  ]);
});
afterAll(async () => {
  await Promise.all([...Object.values(f).map((s) => s.close()), rdap?.close(), dns?.close()]);
});

/** The app with the root at `rootPort` (the fixture's unless told) and RDAP at `rdapUrl`. */
const serverWith = (root: () => number, rdapUrl: () => string) =>
  useTestServer(
    () => ({
      now: () => NOW,
      config: {
        outboundAllowCidrs: ALLOWED,
        tools: {
          ...testConfig().tools,
          recursiveResolver: { address: dns.address, port: dns.port },
          whoisRoot: { host: '127.0.0.1', port: root() },
          rdapUrl: rdapUrl(),
        },
      },
    }),
    false,
  );

describe('/tools/whois from the root through its referrals', () => {
  const t = serverWith(
    () => f.root.port,
    () => rdap.origin,
  );
  const whois = (query: string, ip = clientIp()) =>
    t.server.anonymous.call('lookupWhois', { query: { query }, headers: { 'x-forwarded-for': ip } });

  it.skipIf(port43)(
    `a domain: root → registry → registrar, the registrar's answer parsed, days to expiry from the clock${needs43}`,
    async () => {
      const body = expectStatus(await whois('google.com'), 200);
      expect(body.query).toBe('google.com');
      expect(body.raw).toBe(MARKMONITOR_GOOGLE.replace(/\r\n/g, '\n'));
      expect(body.parsed).toEqual({
        registrar: 'MarkMonitor, Inc.',
        created: '1997-09-15T07:00:00Z',
        expires: '2028-09-13T07:00:00Z',
        expires_in_days: 1200,
        updated: '2024-08-02T02:17:33Z',
        nameservers: ['ns1.google.com', 'ns4.google.com', 'ns3.google.com', 'ns2.google.com'],
        status: [
          'clientUpdateProhibited',
          'clientTransferProhibited',
          'clientDeleteProhibited',
          'serverUpdateProhibited',
          'serverTransferProhibited',
          'serverDeleteProhibited',
        ],
      });
      expect(f.root.queries.at(-1)).toBe('google.com');
      expect(f.registry.queries.at(-1)).toBe('google.com');
      expect(f.registrar.queries.at(-1)).toBe('google.com');
    },
  );

  it.skipIf(port43)(`a subdomain is asked as its registered domain${needs43}`, async () => {
    const body = expectStatus(await whois('www.Google.com'), 200);
    expect(body.query).toBe('www.Google.com');
    expect(body.parsed.registrar).toBe('MarkMonitor, Inc.');
    expect([f.root.queries.at(-1), f.registry.queries.at(-1), f.registrar.queries.at(-1)]).toEqual([
      'google.com',
      'google.com',
      'google.com',
    ]);
  });

  it.skipIf(port43)(`fields the registrar leaves out come from the registry's answer${needs43}`, async () => {
    const body = expectStatus(await whois('SPARSE.COM.'), 200);
    expect(body.query).toBe('SPARSE.COM.');
    expect(body.raw).toBe(sparseRegistrar.replace(/\r\n/g, '\n'));
    expect(body.parsed).toMatchObject({
      registrar: 'MarkMonitor, Inc.',
      nameservers: ['ns1.sparse.com'],
      created: '1997-09-15T04:00:00Z',
      expires: '2028-09-14T04:00:00Z',
      expires_in_days: 1201,
    });
    expect(body.parsed.status).toHaveLength(6);
    expect(f.registry.queries.at(-1)).toBe('sparse.com');
  });

  it.skipIf(port43)(`an IP: root → RIPE, the network's fields${needs43}`, async () => {
    const body = expectStatus(await whois('193.0.6.139'), 200);
    expect(body.raw).toBe(RIPE_193_0_6_139);
    expect(body.parsed).toEqual({
      cidr: '193.0.0.0/21',
      net_name: 'RIPE-NCC',
      organization: 'Reseaux IP Europeens Network Coordination Centre (RIPE NCC)',
      abuse_contact: 'abuse@ripe.net',
    });
    expect(f.ripe.queries.at(-1)).toBe('193.0.6.139');
  });

  it.skipIf(port43)(
    `an IP: root → ARIN → its rwhois:// ReferralServer (port 4321, answer ended by %ok)${needs43}`,
    async () => {
      const started = Date.now();
      const body = expectStatus(await whois('38.104.0.17'), 200);
      // The RWhois server keeps the connection open: the answer ends at `%ok`, not at a timeout.
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(body.raw).toBe((RWHOIS_BANNER + RWHOIS_38_104_1_1).replace(/\r\n/g, '\n'));
      expect(body.parsed).toEqual({
        cidr: '38.104.0.0/24',
        net_name: 'NET4-2668000018',
        organization: 'Example Hosting Customer',
        abuse_contact: 'abuse@cogentco.com',
      });
      expect(f.arin.queries.at(-1)).toBe('38.104.0.17');
      expect(f.rwhois.queries.at(-1)).toBe('38.104.0.17');
    },
  );

  it('follows at most 3 servers: the fourth of a chain of referrals is never contacted', async () => {
    const body = expectStatus(await whois('hops.example'), 200);
    expect(body.raw).toBe(`% hop 2\n${referTo('hop3.test', f.hop3).replace('\r\n', '\n')}`);
    expect(f.hop1.queries).toEqual(['hops.example']);
    expect(f.hop2.queries).toEqual(['hops.example']);
    expect(f.hop3.connections).toBe(0);
    expect(f.hop4.connections).toBe(0);
  });

  it('a referral loop stops: no server is asked twice', async () => {
    const body = expectStatus(await whois('loop.example'), 200);
    expect(body.raw).toMatch(/^% loop B/);
    expect(f.loopA.queries).toEqual(['loop.example']);
    expect(f.loopB.queries).toEqual(['loop.example']);
  });

  it('a referral to a refused address (127.0.0.9) is not contacted; the answer so far stands', async () => {
    const body = expectStatus(await whois('refused.example'), 200);
    expect(body.raw).toContain('whois://whois.evil.test');
    expect(f.evil.connections).toBe(0);
    // RDAP was tried first (its 404 has less to say than the root's answer).
    expect(rdap.requests.map((r) => r.path)).toContain('/domain/refused.example');
  });

  it('a referral to a private address (10.0.0.1) is not followed either', async () => {
    const body = expectStatus(await whois('private.example'), 200);
    expect(body.raw).toBe('refer:        whois.private.test\n');
    expect(body.parsed).toEqual({});
  });

  it('an answer is cut at 256 KB', async () => {
    const body = expectStatus(await whois('big.example'), 200);
    expect(body.raw).toHaveLength(WHOIS_ANSWER_LIMIT);
    expect(body.raw.startsWith('remarks: xxx')).toBe(true);
  });

  it('control characters of the answer are removed, CRLF becomes LF', async () => {
    const body = expectStatus(await whois('ctrl.example'), 200);
    expect(body.raw).toBe('domain: CTRL.EXAMPLE\nremarks: [2Jcleared\nstatus: ACTIVE\n');
    expect(body.parsed).toEqual({ status: ['ACTIVE'] });
  });

  it.each([
    ['not a name!', /query/],
    ['', /query/],
    ['a'.repeat(254), /query/],
    ['1.2.3.4:43', /query/],
  ])('400 naming the query for %j', async (query, field) => {
    const body = expectStatus(await whois(query), 400);
    expect(body.error).toMatch(field);
  });

  it('429 after 10 lookups a minute from one client', async () => {
    await inOneMinuteWindow();
    const ip = clientIp();
    for (let i = 0; i < 10; i++) expectStatus(await whois('bad query!', ip), 400);
    const limited = await whois('google.com', ip);
    expectStatus(limited, 429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('/tools/whois falls back to RDAP when the whois root is down', () => {
  let down: number;
  let registryRdap: RdapFixture;
  let evilRdap: RdapFixture;
  beforeAll(async () => {
    down = await closedPort();
    registryRdap = await startRdapServer(
      { '/com/v1/domain/google.com': { json: RDAP_DOMAIN_GOOGLE } },
      { address: RDAP_REGISTRY },
    );
    evilRdap = await startRdapServer({}, { address: REFUSED });
    rdap.routes.set('/domain/google.com', {
      redirect: `http://rdap.verisign.test:${registryRdap.port}/com/v1/domain/google.com`,
    });
    rdap.routes.set('/ip/193.0.6.139', { json: RDAP_IP_RIPE });
    rdap.routes.set('/domain/evil.com', { redirect: `http://rdap.evil.test:${evilRdap.port}/domain/evil.com` });
    rdap.routes.set('/domain/loop.com', { redirect: '/domain/loop.com', status: 307 });
    rdap.routes.set('/domain/broken.com', { status: 500 });
  });
  afterAll(async () => {
    await Promise.all([registryRdap?.close(), evilRdap?.close()]);
  });
  const t = serverWith(
    () => down,
    () => rdap.origin,
  );
  const whois = (query: string, ip = clientIp()) =>
    t.server.anonymous.call('lookupWhois', { query: { query }, headers: { 'x-forwarded-for': ip } });

  it("a domain: rdap.org's redirect followed to the registry, the JSON parsed as whois fields", async () => {
    const body = expectStatus(await whois('google.com'), 200);
    expect(JSON.parse(body.raw)).toEqual(RDAP_DOMAIN_GOOGLE);
    expect(body.parsed).toEqual({
      registrar: 'MarkMonitor Inc.',
      created: '1997-09-15T04:00:00Z',
      expires: '2028-09-14T04:00:00Z',
      expires_in_days: 1201,
      updated: '2019-09-09T15:39:04Z',
      nameservers: ['ns1.google.com', 'ns2.google.com', 'ns3.google.com', 'ns4.google.com'],
      status: [
        'clientDeleteProhibited',
        'clientTransferProhibited',
        'clientUpdateProhibited',
        'serverDeleteProhibited',
        'serverTransferProhibited',
        'serverUpdateProhibited',
      ],
    });
    expect(registryRdap.requests.map((r) => r.path)).toEqual(['/com/v1/domain/google.com']);
    expect(registryRdap.requests[0]?.headers.accept).toMatch(/application\/rdap\+json/);
  });

  it('an IP: the network object parsed as whois fields', async () => {
    const body = expectStatus(await whois('193.0.6.139'), 200);
    expect(body.parsed).toEqual({
      cidr: '193.0.0.0/21',
      net_name: 'RIPE-NCC',
      organization: 'Reseaux IP Europeens Network Coordination Centre (RIPE NCC)',
      abuse_contact: 'abuse@ripe.net',
    });
  });

  it("RDAP's 404: 200 with its answer and nothing parsed", async () => {
    const body = expectStatus(await whois('unknown.com'), 200);
    expect(JSON.parse(body.raw)).toMatchObject({ errorCode: 404 });
    expect(body.parsed).toEqual({});
  });

  it('502 when RDAP fails too', async () => {
    const body = expectStatus(await whois('broken.com'), 502);
    expect(body.code).toBe('upstream_failed');
    expect(body.error).toMatch(/^query: no whois server answered .*connection refused.* RDAP failed \(HTTP 500\)/);
  });

  it('502 when a redirect leads to a refused address, which is not contacted', async () => {
    const body = expectStatus(await whois('evil.com'), 502);
    expect(body.error).toMatch(/not contacted/);
    expect(evilRdap.requests).toEqual([]);
  });

  it('502 after 3 redirects', async () => {
    const before = rdap.requests.filter((r) => r.path === '/domain/loop.com').length;
    const body = expectStatus(await whois('loop.com'), 502);
    expect(body.error).toMatch(/more than 3 redirects/);
    expect(rdap.requests.filter((r) => r.path === '/domain/loop.com').length - before).toBe(4);
  });
});
