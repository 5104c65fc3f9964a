// Addresses and CIDR blocks as bigints: parsing, canonical text, containment and ordering.

export type IpVersion = 4 | 6;

export const BITS: Record<IpVersion, number> = { 4: 32, 6: 128 };

export interface Ip {
  version: IpVersion;
  value: bigint;
}

/** `network` has no host bits set. */
export interface Cidr {
  version: IpVersion;
  network: bigint;
  prefix: number;
}

/** Inclusive on both ends. */
export interface Range {
  first: bigint;
  last: bigint;
}

// Decimal without leading zeros (so "010" is refused rather than read as octal or decimal).
const DECIMAL_OCTET = /^(0|[1-9][0-9]{0,2})$/;
const PREFIX_LENGTH = /^(0|[1-9][0-9]{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;
const IPV6_WORDS = 8;

/** Strict IPv4 dotted quad or IPv6 text (RFC 4291, embedded IPv4 allowed); no zone, brackets, prefix or spaces. */
export function parseIp(text: string): Ip | null {
  if (typeof text !== 'string') return null;
  if (text.includes(':')) {
    const value = parseIpv6(text);
    return value === null ? null : { version: 6, value };
  }
  const value = parseIpv4(text);
  return value === null ? null : { version: 4, value };
}

function parseIpv4(text: string): bigint | null {
  const octets = text.split('.');
  if (octets.length !== 4) return null;
  let value = 0n;
  for (const octet of octets) {
    if (!DECIMAL_OCTET.test(octet) || Number(octet) > 255) return null;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

function parseIpv6(text: string): bigint | null {
  const [before = '', after, ...more] = text.split('::');
  if (more.length > 0) return null;
  const compressed = after !== undefined;
  // An embedded IPv4 may only end the address, so never right before "::".
  const head = parseWords(before, !compressed);
  const tail = after !== undefined ? parseWords(after, true) : [];
  if (head === null || tail === null) return null;
  const explicit = head.length + tail.length;
  // "::" stands for at least one zero word.
  if (compressed ? explicit >= IPV6_WORDS : explicit !== IPV6_WORDS) return null;
  const zeros: number[] = new Array(IPV6_WORDS - explicit).fill(0);
  return [...head, ...zeros, ...tail].reduce((value, word) => (value << 16n) | BigInt(word), 0n);
}

/** Colon-separated hex groups as 16-bit words; a trailing dotted quad counts as two words. */
function parseWords(text: string, mayEndWithIpv4: boolean): number[] | null {
  if (text === '') return [];
  const groups = text.split(':');
  const words: number[] = [];
  for (const [index, group] of groups.entries()) {
    if (HEX_GROUP.test(group)) {
      words.push(Number.parseInt(group, 16));
      continue;
    }
    const isLast = index === groups.length - 1;
    const ipv4 = mayEndWithIpv4 && isLast ? parseIpv4(group) : null;
    if (ipv4 === null) return null;
    words.push(Number(ipv4 >> 16n), Number(ipv4 & 0xffffn));
  }
  return words;
}

/** Canonical text, the same as PostgreSQL's inet output. */
export function formatIp(ip: Ip): string {
  return ip.version === 4 ? formatIpv4(ip.value) : formatIpv6(ip.value);
}

function formatIpv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** RFC 5952 (lowercase, longest zero run of two or more words compressed, the first on ties), plus PostgreSQL's dotted tail. */
function formatIpv6(value: bigint): string {
  const words = toWords(value);
  if (printsDottedTail(words)) {
    const mapped = words[5] === 0xffff ? 'ffff:' : '';
    return `::${mapped}${formatIpv4(value & 0xffffffffn)}`;
  }
  const hex = words.map((word) => word.toString(16));
  const run = longestZeroRun(words);
  if (run.length < 2) return hex.join(':');
  return `${hex.slice(0, run.start).join(':')}::${hex.slice(run.start + run.length).join(':')}`;
}

function toWords(value: bigint): number[] {
  return Array.from({ length: IPV6_WORDS }, (_, i) => Number((value >> BigInt(16 * (IPV6_WORDS - 1 - i))) & 0xffffn));
}

/**
 * PostgreSQL (BIND's inet_net_ntop) prints the low 32 bits dotted for IPv4-mapped ::ffff:a.b.c.d and for
 * IPv4-compatible ::a.b.c.d whose zero run is exactly six words (so ::1 and ::2 stay hex).
 */
function printsDottedTail(words: number[]): boolean {
  if (words.slice(0, 5).some((word) => word !== 0)) return false;
  return words[5] === 0xffff || (words[5] === 0 && words[6] !== 0);
}

function longestZeroRun(words: number[]): { start: number; length: number } {
  let best = { start: -1, length: 0 };
  let start = -1;
  for (let i = 0; i <= words.length; i++) {
    if (i < words.length && words[i] === 0) {
      if (start < 0) start = i;
      continue;
    }
    // Strictly longer only, so the first run wins ties.
    if (start >= 0 && i - start > best.length) best = { start, length: i - start };
    start = -1;
  }
  return best;
}

/** "10.0.0.5/24" gives 10.0.0.0/24 with hostBitsSet; the prefix is required, decimal, without leading zeros. */
export function parseCidr(text: string): { cidr: Cidr; hostBitsSet: boolean } | null {
  if (typeof text !== 'string') return null;
  const [address = '', prefixText, ...more] = text.split('/');
  if (prefixText === undefined || more.length > 0 || !PREFIX_LENGTH.test(prefixText)) return null;
  const ip = parseIp(address);
  const prefix = Number(prefixText);
  if (ip === null || prefix > BITS[ip.version]) return null;
  const hostBits = ip.value & hostMask(ip.version, prefix);
  return { cidr: { version: ip.version, network: ip.value - hostBits, prefix }, hostBitsSet: hostBits !== 0n };
}

export function formatCidr(c: Cidr): string {
  return `${formatIp({ version: c.version, value: c.network })}/${c.prefix}`;
}

function hostMask(version: IpVersion, prefix: number): bigint {
  return (1n << BigInt(BITS[version] - prefix)) - 1n;
}

export function cidrSize(c: Cidr): bigint {
  return 1n << BigInt(BITS[c.version] - c.prefix);
}

export function cidrRange(c: Cidr): Range {
  return { first: c.network, last: c.network + cidrSize(c) - 1n };
}

export function containsIp(c: Cidr, ip: Ip): boolean {
  if (c.version !== ip.version) return false;
  const { first, last } = cidrRange(c);
  return first <= ip.value && ip.value <= last;
}

/** outer ⊇ inner; equal blocks count. An aligned inner block is inside when it is no larger and starts inside. */
export function containsCidr(outer: Cidr, inner: Cidr): boolean {
  return outer.prefix <= inner.prefix && containsIp(outer, { version: inner.version, value: inner.network });
}

export function sameCidr(a: Cidr, b: Cidr): boolean {
  return a.version === b.version && a.network === b.network && a.prefix === b.prefix;
}

/** Orders by version, then network, then prefix, so a supernet sorts before its first subnet. */
export function compareCidr(a: Cidr, b: Cidr): number {
  if (a.version !== b.version) return a.version < b.version ? -1 : 1;
  if (a.network !== b.network) return a.network < b.network ? -1 : 1;
  return Math.sign(a.prefix - b.prefix);
}
