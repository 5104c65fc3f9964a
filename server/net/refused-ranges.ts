/**
 * The shared list of addresses outbound requests (webhooks, network tools) may never reach, as pure
 * arithmetic on server/ipam's parsed addresses. The list: docs/decisions.md, "What is refused".
 */
import { type Cidr, containsIp, type Ip, parseCidr, parseIp } from '../ipam';

function block(text: string): Cidr {
  const parsed = parseCidr(text);
  if (!parsed || parsed.hostBitsSet) throw new Error(`bad built-in CIDR ${text}`);
  return parsed.cidr;
}

/** Checked in order: the first block holding the address names the reason (specific before general). */
const table = (entries: [string, string][]): [Cidr, string][] => entries.map(([cidr, reason]) => [block(cidr), reason]);

const IPV4_REFUSED = table([
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'CGNAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.169.254/32', 'cloud metadata'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'documentation'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

const IPV6_REFUSED = table([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['fd00:ec2::254/128', 'cloud metadata'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
  ['2001:db8::/32', 'documentation'],
  ['2001:2::/48', 'benchmarking'],
  ['100::/64', 'discard-only'],
  // NAT64 local-use prefix: only meaningful inside a private network.
  ['64:ff9b:1::/48', 'local-use NAT64'],
]);

/** Forms that carry an IPv4 address inside an IPv6 one; the embedded address is checked too. */
const MAPPED = block('::ffff:0:0/96');
const NAT64 = block('64:ff9b::/96');
const SIX_TO_FOUR = block('2002::/16');
const TEREDO = block('2001::/32');
/** IPv4-compatible (deprecated, ::a.b.c.d) and the rest of ::/96. */
const COMPATIBLE = block('::/96');
/** Global unicast: every other IPv6 address outside it is refused as reserved. */
const GLOBAL_UNICAST = block('2000::/3');

const v4 = (value: bigint): Ip => ({ version: 4, value: value & 0xffffffffn });

const first = (list: [Cidr, string][], ip: Ip) => list.find(([cidr]) => containsIp(cidr, ip))?.[1] ?? null;

/** Why the address (already parsed) is refused, ignoring the allow list; null when it is a public address. */
function refusedReason(ip: Ip): string | null {
  if (ip.version === 4) return first(IPV4_REFUSED, ip);
  const embedded = (label: string, inner: Ip) => {
    const reason = first(IPV4_REFUSED, inner);
    return reason && `${label} ${reason}`;
  };
  if (containsIp(MAPPED, ip)) return embedded('IPv4-mapped', v4(ip.value));
  if (containsIp(NAT64, ip)) return embedded('NAT64', v4(ip.value));
  if (containsIp(SIX_TO_FOUR, ip)) return embedded('6to4', v4(ip.value >> 80n));
  if (containsIp(TEREDO, ip)) {
    // The client's address is stored inverted in the low 32 bits; the Teredo server's follows the prefix.
    return embedded('Teredo', v4(~ip.value)) ?? embedded('Teredo server', v4(ip.value >> 64n));
  }
  const listed = first(IPV6_REFUSED, ip);
  if (listed) return listed;
  if (containsIp(COMPATIBLE, ip)) return 'IPv4-compatible';
  return containsIp(GLOBAL_UNICAST, ip) ? null : 'reserved';
}

/** The allow list as parsed blocks; an entry that does not parse allows nothing. */
function allowBlocks(allowCidrs: string[]): Cidr[] {
  return allowCidrs.flatMap((text) => {
    const ip = parseIp(text);
    const cidr = ip
      ? { version: ip.version, network: ip.value, prefix: ip.version === 4 ? 32 : 128 }
      : parseCidr(text)?.cidr;
    return cidr ? [cidr] : [];
  });
}

/** Whether the address lies inside one of the allowed blocks, as written (an IPv4 block does not allow its IPv6 forms). */
export function isAllowedAddress(ip: string, allowCidrs: string[]): boolean {
  const parsed = parseIp(ip);
  return parsed !== null && allowBlocks(allowCidrs).some((cidr) => containsIp(cidr, parsed));
}

/**
 * Whether an address is refused by the shared list and not permitted by `allowCidrs`: the reason
 * ('loopback', 'private', 'IPv4-mapped loopback' …) or null when it may be contacted. Pure.
 */
export function isRefusedAddress(ip: string, allowCidrs: string[]): string | null {
  const parsed = parseIp(ip);
  if (parsed === null) return 'invalid';
  if (allowBlocks(allowCidrs).some((cidr) => containsIp(cidr, parsed))) return null;
  return refusedReason(parsed);
}

/** "a loopback address", "an IPv4-mapped loopback address". */
export function describeReason(reason: string): string {
  return `${/^(IPv4|unspecified|invalid|[aeio])/i.test(reason) ? 'an' : 'a'} ${reason} address`;
}
