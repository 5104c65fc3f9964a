/**
 * DNS blocklists (RFC 5782): is an address listed on 7 maintained DNSBL zones. Each zone is asked in
 * parallel, through the server's resolver, for the A record of the address's reversed form under the zone
 * (octets for IPv4, nibbles for IPv6). An answer in 127.0.0.0/8 lists it, NXDOMAIN does not; anything else
 * (no answer in time, SERVFAIL, REFUSED, a zone's documented "query refused" codes, an address outside
 * 127/8 from a resolver rewriting NXDOMAIN) is unknown: `listed: null`, never counted as listed.
 */
import type { z } from 'zod';
import type { CheckIpBlacklistQuery, ToolsBlacklistCheck } from '../../../contract/tools.contract';
import { badRequest, upstreamFailed } from '../../errors';
import { formatIp, type Ip, parseIp } from '../../ipam';
import { describeReason, isRefusedAddress } from '../../net/refused-ranges';
import { arpaName, type DnsResponse, DnsUnreachable, queryDns } from './dns-client';
import type { Tools } from './tools';

type BlacklistResult = z.infer<typeof ToolsBlacklistCheck>['results'][number];

/** Per zone: a quick answer or none; the 7 questions run in parallel, so this is the check's duration at worst. */
const DNSBL_TIMEOUT_MS = 2000;

/**
 * The zones: public, free for low-volume queries, maintained at the time of writing (2025), each with its
 * own listing policy so that together they see different kinds of abuse. (SORBS closed in 2024; NJABL, AHBL
 * and the CBL as a separate zone are gone, and are left out on purpose.) Zones that list no IPv6 address
 * answer NXDOMAIN for a nibble name, which reads as "not listed".
 */
export const DNSBLS: { list: string; zone: string }[] = [
  // Spamhaus ZEN: SBL, CSS, XBL and PBL in one zone, the most widely used; IPv4 and IPv6.
  { list: 'Spamhaus ZEN', zone: 'zen.spamhaus.org' },
  // SpamCop (Cisco Talos): listings driven by user spam reports, expiring automatically.
  { list: 'SpamCop', zone: 'bl.spamcop.net' },
  // Barracuda Reputation Block List: Barracuda's own sender reputation; free with resolver registration.
  { list: 'Barracuda BRBL', zone: 'b.barracudacentral.org' },
  // Passive Spam Block List: spam-trap hits, with self-service removal.
  { list: 'PSBL', zone: 'psbl.surriel.com' },
  // UCEPROTECT level 1: single addresses seen sending to its traps (levels 2 and 3 list whole networks).
  { list: 'UCEPROTECT Level 1', zone: 'dnsbl-1.uceprotect.net' },
  // Mailspike: sender reputation from its own sensor network.
  { list: 'Mailspike', zone: 'bl.mailspike.net' },
  // DroneBL: botnet drones, open proxies and other abusable hosts (not only mail); IPv4 and IPv6.
  { list: 'DroneBL', zone: 'dnsbl.dronebl.org' },
];

/**
 * 127.255.255.0/24 is not a listing: Spamhaus answers 127.255.255.252 (malformed query), .254 (query through
 * a public resolver) and .255 (too many queries) to mean "refused", and no other zone here lists with it.
 */
const REFUSAL = /^127\.255\.255\.\d+$/;
const LOOPBACK_NET = /^127\.\d+\.\d+\.\d+$/;

/** The name to ask a zone about `ip`: the reverse-lookup name without its `in-addr.arpa`/`ip6.arpa`. */
function dnsblName(ip: Ip, zone: string): string {
  return `${arpaName(ip).replace(/\.(?:in-addr|ip6)\.arpa$/, '')}.${zone}`;
}

/** What an answer says: listed (true), not listed (false), or unknown (null). */
function dnsblVerdict(response: DnsResponse): boolean | null {
  if (response.rcode === 'NXDOMAIN') return false;
  if (response.rcode !== 'NOERROR') return null;
  const addresses = response.answers.filter((r) => r.type === 'A').map((r) => r.text);
  if (addresses.some((a) => LOOPBACK_NET.test(a) && !REFUSAL.test(a))) return true;
  // An empty answer (NODATA) holds no listing; refusal codes and addresses outside 127/8 say nothing.
  return addresses.length === 0 ? false : null;
}

/** The address as checked: IPv4-mapped IPv6 is its IPv4 address, which is what the zones list. */
function checkedIp(text: string): Ip {
  const ip = parseIp(text);
  if (!ip) throw badRequest('ip: must be an IPv4 or IPv6 address');
  if (ip.version === 6 && ip.value >> 32n === 0xffffn) return { version: 4, value: ip.value & 0xffffffffn };
  return ip;
}

/**
 * The check. Addresses in the shared refused list (private, loopback, documentation …) are refused with a
 * 400: blocklists list only public addresses, and asking about internal ones would tell the zones' operators
 * about them. 502 when no zone could be asked at all (every question unanswered or failed).
 */
export async function checkIpBlacklist(
  tools: Tools,
  query: z.infer<typeof CheckIpBlacklistQuery>,
): Promise<z.infer<typeof ToolsBlacklistCheck>> {
  const ip = checkedIp(query.ip);
  const shown = formatIp(ip);
  const reason = isRefusedAddress(shown, []);
  if (reason) throw badRequest(`ip: ${shown} is ${describeReason(reason)}; DNS blocklists list only public addresses`);

  const outcomes = await Promise.all(
    DNSBLS.map(async ({ list, zone }) => {
      try {
        const response = await queryDns(tools.resolver, dnsblName(ip, zone), 'A', { timeoutMs: DNSBL_TIMEOUT_MS });
        const failed = response.rcode !== 'NOERROR' && response.rcode !== 'NXDOMAIN';
        return { result: { list, zone, listed: dnsblVerdict(response) }, failed };
      } catch (error) {
        if (!(error instanceof DnsUnreachable)) throw error;
        return { result: { list, zone, listed: null }, failed: true };
      }
    }),
  );
  if (outcomes.every((o) => o.failed))
    throw upstreamFailed('DNS: no blocklist zone could be asked (the resolver failed every question)');
  const results: BlacklistResult[] = outcomes.map((o) => o.result);
  return {
    ip: shown,
    listed_count: results.filter((r) => r.listed === true).length,
    total_checked: results.length,
    results,
  };
}
