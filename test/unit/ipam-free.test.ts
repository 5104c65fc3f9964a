import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type Cidr,
  firstFree,
  freeInWindow,
  mergeRanges,
  parseCidr,
  type Range,
  skipExcluded,
} from '../../server/ipam';
import { defined } from '../support/defined';
import { addressesOf, inAnyRange, modelUsable, seededRandom, sizeOf, smallParentArb } from './ipam-model';

const DOMAIN = 60;
const smallRangeArb = fc
  .tuple(fc.integer({ min: 0, max: DOMAIN }), fc.integer({ min: -2, max: 12 }))
  .map(([first, length]): Range => ({ first: BigInt(first), last: BigInt(first + length) }));

/** The merged form of a set of small integers, read off by walking the number line. */
function mergedByWalking(ranges: Range[]): Range[] {
  const merged: Range[] = [];
  for (let value = 0n; value <= BigInt(DOMAIN + 13); value++) {
    if (!inAnyRange(value, ranges)) continue;
    const previous = merged[merged.length - 1];
    if (previous && previous.last === value - 1n) previous.last = value;
    else merged.push({ first: value, last: value });
  }
  return merged;
}

describe('mergeRanges and skipExcluded', () => {
  it('mergeRanges sorts, merges overlapping and adjacent ranges, drops empty ones, and leaves its input alone', () => {
    fc.assert(
      fc.property(fc.array(smallRangeArb, { maxLength: 12 }), (ranges) => {
        const before = structuredClone(ranges);
        expect(mergeRanges(ranges)).toEqual(mergedByWalking(ranges));
        expect(ranges).toEqual(before);
      }),
      { numRuns: 500 },
    );
  });

  it('skipExcluded answers the smallest value ≥ from outside every range', () => {
    fc.assert(
      fc.property(
        fc.array(smallRangeArb, { maxLength: 12 }),
        fc.integer({ min: 0, max: DOMAIN + 15 }),
        (ranges, from) => {
          let expected = BigInt(from);
          while (inAnyRange(expected, ranges)) expected++;
          expect(skipExcluded(BigInt(from), mergeRanges(ranges))).toBe(expected);
        },
      ),
      { numRuns: 500 },
    );
    expect(skipExcluded(5n, [])).toBe(5n);
    expect(skipExcluded(2n ** 128n - 1n, [{ first: 0n, last: 2n ** 128n - 1n }])).toBe(2n ** 128n);
  });
});

interface Scenario {
  parent: Cidr;
  isPool: boolean;
  excluded: Range[];
  used: Set<bigint>;
}

/** A small parent, exclusions around and inside it, and a random share (sometimes all) of its addresses used. */
const scenarioArb: fc.Arbitrary<Scenario> = smallParentArb.chain((parent) => {
  const size = Number(sizeOf(parent.version, parent.prefix));
  const excludedArb = fc
    .tuple(fc.integer({ min: -4, max: size + 4 }), fc.integer({ min: -1, max: Math.max(2, size / 4) }))
    .map(([offset, length]) => {
      const first = parent.network + BigInt(offset);
      return { first: first < 0n ? 0n : first, last: first + BigInt(length) };
    });
  return fc.record({
    parent: fc.constant(parent),
    isPool: fc.boolean(),
    excluded: fc.array(excludedArb, { maxLength: 5 }),
    used: fc.tuple(fc.constantFrom(0, 0.2, 0.6, 0.95, 1), fc.integer()).map(([density, seed]) => {
      const random = seededRandom(seed);
      return new Set(addressesOf(parent).filter(() => random() < density));
    }),
  });
});

/** nextUnused as the brute-force definition: walk up from `from` past used addresses. */
const walkingNextUnused = (used: Set<bigint>) => (from: bigint) => {
  let value = from;
  while (used.has(value)) value++;
  return value;
};

describe('firstFree', () => {
  it('is the lowest usable address that is neither excluded nor used, or null', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArb, fc.boolean(), async ({ parent, isPool, excluded, used }, asPromise) => {
        const usable = modelUsable(parent, isPool);
        const expected = usable.find((a) => !inAnyRange(a, excluded) && !used.has(a)) ?? null;
        const next = walkingNextUnused(used);
        const nextUnused = asPromise ? async (from: bigint) => next(from) : next;
        const range = { first: defined(usable[0], 'a usable address'), last: defined(usable.at(-1), 'the last') };
        expect(await firstFree(range, mergeRanges(excluded), nextUnused)).toBe(expected);
        // Unsorted, overlapping exclusions give the same answer.
        expect(await firstFree(range, [...excluded].reverse(), nextUnused)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('answers null when everything is used or excluded, and uses a sorted list as the service does', async () => {
    const c = parseCidr('192.168.1.0/29')!.cidr;
    const usable = { first: c.network + 1n, last: c.network + 6n };
    const fromList = (sorted: bigint[]) => async (from: bigint) => {
      let value = from;
      for (const u of sorted) if (u === value) value++;
      return value;
    };
    const { network } = c;
    const [a1, a2, a3, a4, a5, a6] = [
      network + 1n,
      network + 2n,
      network + 3n,
      network + 4n,
      network + 5n,
      network + 6n,
    ];
    const all = [a1, a2, a3, a4, a5, a6];
    expect(await firstFree(usable, [], fromList(all))).toBeNull();
    expect(await firstFree(usable, [usable], fromList([]))).toBeNull();
    expect(await firstFree(usable, [{ first: a1, last: a3 }], fromList(all.slice(3)))).toBeNull();
    expect(await firstFree(usable, [{ first: a1, last: a2 }], fromList([a3, a5]))).toBe(a4);
    expect(await firstFree(usable, [{ first: a6, last: a6 }], fromList(all.slice(0, 5)))).toBeNull();
    expect(await firstFree({ first: 5n, last: 4n }, [], fromList([]))).toBeNull();
  });

  it('refuses a nextUnused that goes backwards instead of looping', async () => {
    await expect(firstFree({ first: 10n, last: 20n }, [], (from) => from - 1n)).rejects.toThrow(RangeError);
  });
});

describe('freeInWindow', () => {
  it('answers the lowest `count` values of the window in no excluded range and not used, as a walk does', () => {
    fc.assert(
      fc.property(
        smallRangeArb,
        fc.array(smallRangeArb, { maxLength: 6 }),
        fc.uniqueArray(fc.integer({ min: 0, max: DOMAIN + 12 }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 30 }),
        (window, excluded, used, count) => {
          const usedValues = used.map(BigInt).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
          const walked: bigint[] = [];
          for (let v = window.first; v <= window.last && walked.length < count; v++) {
            if (!inAnyRange(v, excluded) && !usedValues.includes(v)) walked.push(v);
          }
          expect(freeInWindow(window, mergeRanges(excluded), usedValues, count)).toEqual(walked);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
