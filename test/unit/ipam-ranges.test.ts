import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextUnused, type Range, rangeToBlocks } from '../../server/ipam';
import { defined } from '../support/defined';

const BITS = 12; // a 4,096-address family keeps brute force cheap while every alignment case occurs

describe('rangeToBlocks', () => {
  it('covers exactly the range with aligned, ordered, disjoint blocks, the fewest possible', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4095 }), fc.integer({ min: 0, max: 4095 }), (a, b) => {
        const range: Range = { first: BigInt(Math.min(a, b)), last: BigInt(Math.max(a, b)) };
        const blocks = rangeToBlocks(range, BITS);
        let next = range.first;
        for (const { network, prefix } of blocks) {
          const size = 1n << BigInt(BITS - prefix);
          expect(network).toBe(next);
          expect(network % size).toBe(0n);
          // Fewest: a block and its equal-sized neighbour never form a larger aligned block inside the range.
          next = network + size;
        }
        expect(next).toBe(range.last + 1n);
        for (let i = 1; i < blocks.length; i++) {
          const [x, y] = [defined(blocks[i - 1], 'a block'), defined(blocks[i], 'the next block')];
          const mergeable = x.prefix === y.prefix && x.network % (2n << BigInt(BITS - x.prefix)) === 0n;
          expect(mergeable).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('answers the whole family as one /0 block', () => {
    expect(rangeToBlocks({ first: 0n, last: 4095n }, BITS)).toEqual([{ network: 0n, prefix: 0 }]);
  });
});

describe('nextUnused', () => {
  /** A brute-force answer and a record store that counts its calls. */
  function store(used: bigint[]) {
    const sorted = [...new Set(used)].sort((x, y) => (x < y ? -1 : 1));
    const inWindow = (low: bigint, high: bigint) => sorted.filter((u) => u >= low && u <= high);
    let calls = 0;
    return {
      records: {
        countUpTo: async (low: bigint, ends: bigint[]) => {
          calls++;
          return ends.map((end) => inWindow(low, end).length);
        },
        list: async (low: bigint, high: bigint) => {
          calls++;
          return inWindow(low, high);
        },
      },
      calls: () => calls,
      expected(from: bigint, last: bigint) {
        let candidate = from;
        while (candidate <= last && sorted.includes(candidate)) candidate++;
        return candidate;
      },
    };
  }

  it('finds the first unused address at or after from, or last + 1 when all are used', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 250 }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 0, max: 300 }),
        fc.integer({ min: 1, max: 40 }),
        async (used, a, b, listBelow) => {
          const s = store(used.map(BigInt));
          const [from, last] = [BigInt(Math.min(a, b)), BigInt(Math.max(a, b))];
          expect(await nextUnused(from, last, s.records, listBelow)).toBe(s.expected(from, last));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('answers a dense run of 60,000 records in a handful of queries, never listing more than the threshold', async () => {
    const used = Array.from({ length: 60_000 }, (_, i) => BigInt(i + 1));
    const s = store(used);
    let listed = 0;
    const records = {
      countUpTo: s.records.countUpTo,
      list: async (low: bigint, high: bigint) => {
        const rows = await s.records.list(low, high);
        listed = rows.length;
        return rows;
      },
    };
    expect(await nextUnused(1n, 65_534n, records)).toBe(60_001n);
    expect(listed).toBeLessThanOrEqual(2048);
    expect(s.calls()).toBeLessThanOrEqual(5);
  });
});
