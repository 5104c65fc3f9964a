import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextUnused, type Range, rangeToBlocks, TALLY_BLOCK, tallyPieces, windowPieces } from '../../server/ipam';
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
      { numRuns: 2_000 },
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
    expect(listed).toBeLessThanOrEqual(256);
    expect(s.calls()).toBeLessThanOrEqual(6);
  });
});

describe('tallyPieces', () => {
  const B = Number(TALLY_BLOCK);
  it('cuts a range into its whole blocks and the addresses around them, covering it exactly', () => {
    fc.assert(
      fc.property(
        fc.nat(5_000),
        fc.nat(2_000),
        fc.bigInt({ min: 0n, max: (1n << 120n) - 1n }),
        (first, length, high) => {
          // Small ranges anywhere in IPv6 too (high × 256 keeps the block alignment of `first`).
          const offset = high * TALLY_BLOCK;
          const range = { first: offset + BigInt(first), last: offset + BigInt(first + length) };
          const pieces = tallyPieces(range);
          // In order, adjacent, covering the range.
          expect(pieces[0]?.first).toBe(range.first);
          expect(pieces.at(-1)?.last).toBe(range.last);
          for (const [i, piece] of pieces.entries()) {
            expect(piece.first <= piece.last).toBe(true);
            if (i > 0) expect(piece.first).toBe((pieces[i - 1]?.last ?? -1n) + 1n);
          }
          // The model: the whole aligned blocks inside the range, by brute force over block starts.
          const whole: bigint[] = [];
          for (let start = first - (first % B); start <= first + length; start += B)
            if (start >= first && start + B - 1 <= first + length) whole.push(offset + BigInt(start));
          const tallied = pieces.filter((p) => p.tallied);
          if (whole.length === 0) expect(tallied).toEqual([]);
          else
            expect(tallied).toEqual([
              { first: whole[0], last: (whole.at(-1) ?? 0n) + TALLY_BLOCK - 1n, tallied: true },
            ]);
          // Counted one by one: fewer than a block on each side.
          for (const p of pieces.filter((p) => !p.tallied))
            expect(p.last - p.first < TALLY_BLOCK || whole.length === 0).toBe(true);
        },
      ),
      { numRuns: 2_000 },
    );
  });
});

describe('windowPieces', () => {
  it('cuts consecutive windows into their pieces, each numbered by its window and covering it exactly', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 1n << 40n }),
        fc.array(fc.nat(3_000), { minLength: 1, maxLength: 8 }),
        (low, sizes) => {
          const ends: bigint[] = [];
          let end = low - 1n;
          for (const size of sizes) {
            end += BigInt(size) + 1n;
            ends.push(end);
          }
          const pieces = windowPieces(low, ends);
          expect(pieces[0]?.first).toBe(low);
          for (const [i, piece] of pieces.entries()) {
            if (i > 0) expect(piece.first).toBe((pieces[i - 1]?.last ?? -1n) + 1n);
            const first = piece.window === 0 ? low : (ends[piece.window - 1] ?? 0n) + 1n;
            expect(piece.first >= first && piece.last <= (ends[piece.window] ?? -1n)).toBe(true);
          }
          // Every window has its pieces, the last ending at its end.
          for (const [window, windowEnd] of ends.entries())
            expect(pieces.filter((p) => p.window === window).at(-1)?.last).toBe(windowEnd);
        },
      ),
      { numRuns: 500 },
    );
  });
});
