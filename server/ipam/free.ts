// Free space: merging ranges, the first free address, and free aligned blocks counted without enumerating them.
import { BITS, type Cidr, type Range } from './ip';
import { mergeRanges, skipExcluded } from './ranges';
import { takenBlockIndexes } from './taken-blocks';

export { mergeRanges, rangeToBlocks, skipExcluded } from './ranges';

export const FREE_BLOCKS_CAP = 1_000_000;

/**
 * The first free address in `usable` that is in no `excluded` range and not used. `nextUnused(from)` answers the
 * smallest address ≥ from that holds no address record (ignoring exclusions), or any address past `usable` when
 * none of it is left — the database provides it in the service; tests give a sorted list. The loop alternates
 * skipExcluded and nextUnused until both agree.
 */
export async function firstFree(
  usable: Range,
  excluded: Range[],
  nextUnused: (from: bigint) => Promise<bigint> | bigint,
): Promise<bigint | null> {
  const merged = mergeRanges(excluded);
  let candidate = usable.first;
  while (candidate <= usable.last) {
    const notExcluded = skipExcluded(candidate, merged);
    if (notExcluded > usable.last) return null;
    const unused = await nextUnused(notExcluded);
    if (unused === notExcluded) return unused;
    // Each round moves strictly forward, past an excluded range or a run of used addresses.
    if (unused < notExcluded) throw new RangeError(`nextUnused(${notExcluded}) went back to ${unused}`);
    // What nextUnused answers holds no record: free unless excluded (no second search to confirm it).
    if (unused <= usable.last && skipExcluded(unused, merged) === unused) return unused;
    candidate = unused;
  }
  return null;
}

/**
 * Up to `count` addresses of `window`, lowest first, inside none of `excluded` (sorted merged ranges) and
 * not in `used` (sorted ascending): the free addresses a listing of the window's records leaves.
 */
export function freeInWindow(window: Range, excluded: Range[], used: bigint[], count: number): bigint[] {
  const free: bigint[] = [];
  let next = 0;
  let candidate = window.first;
  while (free.length < count) {
    candidate = skipExcluded(candidate, excluded);
    if (candidate > window.last) break;
    // Past the last record, used[next] is undefined: nothing to pass or to match.
    while ((used[next] ?? candidate) < candidate) next++;
    if (used[next] === candidate) {
      candidate++;
      continue;
    }
    free.push(candidate);
    candidate++;
  }
  return free;
}

/**
 * The lowest `limit` aligned blocks of length `prefix` inside `parent` that collide with none of `occupied`
 * (any CIDRs inside parent, nested or not, e.g. every child subnet at any depth; supernets of parent must not be passed),
 * and the count of all such free blocks, capped: total = min(count, cap), capped = count >= cap.
 * Occupied CIDRs become merged ranges of block indexes, so the count is a subtraction, never an enumeration.
 * Throws RangeError when prefix <= parent.prefix or prefix > bits.
 */
export function freeBlocks(
  parent: Cidr,
  prefix: number,
  occupied: Cidr[],
  limit: number,
  cap: number = FREE_BLOCKS_CAP,
): { blocks: Cidr[]; total: number; capped: boolean } {
  checkBlockArguments(parent, prefix, limit, cap);
  const blockCount = 1n << BigInt(prefix - parent.prefix);
  const taken = takenBlockIndexes(parent, prefix, occupied);
  const freeCount = blockCount - taken.count;
  const capped = freeCount >= BigInt(cap);
  return {
    blocks: lowestFreeBlocks(parent, prefix, taken.spans, blockCount, limit),
    total: capped ? cap : Number(freeCount),
    capped,
  };
}

function checkBlockArguments(parent: Cidr, prefix: number, limit: number, cap: number): void {
  if (!Number.isInteger(prefix) || prefix <= parent.prefix || prefix > BITS[parent.version]) {
    throw new RangeError(
      `block prefix /${prefix} must be longer than /${parent.prefix} and at most /${BITS[parent.version]}`,
    );
  }
  if (!(limit >= 0)) throw new RangeError(`limit ${limit} must be zero or more`);
  if (!Number.isSafeInteger(cap) || cap < 0) throw new RangeError(`cap ${cap} must be a whole number, zero or more`);
}

/** Walks the gaps between taken index ranges, stopping after `limit` blocks. */
function lowestFreeBlocks(
  parent: Cidr,
  prefix: number,
  taken: Iterable<Range>,
  blockCount: bigint,
  limit: number,
): Cidr[] {
  const blockSize = 1n << BigInt(BITS[parent.version] - prefix);
  const blocks: Cidr[] = [];
  let index = 0n;
  const takeUntil = (end: bigint) => {
    for (; index < end && blocks.length < limit; index++) {
      blocks.push({ version: parent.version, network: parent.network + index * blockSize, prefix });
    }
  };
  for (const r of taken) {
    if (blocks.length >= limit) break;
    takeUntil(r.first);
    index = r.last + 1n;
  }
  takeUntil(blockCount);
  return blocks;
}
