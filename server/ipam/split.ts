// Splitting a block into equal, aligned parts.
import { BITS, type Cidr } from './ip';

export const SPLIT_PARTS_MIN = 2;
export const SPLIT_PARTS_MAX = 1024;

/** The parts' prefix, or null when parts is not a power of two in 2..1024 or the prefix would pass 32/128. */
export function splitPrefix(c: Cidr, parts: number): number | null {
  if (!Number.isInteger(parts) || parts < SPLIT_PARTS_MIN || parts > SPLIT_PARTS_MAX) return null;
  if ((parts & (parts - 1)) !== 0) return null;
  // parts is a power of two, so its bit index is its base-2 logarithm.
  const prefix = c.prefix + (31 - Math.clz32(parts));
  return prefix > BITS[c.version] ? null : prefix;
}

/** The parts in address order; throws RangeError where splitPrefix is null. */
export function splitCidr(c: Cidr, parts: number): Cidr[] {
  const prefix = splitPrefix(c, parts);
  if (prefix === null) throw new RangeError(`cannot split /${c.prefix} into ${parts} parts`);
  const step = 1n << BigInt(BITS[c.version] - prefix);
  return Array.from({ length: parts }, (_, i) => ({
    version: c.version,
    network: c.network + BigInt(i) * step,
    prefix,
  }));
}
