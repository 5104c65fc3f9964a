/**
 * The autonomous system of an address, or an AS number's details, from Team Cymru's DNS interface asked
 * through the server's resolver: TXT `<reversed IPv4>.origin.asn.cymru.com` (or the 32 nibbles under
 * `origin6.asn.cymru.com`) answers `ASN | prefix | CC | registry | allocated`; `AS<n>.asn.cymru.com` answers
 * `ASN | CC | registry | allocated | AS name`. When Cymru does not answer (no answer in time, SERVFAIL,
 * REFUSED …), RDAP (`/ip/<ip>`, `/autnum/<n>`) is asked instead; 502 when neither answers.
 *
 * Decisions: an address the shared list refuses (private, loopback, documentation …) and an AS number
 * reserved for private use, documentation or AS_TRANS are a 400 naming `query` — nothing on the internet
 * announces them. Several announcements of an address: the most specific prefix wins, and of several
 * origin ASes of it (`23028 701 | …`) the first listed. Nothing known (Cymru's NXDOMAIN, RDAP's 404, records
 * that do not read) is a 404 `not_found`, not a 200 whose fields are all null. From RDAP, `prefix` is the registered network (RDAP says nothing of routing) and
 * `asn` only ARIN's origin-AS extension gives for an address.
 */
import type { z } from 'zod';
import type { LookupAsnQuery, ToolsAsnLookup } from '../../../contract/tools.contract';
import { badRequest, HttpError, upstreamFailed } from '../../errors';
import { formatIp, type Ip, parseCidr, parseIp } from '../../ipam';
import { describeReason, isRefusedAddress } from '../../net/refused-ranges';
import { arpaName, DnsUnreachable, queryDns, txtStrings } from './dns-client';
import { RdapFailed, rdapGet } from './rdap';
import type { Tools } from './tools';
import { cleanText, parseRdapAsn } from './whois-parse';

type AsnLookup = z.infer<typeof ToolsAsnLookup>;
type Facts = Omit<AsnLookup, 'query' | 'type'>;

const RDAP_TIME_LIMIT_MS = 8_000;
const MAX_ASN = 4_294_967_295;
const NOTHING: Facts = { asn: null, as_name: null, prefix: null, country: null, rir: null, allocated: null };

export async function lookupAsn(tools: Tools, { query }: z.infer<typeof LookupAsnQuery>): Promise<AsnLookup> {
  const ip = parseIp(query);
  if (ip) return { query, type: 'ip', ...known(formatIp(ip), await addressFacts(tools, ip)) };
  const asn = Number(query.replace(/^as/i, ''));
  const reserved = reservedAsn(asn);
  if (reserved) throw badRequest(`query: AS${asn} is ${reserved}, not registered to anyone`);
  return { query, type: 'asn', ...known(`AS${asn}`, await asnFacts(tools, asn)) };
}

/** The facts of `subject`; 404 when none is known (nobody announces the address, the AS number is unknown). */
function known(subject: string, facts: Facts): Facts {
  if (Object.values(facts).some((value) => value !== null)) return facts;
  throw new HttpError(404, 'not_found', `no routing data for ${subject}`);
}

async function addressFacts(tools: Tools, ip: Ip): Promise<Facts> {
  const address = formatIp(ip);
  const refused = isRefusedAddress(address, []);
  if (refused)
    throw badRequest(`query: ${address} is ${describeReason(refused)}, which no autonomous system announces`);
  const origin = await cymru(tools, originName(ip));
  if (origin === null) return rdapFacts(tools, `/ip/${address}`);
  const route = parseCymruOrigin(origin);
  if (!route) return NOTHING;
  const as = await cymru(tools, `AS${route.asn}.asn.cymru.com`);
  const details = as === null ? null : parseCymruAs(as);
  return {
    ...route,
    as_name: details?.as_name ?? null,
    country: route.country ?? details?.country ?? null,
    rir: route.rir ?? details?.rir ?? null,
  };
}

async function asnFacts(tools: Tools, asn: number): Promise<Facts> {
  const answer = await cymru(tools, `AS${asn}.asn.cymru.com`);
  if (answer === null) return rdapFacts(tools, `/autnum/${asn}`);
  const details = parseCymruAs(answer);
  return details ? { ...details, prefix: null } : NOTHING;
}

/** `d.c.b.a.origin.asn.cymru.com`, or the nibbles of an IPv6 address under `origin6.asn.cymru.com`. */
export function originName(ip: Ip): string {
  return ip.version === 4
    ? arpaName(ip).replace(/in-addr\.arpa$/, 'origin.asn.cymru.com')
    : arpaName(ip).replace(/ip6\.arpa$/, 'origin6.asn.cymru.com');
}

/** The TXT strings of a Cymru name: [] when it does not exist, null when the resolver gave no answer. */
async function cymru(tools: Tools, name: string): Promise<string[] | null> {
  try {
    const response = await queryDns(tools.resolver, name, 'TXT');
    if (response.rcode === 'NXDOMAIN') return [];
    if (response.rcode !== 'NOERROR') return null;
    return response.answers.filter((r) => r.type === 'TXT').map((r) => cleanText(txtStrings(r.data).join('')));
  } catch (error) {
    if (error instanceof DnsUnreachable) return null;
    throw error;
  }
}

async function rdapFacts(tools: Tools, path: string): Promise<Facts> {
  try {
    const answer = await rdapGet(tools, path, Date.now() + RDAP_TIME_LIMIT_MS);
    return answer.status === 404 ? NOTHING : parseRdapAsn(answer.json, new URL(answer.url).hostname);
  } catch (error) {
    if (!(error instanceof RdapFailed)) throw error;
    throw upstreamFailed(`query: Team Cymru's DNS did not answer and RDAP failed (${error.message})`);
  }
}

const fieldsOf = (txt: string) => txt.split('|').map((field) => field.trim());
const orNull = (value: string | undefined) => (value ? value : null);
const countryOf = (value: string | undefined) => (value && /^[A-Za-z]{2}$/.test(value) ? value.toUpperCase() : null);

/**
 * `ASN(s) | prefix | CC | registry | allocated` records of an address: the most specific prefix's, its first
 * ASN. Null when no record reads.
 */
export function parseCymruOrigin(records: string[]): Omit<Facts, 'as_name'> | null {
  let best: { prefixLength: number; facts: Omit<Facts, 'as_name'> } | null = null;
  for (const record of records) {
    const [asns = '', prefix = '', country, rir, allocated] = fieldsOf(record);
    const asn = Number(asns.split(/\s+/)[0]);
    const cidr = parseCidr(prefix);
    if (!/^\d+$/.test(asns.split(/\s+/)[0] ?? '') || asn > MAX_ASN || !cidr) continue;
    if (best && best.prefixLength >= cidr.cidr.prefix) continue;
    best = {
      prefixLength: cidr.cidr.prefix,
      facts: {
        asn,
        prefix,
        country: countryOf(country),
        rir: orNull(rir?.toLowerCase()),
        allocated: orNull(allocated),
      },
    };
  }
  return best?.facts ?? null;
}

/** The `ASN | CC | registry | allocated | AS name` record of an AS number (the first that reads). */
export function parseCymruAs(records: string[]): Omit<Facts, 'prefix'> | null {
  for (const record of records) {
    const [asn = '', country, rir, allocated, ...name] = fieldsOf(record);
    if (!/^\d+$/.test(asn) || Number(asn) > MAX_ASN) continue;
    return {
      asn: Number(asn),
      as_name: orNull(name.join('|').trim()),
      country: countryOf(country),
      rir: orNull(rir?.toLowerCase()),
      allocated: orNull(allocated),
    };
  }
  return null;
}

/** Why an AS number can have no owner (IANA's special-purpose AS numbers), or null. */
export function reservedAsn(asn: number): string | null {
  if (!Number.isInteger(asn) || asn > MAX_ASN) return `beyond the largest AS number (${MAX_ASN})`;
  if (asn === 0) return 'reserved (RFC 7607)';
  if (asn === 23456) return 'AS_TRANS (RFC 6793)';
  if ((asn >= 64496 && asn <= 64511) || (asn >= 65536 && asn <= 65551)) return 'reserved for documentation (RFC 5398)';
  if ((asn >= 64512 && asn <= 65534) || (asn >= 4_200_000_000 && asn < MAX_ASN)) return 'for private use (RFC 6996)';
  if (asn === 65535 || asn === MAX_ASN) return 'reserved (RFC 7300)';
  return null;
}
