/**
 * DNS lookups at public resolvers (or a zone's own nameservers), their propagation, and reverse DNS with
 * forward confirmation (FCrDNS). Every question goes through the one DNS client (dns-client.ts); the pure
 * parts (which records of an answer count, where a zone starts) are separate from the network steps.
 */
import { performance } from 'node:perf_hooks';
import type { z } from 'zod';
import type {
  CheckDnsPropagationQuery,
  DnsRecordType,
  LookupDnsQuery,
  LookupReverseDnsQuery,
  ToolsDnsLookup,
  ToolsDnsPropagation,
  ToolsDnsResult,
  ToolsRdnsLookup,
} from '../../../contract/tools.contract';
import { badRequest, upstreamFailed } from '../../errors';
import { type Ip, parseIp } from '../../ipam';
import { describeReason, isRefusedAddress } from '../../net/refused-ranges';
import {
  arpaName,
  type DnsRecord,
  type DnsResponse,
  type DnsServer,
  DnsUnreachable,
  type QueryType,
  queryDns,
} from './dns-client';
import type { Tools } from './tools';

type RecordType = z.infer<typeof DnsRecordType>;
type DnsResult = z.infer<typeof ToolsDnsResult>;

/** The types `all=true` asks, each in its own question (ANY is deprecated, RFC 8482). */
export const COMMON_TYPES: readonly RecordType[] = ['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME', 'SOA'];
/** How long a resolver of /tools/dns or /tools/dns-propagation is waited for. */
export const RESOLVER_TIMEOUT_MS = 2000;
/** Nameservers asked with `authoritative=true`, and NS names considered to find them. */
const MAX_NAMESERVERS = 4;
const MAX_NS_CONSIDERED = 8;
/** Records shown per result, and characters per record (a long TXT is cut, marked with `…`). */
const MAX_RECORDS = 100;
const MAX_RECORD_LENGTH = 2048;
/** PTR names reported (and forward-confirmed) by /tools/rdns. */
const MAX_PTR_NAMES = 10;
/** Questions spent looking for the zone that encloses a name. */
const MAX_ZONE_STEPS = 12;
const DEFAULT_LOCATION = 'Unknown';

// ---------------------------------------------------------------------------------------------------------
// Endpoints
// ---------------------------------------------------------------------------------------------------------

export async function lookupDns(
  tools: Tools,
  query: z.infer<typeof LookupDnsQuery>,
): Promise<z.infer<typeof ToolsDnsLookup>> {
  const domain = canonical(query.domain);
  const types = query.all ? COMMON_TYPES : [query.type];
  const servers = query.authoritative
    ? await authoritativeServers(tools, domain)
    : tools.config.dnsResolvers.map((r) => ({ address: r.address, port: r.port }));
  const asked = await Promise.all(
    servers.map((server) => askServer(server, domain, types, !query.authoritative, query.all)),
  );
  if (!asked.some((a) => a.answered)) throw upstreamFailed(noAnswer(domain, query.authoritative));
  return { domain, type: query.all ? 'ALL' : query.type, results: asked.map((a) => a.result) };
}

export async function checkDnsPropagation(
  tools: Tools,
  query: z.infer<typeof CheckDnsPropagationQuery>,
): Promise<z.infer<typeof ToolsDnsPropagation>> {
  const domain = canonical(query.domain);
  const resolvers = tools.config.propagationResolvers;
  const asked = await Promise.all(
    resolvers.map(async (resolver) => ({
      resolver,
      ...(await askServer(resolver, domain, [query.type], true, false)),
    })),
  );
  if (!asked.some((a) => a.answered)) throw upstreamFailed(noAnswer(domain, false));
  return {
    domain,
    type: query.type,
    results: asked.map(({ resolver, result }) => ({
      ...result,
      label: resolver.label,
      location: resolver.location ?? DEFAULT_LOCATION,
    })),
  };
}

export async function lookupReverseDns(
  tools: Tools,
  query: z.infer<typeof LookupReverseDnsQuery>,
): Promise<z.infer<typeof ToolsRdnsLookup>> {
  const ip = parseIp(query.ip);
  if (!ip) throw badRequest('ip: must be an IPv4 or IPv6 address');
  const arpa = arpaName(ip);
  const response = await atResolver(tools, arpa, 'PTR');
  if (response.rcode !== 'NOERROR' && response.rcode !== 'NXDOMAIN') {
    throw upstreamFailed(`the DNS resolver answered ${response.rcode} for PTR ${arpa}`);
  }
  const ptrs = answerRecords(response.answers, arpa, 'PTR').slice(0, MAX_PTR_NAMES);
  const [names, zone] = await Promise.all([
    Promise.all(
      ptrs.map(async (ptr) => ({
        name: shown(ptr.text),
        fcrdns_valid: await forwardConfirmed(tools, String(ptr.data), ip),
      })),
    ),
    enclosingZone(tools, arpa),
  ]);
  return { ip: query.ip, arpa_query: arpa, names, authoritative_ns: zone.nameservers };
}

// ---------------------------------------------------------------------------------------------------------
// Asking a resolver or nameserver
// ---------------------------------------------------------------------------------------------------------

/**
 * One result for `server`: the records of every type asked (in parallel), the smallest TTL among them, the
 * time taken, and the response code: the first that is not NOERROR, so NXDOMAIN ("no such name") is never
 * mistaken for "no records". A server that answers with an error rcode (SERVFAIL, REFUSED …) has answered,
 * with no records; one that answers none of the questions in time gives empty records, null ttl and rcode,
 * and the time waited.
 */
async function askServer(
  server: DnsServer,
  name: string,
  types: readonly RecordType[],
  recursion: boolean,
  prefixed: boolean,
): Promise<{ answered: boolean; result: DnsResult }> {
  const started = performance.now();
  const outcomes = await Promise.allSettled(
    types.map(async (type) => ({
      type,
      response: await queryDns(server, name, type, { recursion, timeoutMs: RESOLVER_TIMEOUT_MS }),
    })),
  );
  const elapsed = Math.round((performance.now() - started) * 10) / 10;
  const responses = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
  const answered = responses.map(({ response }) => response);
  const records = responses.flatMap(({ type, response }) =>
    answerRecords(response.answers, name, type).map((record) => ({ type, record })),
  );
  return {
    answered: answered.length > 0,
    result: {
      resolver: server.address,
      records: shownRecords(records.map(({ type, record }) => (prefixed ? `${type} ${record.text}` : record.text))),
      ttl: records.length > 0 ? Math.min(...records.map(({ record }) => record.ttl)) : null,
      response_time_ms: answered.length > 0 ? Math.max(...answered.map((r) => r.responseTimeMs)) : elapsed,
      rcode: answered.find((r) => r.rcode !== 'NOERROR')?.rcode ?? answered[0]?.rcode ?? null,
    },
  };
}

/**
 * The records of `type` that answer `name`: owned by it or by a name its CNAME chain (as the resolver
 * followed it, in any order) leads to. Anything else in the answer section is ignored. A CNAME question
 * is answered by the name's own CNAME only.
 */
export function answerRecords(answers: DnsRecord[], name: string, type: QueryType): DnsRecord[] {
  const chain = new Set([canonical(name)]);
  for (let grew = type !== 'CNAME'; grew; ) {
    grew = false;
    for (const record of answers) {
      if (record.type !== 'CNAME' || !chain.has(canonical(record.name))) continue;
      const target = canonical(String(record.data));
      if (!chain.has(target)) {
        chain.add(target);
        grew = true;
      }
    }
  }
  return answers.filter((record) => record.type === type && chain.has(canonical(record.name)));
}

/** Distinct record strings, capped in number and length. */
function shownRecords(texts: string[]): string[] {
  return [...new Set(texts)]
    .slice(0, MAX_RECORDS)
    .map((text) => (text.length > MAX_RECORD_LENGTH ? `${text.slice(0, MAX_RECORD_LENGTH - 1)}…` : text));
}

const noAnswer = (domain: string, authoritative: boolean) =>
  authoritative ? `none of the nameservers of ${domain} answered` : `none of the DNS resolvers answered for ${domain}`;

// ---------------------------------------------------------------------------------------------------------
// The server's own resolver: zones, nameservers, forward confirmation
// ---------------------------------------------------------------------------------------------------------

/** A question to the server's own resolver; it not answering is a 502. */
async function atResolver(tools: Tools, name: string, type: QueryType): Promise<DnsResponse> {
  try {
    return await queryDns(tools.resolver, name, type);
  } catch (error) {
    if (error instanceof DnsUnreachable) throw upstreamFailed(`the DNS resolver did not answer for ${type} ${name}`);
    throw error;
  }
}

/**
 * The closest zone enclosing `name` that has NS records, and their names (sorted, no trailing dot). Asks
 * NS of `name`; without an answer it moves to the zone named by the SOA of the authority section (when it
 * encloses the name, and the name is not an alias: an alias's SOA is its target's zone), else to the parent
 * name. The root is never asked; empty nameservers when no zone is found within MAX_ZONE_STEPS questions.
 * An error rcode of the resolver is a 502, as it says nothing about the zone.
 */
async function enclosingZone(tools: Tools, name: string): Promise<{ zone: string; nameservers: string[] }> {
  let candidate = canonical(name);
  for (let step = 0; step < MAX_ZONE_STEPS && candidate !== ''; step++) {
    const response = await atResolver(tools, candidate, 'NS');
    if (response.rcode !== 'NOERROR' && response.rcode !== 'NXDOMAIN') {
      throw upstreamFailed(`the DNS resolver answered ${response.rcode} for NS ${candidate}`);
    }
    const own = response.answers.filter((r) => r.type === 'NS' && canonical(r.name) === candidate);
    if (own.length > 0) return { zone: candidate, nameservers: [...new Set(own.map((r) => shown(r.text)))].sort() };
    candidate = nextCandidate(candidate, response);
  }
  return { zone: candidate, nameservers: [] };
}

/** Where to look for the zone of `name` after an answer without its NS records. */
export function nextCandidate(name: string, response: Pick<DnsResponse, 'answers' | 'authorities'>): string {
  const aliased = response.answers.some((r) => r.type === 'CNAME' && canonical(r.name) === name);
  const soa = response.authorities.find((r) => r.type === 'SOA');
  const zone = soa ? canonical(soa.name) : undefined;
  if (!aliased && zone !== undefined && zone !== name && (zone === '' || name.endsWith(`.${zone}`))) return zone;
  return parentOf(name);
}

/**
 * The nameservers to ask for `domain` with `authoritative=true`: the NS of its zone, each resolved through
 * the server's own resolver and checked like any target. A nameserver with a refused address is skipped
 * (it is never asked); each usable one is asked at one address (IPv4 first), on port 53, at most
 * MAX_NAMESERVERS. 400 when every resolving nameserver is refused, 502 when none resolves.
 */
async function authoritativeServers(tools: Tools, domain: string): Promise<DnsServer[]> {
  const { zone, nameservers } = await enclosingZone(tools, domain);
  if (nameservers.length === 0) {
    throw badRequest(`domain: no zone with nameservers was found for ${domain}`);
  }
  const considered = nameservers.slice(0, MAX_NS_CONSIDERED);
  const resolved = await Promise.all(
    considered.map(async (ns) => ({ ns, addresses: await tools.resolveHost(ns).catch(() => [] as string[]) })),
  );
  const servers: DnsServer[] = [];
  let refusal: string | undefined;
  for (const { ns, addresses } of resolved) {
    const refused = addresses
      .map((address) => ({ address, reason: isRefusedAddress(address, tools.allowCidrs) }))
      .find(({ reason }) => reason !== null);
    if (refused?.reason) {
      refusal ??= `${ns} resolves to ${refused.address}, ${describeReason(refused.reason)}`;
      continue;
    }
    const address = addresses.find((a) => !a.includes(':')) ?? addresses[0];
    if (address && !servers.some((s) => s.address === address)) servers.push({ address, port: 53 });
  }
  if (servers.length > 0) return servers.slice(0, MAX_NAMESERVERS);
  if (refusal) throw badRequest(`domain: no nameserver of ${zone} may be asked (${refusal})`);
  throw upstreamFailed(`none of the nameservers of ${zone} resolves to an address`);
}

/** Whether `name`'s A or AAAA records contain `ip` (compared as numbers, not text). */
async function forwardConfirmed(tools: Tools, name: string, ip: Ip): Promise<boolean> {
  let addresses: string[];
  try {
    addresses = await tools.resolveHost(canonical(name));
  } catch {
    return false;
  }
  return addresses.some((text) => {
    const address = parseIp(text);
    return address !== null && address.version === ip.version && address.value === ip.value;
  });
}

// ---------------------------------------------------------------------------------------------------------
// Names
// ---------------------------------------------------------------------------------------------------------

/** A name as compared: lower case, without the trailing dot (the root is ''). */
const canonical = (name: string) => name.toLowerCase().replace(/\.$/, '');
/** A name as shown in rdns: without the trailing dot (`dns.google`). */
const shown = (text: string) => (text === '.' ? text : text.replace(/\.$/, ''));
const parentOf = (name: string) => name.slice(name.indexOf('.') + 1 || name.length);
