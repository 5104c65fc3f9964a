import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Cidr, parseCidr, SPLIT_PARTS_MAX, SPLIT_PARTS_MIN, splitCidr, splitPrefix } from '../../server/ipam';
import { defined } from '../support/defined';
import { addressArb, addressesOf, bitsOf, modelCidr, sizeOf, smallParentArb, versionArb } from './ipam-model';

const cidr = (text: string) => parseCidr(text)!.cidr;
const partsArb = fc.integer({ min: 1, max: 10 }).map((log) => 2 ** log);

describe('splitCidr', () => {
  it('parts cover the parent exactly, disjoint, equal, aligned, in address order (enumerated)', () => {
    const input = fc
      .tuple(smallParentArb, partsArb)
      .filter(([c, parts]) => c.prefix + Math.log2(parts) <= bitsOf(c.version));
    fc.assert(
      fc.property(input, ([parent, parts]) => {
        const pieces = splitCidr(parent, parts);
        const prefix = parent.prefix + Math.log2(parts);
        expect(splitPrefix(parent, parts)).toBe(prefix);
        expect(pieces).toHaveLength(parts);
        expect(pieces).toEqual(pieces.map((piece) => modelCidr(parent.version, piece.network, prefix)));
        // Concatenating the parts' addresses in order gives exactly the parent's addresses in order.
        expect(pieces.flatMap(addressesOf)).toEqual(addressesOf(parent));
      }),
      { numRuns: 300 },
    );
  });

  it('parts tile any parent end to end, without enumerating', () => {
    const input = versionArb.chain((version) =>
      fc
        .tuple(addressArb(version), fc.nat(bitsOf(version) - 1), partsArb)
        .filter(([, prefix, parts]) => prefix + Math.log2(parts) <= bitsOf(version))
        .map(([address, prefix, parts]) => ({ parent: modelCidr(version, address, prefix), parts })),
    );
    fc.assert(
      fc.property(input, ({ parent, parts }) => {
        const pieces = splitCidr(parent, parts);
        const { prefix } = defined(pieces[0], 'a piece');
        const size = sizeOf(parent.version, prefix);
        expect(size * BigInt(parts)).toBe(sizeOf(parent.version, parent.prefix));
        const expected = pieces.map((_, i) => ({
          version: parent.version,
          network: parent.network + BigInt(i) * size,
          prefix,
        }));
        expect(pieces).toHaveLength(parts);
        expect(pieces).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('splits the documented examples', () => {
    const texts = (list: Cidr[]) => list.map((c) => `${c.network}/${c.prefix}`);
    expect(texts(splitCidr(cidr('10.0.0.0/24'), 4))).toEqual(
      texts(['10.0.0.0/26', '10.0.0.64/26', '10.0.0.128/26', '10.0.0.192/26'].map(cidr)),
    );
    expect(splitCidr(cidr('10.0.0.0/30'), 4).map((c) => c.prefix)).toEqual([32, 32, 32, 32]);
    expect(splitCidr(cidr('2001:db8::/126'), 4)).toHaveLength(4);
    expect(splitCidr(cidr('::/0'), 1024)[1023]).toEqual(cidr('ffc0::/10'));
    expect([SPLIT_PARTS_MIN, SPLIT_PARTS_MAX]).toEqual([2, 1024]);
  });

  it.each([
    ['10.0.0.0/24', 0],
    ['10.0.0.0/24', 1],
    ['10.0.0.0/24', 3],
    ['10.0.0.0/24', 6],
    ['10.0.0.0/24', 1000],
    ['10.0.0.0/8', 2048],
    ['10.0.0.0/24', -2],
    ['10.0.0.0/24', 2.5],
    ['10.0.0.0/24', Number.NaN],
    ['10.0.0.0/24', Number.POSITIVE_INFINITY],
    ['10.0.0.0/31', 4],
    ['10.0.0.1/32', 2],
    ['10.0.0.0/23', 1024],
    ['2001:db8::/127', 4],
    ['2001:db8::/120', 1024],
    ['::1/128', 2],
  ])('%s into %s parts is refused', (text, parts) => {
    expect(splitPrefix(cidr(text), parts)).toBeNull();
    expect(() => splitCidr(cidr(text), parts)).toThrow(RangeError);
  });
});
