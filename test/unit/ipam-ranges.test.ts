import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Range, rangeToBlocks } from '../../server/ipam';
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
