// Which of a parent's aligned blocks the occupied CIDRs touch, as merged spans of block indexes (0 = the first).
// Internal to free.ts; both strategies are exported so tests can hold them against each other.
import { BITS, type Cidr, cidrSize, containsCidr, type Range } from './ip';
import { mergeRanges } from './ranges';

export interface TakenBlocks {
  /** Merged, sorted, never adjacent; read lazily, since callers stop after the first few gaps. */
  spans: Iterable<Range>;
  /** How many blocks the spans hold. */
  count: bigint;
}

// Indexes below 2^52 stay exact in doubles even after adding one, so the common case can avoid bigint work.
const NUMBER_INDEX_BITS = 52;

export function takenBlockIndexes(parent: Cidr, prefix: number, occupied: Cidr[]): TakenBlocks {
  const fitsNumbers = prefix - parent.prefix <= NUMBER_INDEX_BITS;
  return fitsNumbers ? takenByNumbers(parent, prefix, occupied) : takenByBigints(parent, prefix, occupied);
}

/** For index spaces past 2^52 (e.g. an IPv6 /32 into /128s): one bigint span per occupied CIDR, then mergeRanges. */
export function takenByBigints(parent: Cidr, prefix: number, occupied: Cidr[]): TakenBlocks {
  const spans: Range[] = [];
  const indexShift = BigInt(BITS[parent.version] - prefix);
  for (const c of occupied) {
    const covered = clippedToParent(parent, c);
    if (covered) spans.push({ first: covered.first >> indexShift, last: covered.last >> indexShift });
  }
  const merged = mergeRanges(spans);
  return { spans: merged, count: merged.reduce((sum, r) => sum + (r.last - r.first + 1n), 0n) };
}

/** c's addresses inside parent, as offsets from parent's first address; null when they do not meet. */
function clippedToParent(parent: Cidr, c: Cidr): Range | null {
  if (c.version !== parent.version) return null;
  // A supernet covers all of parent; callers should not pass one, but the answer stays exact.
  if (c.prefix <= parent.prefix) return containsCidr(c, parent) ? { first: 0n, last: cidrSize(parent) - 1n } : null;
  const offset = c.network - parent.network;
  if (offset < 0n || offset >= cidrSize(parent)) return null;
  return { first: offset, last: offset + cidrSize(c) - 1n };
}

/**
 * The same answer doing one bigint subtraction and shift per CIDR, everything else on doubles: thousands of
 * children must be answered in a few milliseconds. Starts and ends are sorted apart and swept, which is sound
 * because how many spans cover a point depends only on the two multisets.
 */
export function takenByNumbers(parent: Cidr, prefix: number, occupied: Cidr[]): TakenBlocks {
  // Typed arrays, because their native numeric sort is several times faster than sorting with a comparator.
  const starts = new Float64Array(occupied.length);
  const ends = new Float64Array(occupied.length);
  const parentSize = cidrSize(parent);
  const indexShift = BigInt(BITS[parent.version] - prefix);
  let count = 0;
  for (const c of occupied) {
    if (c.version !== parent.version) continue;
    if (c.prefix <= parent.prefix) {
      if (containsCidr(c, parent)) return wholeParent(prefix - parent.prefix);
      continue;
    }
    const offset = c.network - parent.network;
    if (offset < 0n || offset >= parentSize) continue;
    const first = Number(offset >> indexShift);
    starts[count] = first;
    ends[count] = c.prefix >= prefix ? first : first + 2 ** (prefix - c.prefix) - 1;
    count++;
  }
  return sweepUnion(starts.subarray(0, count).sort(), ends.subarray(0, count).sort());
}

function wholeParent(indexBits: number): TakenBlocks {
  const count = 1n << BigInt(indexBits);
  return { spans: [{ first: 0n, last: count - 1n }], count };
}

/** Union of spans given their sorted starts and sorted ends; touching spans merge. */
function sweepUnion(starts: Float64Array, ends: Float64Array): TakenBlocks {
  const pieces: { first: number; last: number }[] = [];
  let count = 0;
  let nextStart = 0;
  let depth = 0;
  let first = 0;
  for (const end of ends) {
    // Every span starting at or right after this end joins the current piece before the end may close it
    // (past the last start, starts[nextStart] is undefined).
    for (let start = starts[nextStart]; start !== undefined && start <= end + 1; start = starts[++nextStart]) {
      if (depth++ === 0) first = start;
    }
    if (--depth > 0) continue;
    count += end - first + 1;
    pieces.push({ first, last: end });
  }
  return { spans: asBigintRanges(pieces), count: BigInt(count) };
}

function* asBigintRanges(pieces: { first: number; last: number }[]): Generator<Range> {
  for (const { first, last } of pieces) yield { first: BigInt(first), last: BigInt(last) };
}
