// An independent brute-force model of IP blocks for the ipam property tests: blocks are computed with division
// and remainders (never masks), membership by enumerating every address, text by string manipulation.
import fc from 'fast-check';
import type { Cidr, IpVersion, Range } from '../../server/ipam';

export const bitsOf = (version: IpVersion): number => (version === 4 ? 32 : 128);
export const sizeOf = (version: IpVersion, prefix: number): bigint => 2n ** BigInt(bitsOf(version) - prefix);
export const topOf = (version: IpVersion): bigint => 2n ** BigInt(bitsOf(version)) - 1n;

/** The block of length `prefix` holding `address`. */
export function modelCidr(version: IpVersion, address: bigint, prefix: number): Cidr {
  return { version, network: address - (address % sizeOf(version, prefix)), prefix };
}

/** Every address of a block; refuses big blocks so a bad generator cannot hang the suite. */
export function addressesOf(c: Cidr): bigint[] {
  const size = sizeOf(c.version, c.prefix);
  if (size > 1n << 16n) throw new Error(`model refuses to enumerate /${c.prefix}`);
  return Array.from({ length: Number(size) }, (_, i) => c.network + BigInt(i));
}

export function unionOf(blocks: Cidr[]): Set<bigint> {
  return new Set(blocks.flatMap(addressesOf));
}

export const inAnyRange = (value: bigint, ranges: Range[]) => ranges.some((r) => r.first <= value && value <= r.last);

/** Usable addresses per the rule: IPv4 /30 and shorter drop network and broadcast unless a pool. */
export function modelUsable(c: Cidr, isPool: boolean): bigint[] {
  const all = addressesOf(c);
  return c.version === 4 && c.prefix <= 30 && !isPool ? all.slice(1, -1) : all;
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32), so fast-check controls them through a seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fewest aligned blocks covering exactly first..last (test-side, to build occupied lists with exact counts). */
export function rangeToCidrs(version: IpVersion, first: bigint, last: bigint): Cidr[] {
  const blocks: Cidr[] = [];
  let start = first;
  while (start <= last) {
    let prefix = bitsOf(version);
    while (
      prefix > 0 &&
      start % sizeOf(version, prefix - 1) === 0n &&
      start + sizeOf(version, prefix - 1) - 1n <= last
    ) {
      prefix--;
    }
    blocks.push({ version, network: start, prefix });
    start += sizeOf(version, prefix);
  }
  return blocks;
}

// ---- text ----

export const words = (value: bigint): number[] =>
  Array.from({ length: 8 }, (_, i) => Number((value / 2n ** BigInt(16 * (7 - i))) % 65536n));

export const dotted = (value32: bigint): string =>
  [3, 2, 1, 0].map((i) => String((value32 / 256n ** BigInt(i)) % 256n)).join('.');

/** RFC 5952 by regex over the uncompressed text, plus PostgreSQL's dotted tail for ::ffff:a.b.c.d and ::a.b.c.d. */
export function modelFormatIpv6(value: bigint): string {
  const groups = words(value).map((w) => w.toString(16));
  const leadingZeros = groups.slice(0, 5).every((g) => g === '0');
  if (leadingZeros && (groups[5] === 'ffff' || (groups[5] === '0' && groups[6] !== '0'))) {
    return `::${groups[5] === 'ffff' ? 'ffff:' : ''}${dotted(value % 2n ** 32n)}`;
  }
  const text = groups.join(':');
  let best: { start: number; end: number } | null = null;
  for (const m of text.matchAll(/(^|:)(0(?::0)+)(?=:|$)/g)) {
    const [, separator = '', zeros = ''] = m;
    const start = (m.index ?? 0) + separator.length;
    const end = start + zeros.length;
    if (!best || end - start > best.end - best.start) best = { start, end };
  }
  if (!best) return text;
  return `${text.slice(0, best.start).replace(/:$/, '')}::${text.slice(best.end).replace(/^:/, '')}`;
}

export const canonicalText = (version: IpVersion, value: bigint) =>
  version === 4 ? dotted(value) : modelFormatIpv6(value);

// ---- generators ----

export const versionArb = fc.constantFrom<IpVersion>(4, 6);

/** Addresses anywhere, IPv6 ones often made of zero and ffff words so every text form gets exercised. */
export const addressArb = (version: IpVersion): fc.Arbitrary<bigint> => {
  const uniform = fc.bigInt({ min: 0n, max: topOf(version) });
  if (version === 4) return uniform;
  const word = fc.oneof(fc.constant(0), fc.constant(0xffff), fc.constant(1), fc.integer({ min: 0, max: 0xffff }));
  const wordy = fc
    .array(word, { minLength: 8, maxLength: 8 })
    .map((ws) => ws.reduce((value, w) => value * 65536n + BigInt(w), 0n));
  return fc.oneof(uniform, wordy);
};

/** Blocks small enough to enumerate (IPv4 /20.., IPv6 /116..), anywhere in the space. */
export const smallPrefixArb = (version: IpVersion) =>
  fc.integer({ min: version === 4 ? 20 : 116, max: bitsOf(version) });

export const smallParentArb: fc.Arbitrary<Cidr> = versionArb.chain((version) =>
  fc
    .tuple(addressArb(version), smallPrefixArb(version))
    .map(([address, prefix]) => modelCidr(version, address, prefix)),
);

/** A block somewhere inside `parent`, at any depth from `minPrefix` down to a single address. */
export const childArb = (parent: Cidr, minPrefix = parent.prefix): fc.Arbitrary<Cidr> =>
  fc
    .tuple(
      fc.bigInt({ min: 0n, max: sizeOf(parent.version, parent.prefix) - 1n }),
      fc.integer({ min: minPrefix, max: bitsOf(parent.version) }),
    )
    .map(([offset, prefix]) => modelCidr(parent.version, parent.network + offset, prefix));
