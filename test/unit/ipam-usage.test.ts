import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  containsIp,
  edgePrefixes,
  isAssignable,
  parseCidr,
  usableRange,
  usableTotal,
  utilization,
} from '../../server/ipam';
import { defined } from '../support/defined';
import {
  addressArb,
  addressesOf,
  bitsOf,
  modelCidr,
  modelUsable,
  sizeOf,
  smallParentArb,
  versionArb,
} from './ipam-model';

const cidr = (text: string) => parseCidr(text)!.cidr;
const ip = (text: string) => parseCidr(`${text}/${text.includes(':') ? 128 : 32}`)!.cidr.network;

describe('usableRange and usableTotal', () => {
  it.each([
    ['10.0.0.0/24', false, '10.0.0.1', '10.0.0.254', 254n],
    ['10.0.0.0/24', true, '10.0.0.0', '10.0.0.255', 256n],
    ['10.0.0.0/30', false, '10.0.0.1', '10.0.0.2', 2n],
    ['10.0.0.0/30', true, '10.0.0.0', '10.0.0.3', 4n],
    ['10.0.0.0/31', false, '10.0.0.0', '10.0.0.1', 2n],
    ['10.0.0.7/32', false, '10.0.0.7', '10.0.0.7', 1n],
    ['0.0.0.0/0', false, '0.0.0.1', '255.255.255.254', 2n ** 32n - 2n],
    ['2001:db8::/64', false, '2001:db8::', '2001:db8::ffff:ffff:ffff:ffff', 2n ** 64n],
    ['2001:db8::/127', false, '2001:db8::', '2001:db8::1', 2n],
    ['2001:db8::1/128', false, '2001:db8::1', '2001:db8::1', 1n],
    ['2000::/3', false, '2000::', '3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 2n ** 125n],
    ['::/0', false, '::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 2n ** 128n],
  ])('%s (pool: %s) uses %s..%s, %s addresses', (text, isPool, first, last, total) => {
    const c = cidr(text);
    expect(usableRange(c, isPool)).toEqual({ first: ip(first), last: ip(last) });
    expect(usableTotal(c, isPool)).toBe(total);
  });

  it('match the model on enumerated blocks, and isAssignable agrees address by address', () => {
    fc.assert(
      fc.property(smallParentArb, fc.boolean(), addressArb(4), addressArb(6), (c, isPool, far4, far6) => {
        const usable = modelUsable(c, isPool);
        expect(usableRange(c, isPool)).toEqual({ first: usable[0], last: usable[usable.length - 1] });
        expect(usableTotal(c, isPool)).toBe(BigInt(usable.length));
        const members = new Set(usable);
        const around = modelCidr(c.version, c.network, Math.max(c.prefix - 1, 0));
        const probes = [...addressesOf(around), c.version === 4 ? far4 : far6];
        const disagreements = probes.filter(
          (value) => isAssignable(c, isPool, { version: c.version, value }) !== members.has(value),
        );
        expect(disagreements).toEqual([]);
        const value = defined(usable[0], 'a usable address');
        expect(isAssignable(c, isPool, { version: c.version === 4 ? 6 : 4, value })).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it("edgePrefixes answers, from the address alone, which subnets holding it may not assign it (the model's)", () => {
    fc.assert(
      fc.property(smallParentArb, fc.boolean(), addressArb(4), addressArb(6), (c, isPool, far4, far6) => {
        const members = new Set(modelUsable(c, isPool));
        const around = modelCidr(c.version, c.network, Math.max(c.prefix - 1, 0));
        const disagreements = [...addressesOf(around), c.version === 4 ? far4 : far6].filter((value) => {
          const address = { version: c.version, value };
          const refused = !isPool && edgePrefixes(address).includes(c.prefix);
          return (containsIp(c, address) && !refused) !== members.has(value);
        });
        expect(disagreements).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('keep every address of any IPv6 block and of pools, and drop the ends of IPv4 /30 and shorter', () => {
    const input = versionArb.chain((version) =>
      fc.tuple(fc.constant(version), addressArb(version), fc.nat(bitsOf(version)), fc.boolean()),
    );
    fc.assert(
      fc.property(input, ([version, address, prefix, isPool]) => {
        const c = modelCidr(version, address, prefix);
        const last = c.network + sizeOf(version, prefix) - 1n;
        const dropsEnds = version === 4 && prefix <= 30 && !isPool;
        expect(usableRange(c, isPool)).toEqual(
          dropsEnds ? { first: c.network + 1n, last: last - 1n } : { first: c.network, last },
        );
      }),
      { numRuns: 500 },
    );
  });
});

describe('utilization', () => {
  it.each([
    [0, 0, 0],
    [5, 0, 0],
    [0, 10, 0],
    [5, 10, 0.5],
    [3, 4, 0.75],
    [10, 10, 1],
    [11, 10, 1],
    [-1, 10, 0],
    [1n, 4n, 0.25],
    [1, 4n, 0.25],
    [2n ** 63n, 2n ** 64n, 0.5],
    [2n ** 64n, 2n ** 64n, 1],
  ])('utilization(%s, %s) is %s', (used, total, expected) => {
    expect(utilization(used, total)).toBe(expected);
  });

  it('stays precise for IPv6-sized totals and below 1 while anything is free', () => {
    expect(utilization(1n, 2n ** 64n)).toBeCloseTo(2 ** -64, 30);
    expect(utilization(1n, 2n ** 64n)).toBeGreaterThan(0);
    expect(utilization(2n ** 128n - 1n, 2n ** 128n)).toBeLessThan(1);
    expect(utilization(2n ** 53n - 1n, 2n ** 53n)).toBeLessThan(1);
  });

  it('is used/total within 2^-50 relative error, in [0, 1], 1 only when full, and monotonic', () => {
    const counts = fc
      .tuple(
        fc.bigInt({ min: 1n, max: 2n ** 128n }),
        fc.bigInt({ min: 0n, max: 2n ** 128n }),
        fc.bigInt({ min: 0n, max: 2n ** 128n }),
      )
      .map(([total, a, b]) => ({ total, low: (a < b ? a : b) % (total + 1n), high: (a < b ? b : a) % (total + 1n) }))
      .filter(({ low, high }) => low <= high);
    fc.assert(
      fc.property(counts, ({ total, low, high }) => {
        const value = utilization(low, total);
        expect(value).toBeGreaterThanOrEqual(0);
        expect(value).toBeLessThanOrEqual(1);
        expect(value === 1).toBe(low === total);
        expect(utilization(high, total)).toBeGreaterThanOrEqual(value);
        // Compare exactly: |value * total - low| <= 2^-50 * low, scaled by 2^100 to keep value's bits whole.
        const scaled = BigInt(Math.round(value * 2 ** 100)) * total;
        const exact = low * 2n ** 100n;
        const error = scaled > exact ? scaled - exact : exact - scaled;
        expect(error * 2n ** 50n <= exact + total * 2n ** 51n).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});
