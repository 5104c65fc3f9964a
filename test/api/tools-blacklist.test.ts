/**
 * /tools/blacklist through HTTP, the server's own resolver being a DNS server on loopback
 * (test/fixtures/dns.ts) that holds the 7 blocklist zones under their real names: listings (127.0.0.x),
 * absences (NXDOMAIN), a refusal code, errors and silence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DNSBLS } from '../../server/modules/tools/blacklist.service';
import { type DnsFixture, startDnsServer, type ZoneRecord } from '../fixtures/dns';
import { clientIp, inOneMinuteWindow } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { testConfig } from '../support/server';

const ZONES = DNSBLS.map((z) => z.zone);
const zone = (i: number) => defined(ZONES[i], `DNSBL zone ${i}`);
const [SPAMHAUS, SPAMCOP, BARRACUDA, PSBL, UCEPROTECT, MAILSPIKE, DRONEBL] = [
  zone(0),
  zone(1),
  zone(2),
  zone(3),
  zone(4),
  zone(5),
  zone(6),
];
const a = (name: string, data: string): ZoneRecord => ({ name, type: 'A', data });

/** 2606:4700:4700::1111 reversed nibble by nibble (the 16 zeros are its 4 zero groups). */
const V6_NIBBLES = `1.1.1.1.${'0.'.repeat(16)}0.0.7.4.0.0.7.4.6.0.6.2`;

const RECORDS: ZoneRecord[] = [
  // 93.184.216.34: listed by Spamhaus (SBL) and DroneBL, on no other list.
  a(`34.216.184.93.${SPAMHAUS}`, '127.0.0.2'),
  a(`34.216.184.93.${DRONEBL}`, '127.0.0.3'),
  // 93.184.216.35: Spamhaus refuses the query (127.255.255.254: public resolver), SpamCop lists it.
  a(`35.216.184.93.${SPAMHAUS}`, '127.255.255.254'),
  a(`35.216.184.93.${SPAMCOP}`, '127.0.0.2'),
  // 2606:4700:4700::1111: listed by Spamhaus under its nibble name.
  a(`${V6_NIBBLES}.${SPAMHAUS}`, '127.0.0.3'),
];

let dns: DnsFixture;
beforeAll(async () => {
  dns = await startDnsServer(RECORDS);
});
afterAll(() => dns?.close());

const t = useTestServer(
  () => ({
    config: { tools: { ...testConfig().tools, recursiveResolver: { address: dns.address, port: dns.port } } },
  }),
  false,
);

const check = async (ip: string) =>
  t.server.anonymous.call('checkIpBlacklist', { query: { ip }, headers: { 'x-forwarded-for': clientIp() } });
const listedOn = (body: { results: { zone: string; listed: boolean | null }[] }) =>
  Object.fromEntries(body.results.map((r) => [r.zone, r.listed]));

describe('/tools/blacklist', () => {
  it('reports the zones listing an IPv4 address and those that do not', async () => {
    const body = expectStatus(await check('93.184.216.34'), 200);
    expect(body).toMatchObject({ ip: '93.184.216.34', listed_count: 2, total_checked: 7 });
    expect(listedOn(body)).toEqual({
      [SPAMHAUS]: true,
      [SPAMCOP]: false,
      [BARRACUDA]: false,
      [PSBL]: false,
      [UCEPROTECT]: false,
      [MAILSPIKE]: false,
      [DRONEBL]: true,
    });
    expect(body.results[0]).toEqual({ list: 'Spamhaus ZEN', zone: SPAMHAUS, listed: true });
  });

  it('asks each zone for the reversed octets', async () => {
    expectStatus(await check('93.184.216.36'), 200);
    for (const zone of ZONES)
      expect(dns.questions).toContainEqual(expect.objectContaining({ name: `36.216.184.93.${zone}`, type: 'A' }));
  });

  it('reads a refusal code (127.255.255.254) as unknown, not as listed', async () => {
    const body = expectStatus(await check('93.184.216.35'), 200);
    expect(listedOn(body)[SPAMHAUS]).toBeNull();
    expect(listedOn(body)[SPAMCOP]).toBe(true);
    expect(body.listed_count).toBe(1);
  });

  it('reads SERVFAIL and REFUSED answers as unknown', async () => {
    dns.rcodes.set(`37.216.184.93.${PSBL}`, 'SERVFAIL');
    dns.rcodes.set(`37.216.184.93.${MAILSPIKE}`, 'REFUSED');
    const body = expectStatus(await check('93.184.216.37'), 200);
    expect(listedOn(body)).toMatchObject({ [PSBL]: null, [MAILSPIKE]: null, [SPAMHAUS]: false });
    expect(body.listed_count).toBe(0);
  });

  it('asks IPv6 addresses by nibbles', async () => {
    const body = expectStatus(await check('2606:4700:4700:0:0:0:0:1111'), 200);
    expect(body).toMatchObject({ ip: '2606:4700:4700::1111', listed_count: 1 });
    expect(listedOn(body)[SPAMHAUS]).toBe(true);
    expect(dns.questions).toContainEqual(expect.objectContaining({ name: `${V6_NIBBLES}.${DRONEBL}`, type: 'A' }));
  });

  it('checks an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    const body = expectStatus(await check('::ffff:93.184.216.34'), 200);
    expect(body).toMatchObject({ ip: '93.184.216.34', listed_count: 2 });
  });

  it('answers 400 naming the field for what is not an IP address', async () => {
    const body = expectStatus(await check('93.184.216'), 400);
    expect(body.error).toMatch(/^ip/);
  });

  it.each([
    ['10.1.2.3', 'a private address'],
    ['127.0.0.2', 'a loopback address'],
    ['fd00::1', 'a unique-local address'],
  ])('refuses %s with 400: %s is not on public blocklists', async (ip, reason) => {
    const body = expectStatus(await check(ip), 400);
    expect(body.error).toBe(`ip: ${ip} is ${reason}; DNS blocklists list only public addresses`);
  });

  it('answers 429 past 10 lookups a minute from one IP', async () => {
    await inOneMinuteWindow();
    const headers = { 'x-forwarded-for': clientIp() };
    for (let i = 0; i < 10; i++) await t.server.anonymous.call('checkIpBlacklist', { query: { ip: 'x' }, headers });
    const response = await t.server.anonymous.call('checkIpBlacklist', { query: { ip: '93.184.216.34' }, headers });
    expect(expectStatus(response, 429).code).toBe('rate_limited');
  });
});

// Each waits for the per-zone timeout (2 s): side by side.
describe('when zones do not answer', () => {
  it.concurrent('reads a silent zone as unknown', async () => {
    dns.silent.add(`38.216.184.93.${BARRACUDA}`);
    const body = expectStatus(await check('93.184.216.38'), 200);
    expect(listedOn(body)).toMatchObject({ [BARRACUDA]: null, [SPAMCOP]: false });
    expect(body.total_checked).toBe(7);
  });

  it.concurrent('answers 502 when no zone answers', async () => {
    for (const zone of ZONES) dns.silent.add(`39.216.184.93.${zone}`);
    const body = expectStatus(await check('93.184.216.39'), 502);
    expect(body.code).toBe('upstream_failed');
  });
});
