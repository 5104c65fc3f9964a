// Sorted, merged ranges of bigints and lookups in them.
import type { Range } from './ip';

/** Sorted, non-overlapping, adjacent ranges merged. Empty ranges (first > last) are dropped. */
export function mergeRanges(ranges: Range[]): Range[] {
  const sorted = ranges.filter((r) => r.first <= r.last).sort((a, b) => compareBigint(a.first, b.first));
  const merged: Range[] = [];
  for (const { first, last } of sorted) {
    const previous = merged[merged.length - 1];
    if (previous && first <= previous.last + 1n) {
      if (last > previous.last) previous.last = last;
    } else {
      merged.push({ first, last });
    }
  }
  return merged;
}

function compareBigint(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The smallest value ≥ from not inside any of `excluded` (sorted merged ranges); may return a value past any bound. */
export function skipExcluded(from: bigint, excluded: Range[]): bigint {
  const covering = lastStartingAtOrBefore(from, excluded);
  // Merged ranges are never adjacent, so the value right after the covering range is free.
  return covering && covering.last >= from ? covering.last + 1n : from;
}

/** Binary search in ranges sorted by first. */
function lastStartingAtOrBefore(value: bigint, ranges: Range[]): Range | undefined {
  let low = 0;
  let high = ranges.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    // low <= middle < high <= ranges.length: the range is there.
    const range = ranges[middle];
    if (range !== undefined && range.first <= value) low = middle + 1;
    else high = middle;
  }
  return ranges[low - 1];
}

/** The fewest CIDR blocks covering exactly `range` (addresses of an `bits`-bit family), in order. */
export function rangeToBlocks(range: Range, bits: number): { network: bigint; prefix: number }[] {
  const blocks: { network: bigint; prefix: number }[] = [];
  let first = range.first;
  while (first <= range.last) {
    // The largest aligned block starting at `first` that ends inside the range.
    let size = first === 0n ? 1n << BigInt(bits) : first & -first;
    while (first + size - 1n > range.last) size >>= 1n;
    blocks.push({ network: first, prefix: bits - (size.toString(2).length - 1) });
    first += size;
  }
  return blocks;
}

/**
 * The smallest address ≥ from (and ≤ last) holding no record, else last + 1, found by counting: one pass
 * over a window counts its records up to each of `parts` sub-window ends, and the search moves into the
 * first sub-window short of records; once few records remain, they are listed and walked to the gap.
 * Counting is far cheaper per record than listing (whole blocks are counted by their tallies), and a sparse
 * range needs one count and one listing.
 */
export async function nextUnused(
  from: bigint,
  last: bigint,
  records: {
    /** Records in [low, end] for each of `ends` (ascending), in one pass. */
    countUpTo: (low: bigint, ends: bigint[]) => Promise<number[]>;
    list: (low: bigint, high: bigint) => Promise<bigint[]>;
  },
  // Listing costs about 2 µs a record, a count of a window by tallies about a round trip: a window of 2,000
  // records is counted again rather than listed.
  listBelow = 256,
  parts = 8n,
): Promise<bigint> {
  let low = from;
  let high = last;
  if (low > high) return low;
  for (let first = true; ; first = false) {
    const size = high - low + 1n;
    const step = size / parts > 0n ? size / parts : 1n;
    const ends: bigint[] = [];
    for (let end = low + step - 1n; end < high; end += step) ends.push(end);
    ends.push(high);
    const upTo = await records.countUpTo(low, ends);
    // Each sub-window with the records it holds, from the running count up to each end (one per end).
    const windows: { start: bigint; end: bigint; held: bigint }[] = [];
    const counts = upTo.values();
    let start = low;
    let inWindow = 0;
    for (const end of ends) {
      const count = counts.next();
      if (count.done) throw new Error(`countUpTo answered ${upTo.length} counts for ${ends.length} ends`);
      windows.push({ start, end, held: BigInt(count.value - inWindow) });
      [start, inWindow] = [end + 1n, count.value];
    }
    // Only the first window may be full; every later one was chosen for holding a free address.
    if (first && BigInt(inWindow) === size) return high + 1n;
    if (inWindow <= listBelow || ends.length === 1) break;
    // Move into the first sub-window holding fewer records than addresses.
    const roomy = windows.find((w) => w.held < w.end - w.start + 1n);
    // Counts that leave no sub-window roomy contradict the first pass's: the records are listed instead of
    // counting the same window again forever.
    if (!roomy) break;
    [low, high] = [roomy.start, roomy.end];
  }
  let candidate = low;
  for (const used of await records.list(low, high)) {
    if (used !== candidate) break;
    candidate++;
  }
  return candidate;
}

/** Addresses per block of the records' tallies the database keeps (migration 0017): a /24, a /120 in IPv6. */
export const TALLY_BLOCK = 256n;

/** A part of a range whose records are counted in one way: by their blocks' tallies, or one by one. */
export interface TallyPiece extends Range {
  tallied: boolean;
}

/**
 * How to count the records of `range`: the whole tallied blocks inside it by their tallies (one row per block
 * and writer), the addresses before the first and after the last whole block one by one (fewer than a block
 * each). A range holding no whole block is counted one by one.
 */
export function tallyPieces(range: Range): TallyPiece[] {
  const firstWhole = ((range.first + TALLY_BLOCK - 1n) / TALLY_BLOCK) * TALLY_BLOCK;
  const lastWhole = ((range.last + 1n) / TALLY_BLOCK) * TALLY_BLOCK - 1n;
  if (firstWhole > lastWhole) return [{ ...range, tallied: false }];
  const pieces: TallyPiece[] = [];
  if (range.first < firstWhole) pieces.push({ first: range.first, last: firstWhole - 1n, tallied: false });
  pieces.push({ first: firstWhole, last: lastWhole, tallied: true });
  if (lastWhole < range.last) pieces.push({ first: lastWhole + 1n, last: range.last, tallied: false });
  return pieces;
}

/** The pieces of the windows [low, ends[0]], (ends[0], ends[1]] …, each numbered by its window (from 0). */
export function windowPieces(low: bigint, ends: bigint[]): (TallyPiece & { window: number })[] {
  let first = low;
  return ends.flatMap((last, window) => {
    const pieces = tallyPieces({ first, last }).map((piece) => ({ ...piece, window }));
    first = last + 1n;
    return pieces;
  });
}
