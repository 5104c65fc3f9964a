import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Cidr, FREE_BLOCKS_CAP, formatCidr, freeBlocks, parseCidr } from '../../server/ipam';
import { takenByBigints, takenByNumbers } from '../../server/ipam/taken-blocks';
import { defined } from '../support/defined';
import {
  addressArb,
  addressesOf,
  bitsOf,
  childArb,
  modelCidr,
  rangeToCidrs,
  seededRandom,
  sizeOf,
  smallParentArb,
  unionOf,
  versionArb,
} from './ipam-model';

const cidr = (text: string) => parseCidr(text)!.cidr;
const texts = (list: Cidr[]) => list.map(formatCidr);

/** Every aligned block of `prefix` in parent, in order, kept when none of its addresses is occupied. */
function modelFreeBlocks(parent: Cidr, prefix: number, occupied: Cidr[]): Cidr[] {
  const taken = unionOf(occupied);
  const size = sizeOf(parent.version, prefix);
  const count = Number(sizeOf(parent.version, parent.prefix) / size);
  const blocks = Array.from({ length: count }, (_, i) => ({
    version: parent.version,
    network: parent.network + BigInt(i) * size,
    prefix,
  }));
  return blocks.filter((block) => addressesOf(block).every((a) => !taken.has(a)));
}

/** Children at any depth inside parent, grandchildren nested in some of them, in shuffled order. */
const occupiedArb = (parent: Cidr) =>
  fc
    .array(childArb(parent, Math.min(parent.prefix + 1, bitsOf(parent.version))), { maxLength: 6 })
    .chain((children) =>
      children.length === 0
        ? fc.constant(children)
        : fc
            .array(
              fc.constantFrom(...children).chain((child) => childArb(child)),
              { maxLength: 4 },
            )
            .map((nested) => [...children, ...nested]),
    )
    .chain((all) => fc.shuffledSubarray(all, { minLength: all.length }));

describe('freeBlocks against enumeration', () => {
  it('returns the lowest `limit` free aligned blocks and their capped count', () => {
    const scenario = smallParentArb
      .filter((parent) => parent.prefix < bitsOf(parent.version))
      .chain((parent) =>
        fc.record({
          parent: fc.constant(parent),
          prefix: fc.integer({ min: parent.prefix + 1, max: bitsOf(parent.version) }),
          occupied: occupiedArb(parent),
          limit: fc.oneof(fc.nat(4), fc.nat(5000)),
          cap: fc.option(fc.nat(5000), { nil: undefined }),
        }),
      );
    fc.assert(
      fc.property(scenario, ({ parent, prefix, occupied, limit, cap }) => {
        const expected = modelFreeBlocks(parent, prefix, occupied);
        const effectiveCap = cap ?? FREE_BLOCKS_CAP;
        const result = freeBlocks(parent, prefix, occupied, limit, cap);
        expect(result.blocks).toEqual(expected.slice(0, limit));
        expect(result.total).toBe(Math.min(expected.length, effectiveCap));
        expect(result.capped).toBe(expected.length >= effectiveCap);
      }),
      { numRuns: 250 },
    );
  });

  it('the number and bigint strategies agree on any parent, including supernets and strangers', () => {
    const scenario = versionArb.chain((version) =>
      fc
        .tuple(addressArb(version), fc.nat(bitsOf(version) - 1))
        .map(([address, prefix]) => modelCidr(version, address, prefix))
        .chain((parent) => {
          const inside = childArb(parent);
          const anywhere = fc
            .tuple(addressArb(parent.version), fc.nat(bitsOf(parent.version)))
            .map(([address, prefix]) => modelCidr(parent.version, address, prefix));
          const supernet = fc.nat(parent.prefix).map((prefix) => modelCidr(parent.version, parent.network, prefix));
          const otherVersion = fc.constant({ ...parent, version: parent.version === 4 ? 6 : 4 } as Cidr);
          const one = fc.oneof({ weight: 8, arbitrary: inside }, anywhere, supernet, otherVersion);
          const maxPrefix = Math.min(bitsOf(parent.version), parent.prefix + 52);
          return fc.tuple(
            fc.constant(parent),
            fc.integer({ min: parent.prefix + 1, max: maxPrefix }),
            fc.array(one, { maxLength: 12 }),
          );
        }),
    );
    fc.assert(
      fc.property(scenario, ([parent, prefix, occupied]) => {
        const byNumbers = takenByNumbers(parent, prefix, occupied);
        const byBigints = takenByBigints(parent, prefix, occupied);
        expect([...byNumbers.spans]).toEqual([...byBigints.spans]);
        expect(byNumbers.count).toBe(byBigints.count);
      }),
      { numRuns: 500 },
    );
  });

  it('counts nested children once and blocks touched by a small child', () => {
    const parent = cidr('10.0.0.0/24');
    const occupied = ['10.0.0.0/26', '10.0.0.0/25', '10.0.0.64/27', '10.0.0.200/32'].map(cidr);
    expect(freeBlocks(parent, 26, occupied, 10)).toEqual({ blocks: [cidr('10.0.0.128/26')], total: 1, capped: false });
    expect(texts(freeBlocks(parent, 28, occupied, 3).blocks)).toEqual([
      '10.0.0.128/28',
      '10.0.0.144/28',
      '10.0.0.160/28',
    ]);
    expect(freeBlocks(parent, 28, occupied, 3).total).toBe(7);
    expect(freeBlocks(parent, 32, occupied, 0)).toEqual({ blocks: [], total: 127, capped: false });
  });

  it('ignores blocks outside parent and of the other version; a supernet takes everything', () => {
    const parent = cidr('10.0.0.0/24');
    expect(freeBlocks(parent, 25, [cidr('10.0.1.0/24'), cidr('::/0')], 5).total).toBe(2);
    expect(freeBlocks(parent, 25, [cidr('10.0.0.0/8')], 5)).toEqual({ blocks: [], total: 0, capped: false });
  });

  it.each([
    ['10.0.0.0/24', 24],
    ['10.0.0.0/24', 23],
    ['10.0.0.0/24', 33],
    ['10.0.0.0/24', 25.5],
    ['2001:db8::/64', 129],
  ])('refuses %s into /%s', (text, prefix) => {
    expect(() => freeBlocks(cidr(text), prefix, [], 1)).toThrow(RangeError);
  });

  it('refuses a negative limit or a bad cap', () => {
    expect(() => freeBlocks(cidr('10.0.0.0/24'), 25, [], -1)).toThrow(RangeError);
    expect(() => freeBlocks(cidr('10.0.0.0/24'), 25, [], Number.NaN)).toThrow(RangeError);
    expect(() => freeBlocks(cidr('10.0.0.0/24'), 25, [], 1, -1)).toThrow(RangeError);
    expect(() => freeBlocks(cidr('10.0.0.0/24'), 25, [], 1, 1.5)).toThrow(RangeError);
  });
});

describe('freeBlocks reporting cap, counted without enumerating', () => {
  /** Occupies everything in parent from free block `free` on, so exactly `free` blocks remain. */
  const leaveFree = (parent: Cidr, prefix: number, free: number) =>
    rangeToCidrs(
      parent.version,
      parent.network + BigInt(free) * sizeOf(parent.version, prefix),
      parent.network + sizeOf(parent.version, parent.prefix) - 1n,
    );

  const cases = [
    ['10.0.0.0/8', 28],
    ['2001:db8::/32', 64],
    ['2001:db8:1:2::/64', 128],
  ] as const;
  const counts = [
    [999_999, 999_999, false],
    [1_000_000, 1_000_000, true],
    [1_000_001, 1_000_000, true],
  ] as const;

  it.each(
    cases.flatMap(([parent, prefix]) =>
      counts.map(([free, total, capped]) => [parent, prefix, free, total, capped] as const),
    ),
  )('%s into /%s with %s free blocks reports %s (capped: %s)', (text, prefix, free, total, capped) => {
    const parent = cidr(text);
    const size = sizeOf(parent.version, prefix);
    const block = (index: number) => ({
      version: parent.version,
      network: parent.network + BigInt(index) * size,
      prefix,
    });
    expect(freeBlocks(parent, prefix, leaveFree(parent, prefix, free), 2)).toEqual({
      blocks: [block(0), block(1)],
      total,
      capped,
    });
    // The same count when block 1 is taken by a small unaligned child instead, with nested duplicates around.
    const small = modelCidr(parent.version, block(1).network + size / 2n, bitsOf(parent.version));
    const taken = leaveFree(parent, prefix, free + 1);
    const firstTaken = defined(taken[0], 'a taken block');
    const nested = [firstTaken, modelCidr(parent.version, firstTaken.network, bitsOf(parent.version)), small, small];
    expect(freeBlocks(parent, prefix, [...nested, ...taken].reverse(), 2)).toEqual({
      blocks: [block(0), block(2)],
      total,
      capped,
    });
  });

  it('answers an IPv6 /32 with 10,000 occupied /48s by arithmetic (a sanity check, not timed)', () => {
    const parent = cidr('2001:db8::/32');
    const random = seededRandom(48);
    const indexes = new Set<number>();
    while (indexes.size < 10_000) indexes.add(Math.floor(random() * 65536));
    const occupied = [...indexes].map((i) => modelCidr(6, parent.network + BigInt(i) * 2n ** 80n, 48));
    let firstFree48 = 0;
    while (indexes.has(firstFree48)) firstFree48++;
    const result = freeBlocks(parent, 64, occupied, 3);
    const firstFreeNetwork = parent.network + BigInt(firstFree48) * 2n ** 80n;
    expect(result.blocks).toEqual([0n, 1n, 2n].map((i) => modelCidr(6, firstFreeNetwork + i * 2n ** 64n, 64)));
    expect(result).toMatchObject({ total: FREE_BLOCKS_CAP, capped: true });
    const exact = freeBlocks(parent, 64, occupied, 0, Number.MAX_SAFE_INTEGER);
    expect(exact.total).toBe(2 ** 32 - 10_000 * 2 ** 16);
    expect(freeBlocks(parent, 48, occupied, 0)).toMatchObject({ total: 65536 - 10_000, capped: false });
  });
});
