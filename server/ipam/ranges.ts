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
