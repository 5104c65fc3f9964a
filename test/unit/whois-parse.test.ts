/**
 * The whois and RDAP readers (pure, no network) over answers in the registries' real formats: referrals,
 * domain fields of ICANN-format and ccTLD answers, network fields of the five RIRs and RWhois, RDAP objects,
 * Team Cymru's records; and generated inputs checked against simple models (key spellings and layouts,
 * dates, address ranges covered address by address).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseRdapUrl } from '../../server/config';
import { parseIp } from '../../server/ipam';
import { originName, parseCymruAs, parseCymruOrigin, reservedAsn } from '../../server/modules/tools/asn.service';
import { rdapUrlProblem } from '../../server/modules/tools/rdap';
import {
  cleanText,
  networkBlocks,
  parseRdapAsn,
  parseRdapDomain,
  parseRdapNetwork,
  parseWhoisDate,
  parseWhoisDomain,
  parseWhoisNetwork,
  whoisReferral,
} from '../../server/modules/tools/whois-parse';
import { RDAP_AUTNUM_ARIN, RDAP_DOMAIN_GOOGLE, RDAP_IP_ARIN, RDAP_IP_RIPE } from '../fixtures/rdap';
import {
  AFRINIC_196_216_2_1,
  APNIC_1_1_1_1,
  ARIN_38_104_1_1,
  ARIN_REASSIGNED,
  DENIC_DE,
  EURID_EU,
  IANA_ARIN,
  IANA_COM,
  IANA_RIPE,
  LACNIC_200_160_2_3,
  MARKMONITOR_GOOGLE,
  NOMINET_CO_UK,
  RIPE_193_0_6_139,
  RIPE_INET6NUM,
  RWHOIS_38_104_1_1,
  TCI_RU,
  VERISIGN_GOOGLE,
} from '../fixtures/whois';
import { defined } from '../support/defined';

const NOW = new Date('2025-06-01T00:00:00Z');

describe('whois referrals', () => {
  it.each([
    ['IANA refer: to a registry', IANA_COM, { host: 'whois.verisign-grs.com', port: 43, protocol: 'whois' }],
    ['IANA refer: to an RIR', IANA_RIPE, { host: 'whois.ripe.net', port: 43, protocol: 'whois' }],
    [
      'a thin registry to the registrar',
      VERISIGN_GOOGLE,
      { host: 'whois.markmonitor.com', port: 43, protocol: 'whois' },
    ],
    [
      'ARIN ReferralServer rwhois:// with a port',
      ARIN_38_104_1_1,
      { host: 'rwhois.cogentco.com', port: 4321, protocol: 'rwhois' },
    ],
    [
      'ARIN ReferralServer whois:// without a port',
      'ReferralServer: whois://whois.ripe.net',
      { host: 'whois.ripe.net', port: 43, protocol: 'whois' },
    ],
    [
      'ARIN ReferralServer whois:// with a port and slash',
      'ReferralServer:  whois://WHOIS.Example.net:4343/',
      { host: 'whois.example.net', port: 4343, protocol: 'whois' },
    ],
    [
      'rwhois:// without a port (4321)',
      'ReferralServer: rwhois://rwhois.example.net',
      { host: 'rwhois.example.net', port: 4321, protocol: 'rwhois' },
    ],
    [
      'a whois:// URL as registrar server',
      'Registrar WHOIS Server: whois://whois.gandi.net',
      { host: 'whois.gandi.net', port: 43, protocol: 'whois' },
    ],
  ])('%s', (_title, text, server) => {
    expect(whoisReferral(text)).toEqual(server);
  });

  it.each([
    ['no referral line', RIPE_193_0_6_139],
    ['an empty registrar server', 'Registrar WHOIS Server: \nRegistrar: Example'],
    ['an http URL', 'ReferralServer: https://rdap.example.net/'],
    ['a malformed host', 'refer: not a host!'],
    ['a port out of range', 'ReferralServer: whois://whois.example.net:70000'],
  ])('none for %s', (_title, text) => {
    expect(whoisReferral(text)).toBeNull();
  });
});

describe('domain answers', () => {
  it('reads a thin registry (Verisign) answer', () => {
    expect(parseWhoisDomain(VERISIGN_GOOGLE, NOW)).toEqual({
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
  });

  it("reads a registrar's answer: its expiration date, offsets as +0000, statuses with URLs in brackets", () => {
    const parsed = parseWhoisDomain(MARKMONITOR_GOOGLE, NOW);
    expect(parsed).toMatchObject({
      registrar: 'MarkMonitor, Inc.',
      created: '1997-09-15T07:00:00Z',
      expires: '2028-09-13T07:00:00Z',
      expires_in_days: 1200,
      updated: '2024-08-02T02:17:33Z',
      nameservers: ['ns1.google.com', 'ns4.google.com', 'ns3.google.com', 'ns2.google.com'],
    });
    expect(parsed.status).toContain('clientUpdateProhibited');
    expect(parsed.status).toHaveLength(6);
  });

  it('reads Nominet sections (.uk): registrar, dates as DD-Mon-YYYY, name servers with addresses', () => {
    expect(parseWhoisDomain(NOMINET_CO_UK, NOW)).toEqual({
      registrar: 'Gandi SAS [Tag = GANDI]',
      created: '1996-11-26T00:00:00Z',
      expires: '2026-11-26T00:00:00Z',
      expires_in_days: 543,
      updated: '2024-10-25T00:00:00Z',
      nameservers: ['ns1.example.net', 'ns2.example.net'],
      status: ['Registered until expiry date.'],
    });
  });

  it('reads DENIC (.de): name servers, status and the change date with its offset', () => {
    expect(parseWhoisDomain(DENIC_DE, NOW)).toEqual({
      updated: '2018-03-12T20:44:25Z',
      nameservers: ['ns1.example.net', 'ns2.example.net'],
      status: ['connect'],
    });
  });

  it('reads TCI (.ru): paid-till, trailing dots, several states on one line', () => {
    expect(parseWhoisDomain(TCI_RU, NOW)).toEqual({
      registrar: 'RU-CENTER-RU',
      created: '1997-09-23T09:45:07Z',
      expires: '2025-09-30T21:00:00Z',
      expires_in_days: 121,
      nameservers: ['ns1.yandex.ru', 'ns2.yandex.ru'],
      status: ['REGISTERED', 'DELEGATED', 'VERIFIED'],
    });
  });

  it("reads EURid (.eu): the registrar's name inside its section", () => {
    expect(parseWhoisDomain(EURID_EU, NOW)).toEqual({
      registrar: 'Gandi SAS',
      nameservers: ['ns1.gandi.net', 'ns2.gandi.net'],
    });
  });

  it.each(['2024-02-30', '30-Feb-2024', '2024-13-01', '2024-00-10', 'Jan 2024', '2024-01-01 25:00', 'soon'])(
    'no date in %j',
    (text) => {
      expect(parseWhoisDate(text)).toBeNull();
    },
  );

  it('expires_in_days is negative once expired, and absent for a date it cannot read', () => {
    expect(parseWhoisDomain('Registry Expiry Date: 2025-05-30T12:00:00Z', NOW).expires_in_days).toBe(-2);
    expect(parseWhoisDomain('Expiry date: before Aug-1996', NOW)).toEqual({ expires: 'before Aug-1996' });
  });

  it('finds nothing in text without fields', () => {
    expect(parseWhoisDomain('No match for "NOPE.COM".\n>>> Last update of whois database <<<', NOW)).toEqual({});
  });
});

describe('network answers', () => {
  it('reads RIPE: inetnum range to CIDR, netname, the org object, the abuse comment', () => {
    expect(parseWhoisNetwork(RIPE_193_0_6_139)).toEqual({
      cidr: '193.0.0.0/21',
      net_name: 'RIPE-NCC',
      organization: 'Reseaux IP Europeens Network Coordination Centre (RIPE NCC)',
      abuse_contact: 'abuse@ripe.net',
    });
  });

  it('reads RIPE inet6num', () => {
    expect(parseWhoisNetwork(RIPE_INET6NUM)).toMatchObject({ cidr: '2001:67c:2e8::/48', net_name: 'RIPE-NCC' });
  });

  it('reads APNIC', () => {
    expect(parseWhoisNetwork(APNIC_1_1_1_1)).toEqual({
      cidr: '1.1.1.0/24',
      net_name: 'APNIC-LABS',
      organization: 'APNIC Research and Development',
      abuse_contact: 'helpdesk@apnic.net',
    });
  });

  it('reads AFRINIC: no org object, so the descr; abuse-mailbox of the irt', () => {
    expect(parseWhoisNetwork(AFRINIC_196_216_2_1)).toEqual({
      cidr: '196.216.2.0/23',
      net_name: 'AFRINIC-Website-Mauritius',
      organization: 'AFRINIC - Mauritius Website and Services',
      abuse_contact: 'abuse@afrinic.net',
    });
  });

  it("reads LACNIC: the abbreviated inetnum, owner, the abuse-c contact's e-mail", () => {
    expect(parseWhoisNetwork(LACNIC_200_160_2_3)).toEqual({
      cidr: '200.160.0.0/20',
      organization: 'Núcleo de Inf. e Coord. do Ponto BR - NIC.BR',
      abuse_contact: 'cert@cert.br',
    });
  });

  it('reads ARIN: CIDR, NetName, Organization without its handle, OrgAbuseEmail', () => {
    expect(parseWhoisNetwork(ARIN_38_104_1_1)).toEqual({
      cidr: '38.0.0.0/8',
      net_name: 'COGENT-A',
      organization: 'PSINet, Inc.',
      abuse_contact: 'abuse@cogentco.com',
    });
  });

  it('reads ARIN with a reassignment: the smaller network and its customer', () => {
    expect(parseWhoisNetwork(ARIN_REASSIGNED)).toEqual({
      cidr: '104.18.32.0/20',
      net_name: 'EXAMPLE-CUST-1',
      organization: 'Example Customer Corp',
      abuse_contact: 'abuse@cloudflare.com',
    });
  });

  it('reads RWhois attribute lines', () => {
    expect(parseWhoisNetwork(RWHOIS_38_104_1_1)).toEqual({
      cidr: '38.104.0.0/24',
      net_name: 'NET4-2668000018',
      organization: 'Example Hosting Customer',
    });
  });

  it("reads IANA's own record of a block", () => {
    expect(parseWhoisNetwork(IANA_ARIN)).toEqual({ cidr: '38.0.0.0/8', organization: 'PSINet, Inc.' });
  });
});

describe('RDAP objects', () => {
  it('a domain: registrar, events, nameservers, statuses in EPP spelling', () => {
    expect(parseRdapDomain(RDAP_DOMAIN_GOOGLE, NOW)).toEqual({
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
  });

  it('an ip network of RIPE: cidr0, registrant, top-level abuse entity', () => {
    expect(parseRdapNetwork(RDAP_IP_RIPE)).toEqual({
      cidr: '193.0.0.0/21',
      net_name: 'RIPE-NCC',
      organization: 'Reseaux IP Europeens Network Coordination Centre (RIPE NCC)',
      abuse_contact: 'abuse@ripe.net',
    });
  });

  it('an ip network of ARIN: the abuse entity nested in the registrant; start and end without cidr0', () => {
    expect(parseRdapNetwork(RDAP_IP_ARIN)).toEqual({
      cidr: '8.8.4.0/24',
      net_name: 'GOGL',
      organization: 'Google LLC',
      abuse_contact: 'network-abuse@google.com',
    });
    const { cidr0_cidrs: _, ...withoutCidr0 } = RDAP_IP_ARIN;
    expect(parseRdapNetwork({ ...withoutCidr0, startAddress: '8.8.4.0', endAddress: '8.8.5.255' }).cidr).toBe(
      '8.8.4.0/23',
    );
  });

  it('ASN facts of an autnum and of an ip network', () => {
    expect(parseRdapAsn(RDAP_AUTNUM_ARIN, 'rdap.arin.net')).toEqual({
      asn: 15169,
      as_name: 'GOOGLE',
      prefix: null,
      country: null,
      rir: 'arin',
      allocated: '2000-03-30',
    });
    expect(parseRdapAsn(RDAP_IP_RIPE, 'rdap.db.ripe.net')).toEqual({
      asn: null,
      as_name: null,
      prefix: '193.0.0.0/21',
      country: 'NL',
      rir: 'ripencc',
      allocated: '2003-03-17',
    });
  });

  it.each([null, 'text', [], { entities: 'x', events: [null, 1], vcardArray: 7 }])('nothing from %j', (json) => {
    expect(parseRdapDomain(json, NOW)).toEqual({});
    expect(parseRdapNetwork(json)).toEqual({});
  });
});

describe('Team Cymru records', () => {
  it('the most specific prefix of several, its first origin AS', () => {
    expect(
      parseCymruOrigin([
        '15169 | 8.0.0.0/12 | US | arin | 1992-12-01',
        '23028 701 | 8.8.8.0/24 | US | arin | 2023-12-28',
        'garbage',
      ]),
    ).toEqual({ asn: 23028, prefix: '8.8.8.0/24', country: 'US', rir: 'arin', allocated: '2023-12-28' });
  });

  it('empty fields are null; nothing readable is null', () => {
    expect(parseCymruOrigin(['13335 | 2606:4700::/32 |  | arin | '])).toEqual({
      asn: 13335,
      prefix: '2606:4700::/32',
      country: null,
      rir: 'arin',
      allocated: null,
    });
    expect(parseCymruOrigin(['x | y'])).toBeNull();
    expect(parseCymruAs([])).toBeNull();
  });

  it('an AS record, its name keeping the comma', () => {
    expect(parseCymruAs(['13335 | US | arin | 2010-07-14 | CLOUDFLARENET, US'])).toEqual({
      asn: 13335,
      as_name: 'CLOUDFLARENET, US',
      country: 'US',
      rir: 'arin',
      allocated: '2010-07-14',
    });
  });

  it('query names: reversed IPv4 under origin, 32 nibbles under origin6', () => {
    expect(originName(parseIp('1.2.3.4') ?? fail())).toBe('4.3.2.1.origin.asn.cymru.com');
    const v6 = originName(parseIp('2606:4700::1111') ?? fail());
    expect(v6).toBe(`1.1.1.1.${'0.'.repeat(20)}0.0.7.4.6.0.6.2.origin6.asn.cymru.com`);
    expect(v6.split('.')).toHaveLength(32 + 4);
  });

  it.each([
    [0, /reserved/],
    [23456, /AS_TRANS/],
    [64496, /documentation/],
    [65551, /documentation/],
    [64512, /private/],
    [65534, /private/],
    [4_200_000_000, /private/],
    [65535, /reserved/],
    [4_294_967_295, /reserved/],
    [4_294_967_296, /largest/],
  ])('AS%i is refused (%s)', (asn, reason) => {
    expect(reservedAsn(asn)).toMatch(reason);
  });

  it.each([1, 13335, 64495, 65552, 4_199_999_999])('AS%i may be looked up', (asn) => {
    expect(reservedAsn(asn)).toBeNull();
  });
});

describe('outbound rules of RDAP and its setting', () => {
  it('https anywhere; plain http only when every address is in OUTBOUND_ALLOW_CIDRS', () => {
    expect(rdapUrlProblem(new URL('https://rdap.example/ip/1.1.1.1'), ['93.184.216.34'], [])).toBeNull();
    expect(rdapUrlProblem(new URL('http://rdap.example/ip/1.1.1.1'), ['93.184.216.34'], [])).toMatch(/plain http/);
    expect(rdapUrlProblem(new URL('http://127.0.0.5/'), ['127.0.0.5'], ['127.0.0.5/32'])).toBeNull();
    expect(rdapUrlProblem(new URL('http://x.test/'), ['127.0.0.5', '93.184.216.34'], ['127.0.0.5/32'])).toMatch(
      /plain http/,
    );
    expect(rdapUrlProblem(new URL('ftp://rdap.example/'), ['93.184.216.34'], [])).toMatch(/not http/);
    expect(rdapUrlProblem(new URL('https://u:p@rdap.example/'), ['93.184.216.34'], [])).toMatch(/credentials/);
  });

  it('TOOLS_RDAP_URL: an http(s) base URL, trailing slash dropped, anything else refused naming it', () => {
    expect(loadConfig({}).tools.rdapUrl).toBe('https://rdap.org');
    expect(loadConfig({ TOOLS_RDAP_URL: 'http://127.0.0.1:8080/' }).tools.rdapUrl).toBe('http://127.0.0.1:8080');
    expect(() => loadConfig({ TOOLS_RDAP_URL: 'rdap.example' })).toThrow(/TOOLS_RDAP_URL/);
    expect(parseRdapUrl('https://rdap.example/rdap/')).toBe('https://rdap.example/rdap');
    for (const bad of ['rdap.org', 'ftp://rdap.org', 'https://rdap.org/?x=1', 'https://u:p@rdap.org'])
      expect(() => parseRdapUrl(bad)).toThrow(/TOOLS_RDAP_URL/);
  });
});

describe('generated inputs', () => {
  it('control characters are removed from remote text, newlines and tabs kept', () => {
    expect(cleanText('a\r\nb\u0000c\u001b[31md\te\u007f\u0085f\rg')).toBe('a\nbc[31md\tef\ng');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the property is about control characters.
        expect(cleanText(text)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
      }),
    );
  });

  it('domain fields are found whatever spelling, case, indentation, padding and order the registry uses', () => {
    const spelling = (keys: string[]) =>
      fc.tuple(fc.constantFrom(...keys), fc.boolean()).map(([key, upper]) => (upper ? titleCase(key) : key));
    const line = (key: fc.Arbitrary<string>, value: string) =>
      fc
        .tuple(key, fc.nat(6), fc.nat(12))
        .map(([k, indent, pad]) => `${' '.repeat(indent)}${k}:${' '.repeat(pad + 1)}${value}`);
    const noise = fc.constantFrom(
      '% comment: with a colon',
      '',
      '>>> Last update: 2025 <<<',
      'Registrar URL: http://x.test',
    );
    fc.assert(
      fc.property(
        fc.tuple(
          line(spelling(['registrar', 'sponsoring registrar', 'registrar name']), 'Example Registrar, Inc.'),
          line(spelling(['creation date', 'created', 'registered on']), '2001-02-03T04:05:06Z'),
          line(spelling(['registry expiry date', 'expiration date', 'paid-till', 'expires']), '2027-01-02'),
          line(spelling(['name server', 'nserver', 'nameserver']), 'NS1.EXAMPLE.NET'),
          line(spelling(['name server', 'nserver', 'nameserver']), 'ns2.example.net.'),
          line(spelling(['domain status', 'status']), 'clientHold https://icann.org/epp#clientHold'),
        ),
        fc.array(noise, { maxLength: 4 }),
        fc.integer(),
        (lines, extra, seed) => {
          const all = shuffle([...lines.slice(0, 3), ...lines.slice(5), ...extra], seed);
          // The nameserver lines keep their order, wherever they land.
          const text = [...all, lines[3], lines[4]].join(seed % 2 ? '\r\n' : '\n');
          expect(parseWhoisDomain(text, NOW)).toEqual({
            registrar: 'Example Registrar, Inc.',
            created: '2001-02-03T04:05:06Z',
            expires: '2027-01-02T00:00:00Z',
            expires_in_days: 580,
            nameservers: ['ns1.example.net', 'ns2.example.net'],
            status: ['clientHold'],
          });
        },
      ),
    );
  });

  it('a date written in any supported form is the same instant', () => {
    const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
    fc.assert(
      fc.property(fc.date({ min: new Date('1985-01-01'), max: new Date('2099-12-31'), noInvalidDate: true }), (d) => {
        const day = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
        const [y, m, dd] = [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
        const p = (n: number) => String(n).padStart(2, '0');
        for (const text of [
          `${y}-${p(m)}-${p(dd)}`,
          `${y}.${p(m)}.${p(dd)}`,
          `${y}/${p(m)}/${p(dd)}`,
          `${p(dd)}-${months[m - 1]}-${y}`,
          `${p(dd)}.${p(m)}.${y}`,
          `${y}${p(m)}${p(dd)}`,
        ])
          expect(parseWhoisDate(text)?.getTime(), text).toBe(day.getTime());
        const seconds = new Date(Math.floor(d.getTime() / 1000) * 1000);
        const iso = seconds.toISOString().replace('.000Z', 'Z');
        expect(parseWhoisDate(iso)?.getTime()).toBe(seconds.getTime());
        expect(parseWhoisDate(iso.replace('Z', '+0000'))?.getTime()).toBe(seconds.getTime());
        expect(parseWhoisDate(iso.replace('T', ' ').replace('Z', ''))?.getTime()).toBe(seconds.getTime());
      }),
    );
  });

  it('an inetnum range becomes blocks covering exactly its addresses (checked address by address)', () => {
    fc.assert(
      fc.property(fc.nat(2 ** 32 - 600), fc.nat(512), fc.nat(3), (first, length, spaces) => {
        const last = first + length;
        const text = `${v4(first)}${' '.repeat(spaces)}-${' '.repeat(spaces)}${v4(last)}`;
        const blocks = networkBlocks(text).map((b) => ({ first: Number(b.network), size: 2 ** (32 - b.prefix) }));
        for (const b of blocks) expect(b.first % b.size).toBe(0);
        for (let a = Math.max(0, first - 3); a <= last + 3; a++) {
          const covering = blocks.filter((b) => a >= b.first && a < b.first + b.size).length;
          expect(covering).toBe(a >= first && a <= last ? 1 : 0);
        }
      }),
      { numRuns: 200 },
    );
  });
});

function fail(): never {
  throw new Error('unexpected null');
}

const titleCase = (key: string) =>
  key.replace(/(^|[ -])([a-z])/g, (_, sep: string, c: string) => sep + c.toUpperCase());

const v4 = (n: number) => [24, 16, 8, 0].map((shift) => (n >>> shift) & 255).join('.');

/** A deterministic shuffle of `items` by `seed`. */
function shuffle<T>(items: T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) >>> 0;
    const j = state % (i + 1);
    [out[i], out[j]] = [defined(out[j], 'an item'), defined(out[i], 'an item')];
  }
  return out;
}
