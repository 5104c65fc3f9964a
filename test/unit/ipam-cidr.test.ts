import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BITS,
  type Cidr,
  cidrRange,
  cidrSize,
  compareCidr,
  containsCidr,
  containsIp,
  formatCidr,
  parseCidr,
  sameCidr,
} from '../../server/ipam';
import {
  addressArb,
  addressesOf,
  bitsOf,
  canonicalText,
  childArb,
  modelCidr,
  sizeOf,
  smallParentArb,
  topOf,
  versionArb,
} from './ipam-model';

describe('parseCidr and formatCidr', () => {
  it.each([
    ['10.0.0.5/24', '10.0.0.0/24', true],
    ['10.0.0.0/24', '10.0.0.0/24', false],
    ['0.0.0.0/0', '0.0.0.0/0', false],
    ['255.255.255.255/0', '0.0.0.0/0', true],
    ['1.2.3.4/32', '1.2.3.4/32', false],
    ['::/0', '::/0', false],
    ['::1/128', '::1/128', false],
    ['2001:DB8::1/48', '2001:db8::/48', true],
    ['::ffff:1.2.3.4/120', '::ffff:1.2.3.0/120', true],
    ['::ffff:0:0/96', '::ffff:0.0.0.0/96', false],
  ])('%s is %s (host bits set: %s)', (text, expected, hostBitsSet) => {
    const parsed = parseCidr(text);
    expect(parsed?.hostBitsSet).toBe(hostBitsSet);
    expect(formatCidr(parsed!.cidr)).toBe(expected);
  });

  it.each([
    ...['10.0.0.0', '10.0.0.0/', '/8', '10.0.0.0/33', '::/129', '10.0.0.0/024', '10.0.0.0/00', '10.0.0.0/+8'],
    ...['10.0.0.0/-1', '10.0.0.0/8/8', '10.0.0.0 /8', '10.0.0.0/ 8', '10.0.0.0/8 ', '10.0.0/8', '10.0.0.0/1e1'],
    ...['10.0.0.0/8.0', 'fe80::%eth0/64', '[::]/0', '010.0.0.0/8', '::/0x10', ''],
  ])('refuses %j', (text) => {
    expect(parseCidr(text)).toBeNull();
  });

  it('masks host bits exactly like the model, for any address and prefix', () => {
    const input = versionArb.chain((version) =>
      fc.record({ version: fc.constant(version), value: addressArb(version), prefix: fc.nat(bitsOf(version)) }),
    );
    fc.assert(
      fc.property(input, ({ version, value, prefix }) => {
        const expected = modelCidr(version, value, prefix);
        expect(parseCidr(`${canonicalText(version, value)}/${prefix}`)).toEqual({
          cidr: expected,
          hostBitsSet: expected.network !== value,
        });
        expect(parseCidr(formatCidr(expected))).toEqual({ cidr: expected, hostBitsSet: false });
        expect(formatCidr(parseCidr(formatCidr(expected))!.cidr)).toBe(formatCidr(expected));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('ranges and containment', () => {
  it('cidrRange and cidrSize match enumeration', () => {
    fc.assert(
      fc.property(smallParentArb, (c) => {
        const all = addressesOf(c);
        expect(cidrRange(c)).toEqual({ first: all[0], last: all[all.length - 1] });
        expect(cidrSize(c)).toBe(BigInt(all.length));
      }),
      { numRuns: 300 },
    );
    expect(cidrSize({ version: 6, network: 0n, prefix: 0 })).toBe(2n ** 128n);
    expect(cidrRange({ version: 4, network: 0n, prefix: 0 })).toEqual({ first: 0n, last: topOf(4) });
  });

  it('containsIp agrees with enumeration around the block, and is false across versions', () => {
    fc.assert(
      fc.property(smallParentArb, addressArb(4), addressArb(6), (c, far4, far6) => {
        const members = new Set(addressesOf(c));
        const around = modelCidr(c.version, c.network, Math.max(c.prefix - 2, 0));
        const probes = [...addressesOf(around), c.version === 4 ? far4 : far6];
        // One assertion per block: expect() per address would dominate the run time.
        const disagreements = probes.filter(
          (value) => containsIp(c, { version: c.version, value }) !== members.has(value),
        );
        expect(disagreements).toEqual([]);
        expect(containsIp(c, { version: c.version === 4 ? 6 : 4, value: c.network })).toBe(false);
      }),
      { numRuns: 150 },
    );
  });

  it('containsCidr is ⊇ by enumeration (equal blocks count), and false across versions', () => {
    const pair = smallParentArb.chain((outer) => {
      const around = modelCidr(outer.version, outer.network, Math.max(outer.prefix - 2, 0));
      return fc.tuple(fc.constant(outer), childArb(around));
    });
    fc.assert(
      fc.property(pair, ([outer, inner]) => {
        const members = new Set(addressesOf(outer));
        const expected = addressesOf(inner).every((a) => members.has(a));
        expect(containsCidr(outer, inner)).toBe(expected);
        expect(containsCidr(outer, outer)).toBe(true);
        expect(containsCidr(outer, { ...inner, version: inner.version === 4 ? 6 : 4 })).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});

describe('compareCidr and sameCidr', () => {
  const cidrArb: fc.Arbitrary<Cidr> = versionArb.chain((version) =>
    fc
      .tuple(fc.constantFrom(0n, 1n, 2n ** 24n, topOf(version)), fc.nat(BITS[version]))
      .map(([address, prefix]) => modelCidr(version, address, prefix)),
  );

  it('orders by version, then network, then prefix (supernet first)', () => {
    fc.assert(
      fc.property(fc.array(cidrArb, { maxLength: 30 }), (list) => {
        const compare = (x: number | bigint, y: number | bigint) => (x === y ? 0 : x < y ? -1 : 1);
        const byKey = [...list].sort(
          (a, b) => compare(a.version, b.version) || compare(a.network, b.network) || compare(a.prefix, b.prefix),
        );
        expect([...list].sort(compareCidr)).toEqual(byKey);
        for (const a of list) {
          for (const b of list) {
            expect(Math.sign(compareCidr(a, b)) + Math.sign(compareCidr(b, a))).toBe(0);
            // Canonical texts differ exactly when the blocks differ.
            const same = formatCidr(a) === formatCidr(b);
            expect(sameCidr(a, b)).toBe(same);
            expect(compareCidr(a, b) === 0).toBe(same);
          }
        }
      }),
    );
    const supernet = parseCidr('10.0.0.0/8')!.cidr;
    const subnet = parseCidr('10.0.0.0/24')!.cidr;
    expect(compareCidr(supernet, subnet)).toBeLessThan(0);
    expect(compareCidr(parseCidr('255.0.0.0/8')!.cidr, parseCidr('::/0')!.cidr)).toBeLessThan(0);
    expect(sizeOf(4, 8)).toBe(cidrSize(supernet));
  });
});
