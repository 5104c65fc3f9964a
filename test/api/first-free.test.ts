/**
 * GET /subnets/{id}/first-free against a brute-force model, through HTTP on the real database: random
 * address sets (dense runs, gaps anywhere, the gateway inside and outside runs, child subnets, pool and
 * non-pool, IPv4 and IPv6), and sets large enough to cross the search's internal boundaries (the database
 * passes whole blocks of 256 by their tallies and walks the rest record by record; allocation lists the
 * first 1,024 records).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer({}, { plan: 'enterprise' });

// --- addresses as numbers, written independently of server/ipam ----------------------------------

const v4 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const v6 = (n: number) => `2001:db8:77::${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;

interface Case {
  family: 4 | 6;
  /** Host bits of the subnet (its size is 2^bits). */
  bits: number;
  isPool: boolean;
  /** Offsets inside the subnet. */
  used: number[];
  gateway: number | null;
  /** Child subnets as [offset, host bits], aligned and disjoint. */
  children: [number, number][];
}

/** The model: the lowest usable offset holding no record, not the gateway, in no child; null when none. */
function model(c: Case): number | null {
  const size = 2 ** c.bits;
  const reservesEnds = c.family === 4 && c.bits >= 2 && !c.isPool;
  const used = new Set(c.used);
  for (let offset = reservesEnds ? 1 : 0; offset < (reservesEnds ? size - 1 : size); offset++) {
    if (used.has(offset) || offset === c.gateway) continue;
    if (c.children.some(([start, bits]) => offset >= start && offset < start + 2 ** bits)) continue;
    return offset;
  }
  return null;
}

let nextBlock = 0;
const blockOf = new Map<string, { family: 4 | 6; base: number }>();
const textIn =
  ({ family, base }: { family: 4 | 6; base: number }) =>
  (offset: number) =>
    family === 4 ? v4(base + offset) : v6(base + offset);

/** Creates the case in a fresh block of the organisation and answers the first-free ip and its text. */
async function run(c: Case) {
  const block = nextBlock++;
  const where = { family: c.family, base: c.family === 4 ? (10 << 24) + block * 2 ** 16 : block * 2 ** 16 };
  const text = textIn(where);
  const network = `${text(0)}/${(c.family === 4 ? 32 : 128) - c.bits}`;
  const subnet = await createSubnet(t.org.api, network, {
    is_pool: c.isPool,
    ...(c.gateway !== null ? { gateway: text(c.gateway) } : {}),
  });
  blockOf.set(subnet.id, where);
  for (const [start, bits] of c.children) {
    const child = `${text(start)}/${(c.family === 4 ? 32 : 128) - bits}`;
    expectStatus(await t.org.api.call('createSubnet', { body: { network: child } }), 201);
  }
  for (let i = 0; i < c.used.length; i += 500) {
    const ips = c.used.slice(i, i + 500).map(text);
    const created = expectStatus(
      await t.org.api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips } }),
      200,
    );
    expect(created.created).toBe(ips.length);
  }
  return { ...(await firstFree(c, subnet.id)), subnetId: subnet.id };
}

/** The first-free answer of a subnet `run` created, and the model's for `c` (what it holds now). */
async function firstFree(c: Case, subnetId: string) {
  const where = blockOf.get(subnetId);
  if (!where) throw new Error('a subnet run did not create');
  const answer = expectStatus(await t.org.api.call('getSubnetFirstFreeIp', { params: { id: subnetId } }), 200);
  const expected = model(c);
  return { answer, expected: expected === null ? null : textIn(where)(expected) };
}

/** Offsets a case may hold records at: usable, outside children (those belong to the child). */
function assignable(c: Omit<Case, 'used'>, offset: number) {
  const size = 2 ** c.bits;
  if (c.family === 4 && c.bits >= 2 && !c.isPool && (offset === 0 || offset === size - 1)) return false;
  return !c.children.some(([start, bits]) => offset >= start && offset < start + 2 ** bits);
}

/** Runs of consecutive offsets from the start, a gap, then more runs: the shapes that break walks. */
const shape = (size: number) =>
  fc.record({
    runs: fc.array(fc.record({ start: fc.nat(size - 1), length: fc.integer({ min: 1, max: size }) }), {
      maxLength: 4,
    }),
    scattered: fc.array(fc.nat(size - 1), { maxLength: 40 }),
  });

const smallCase: fc.Arbitrary<Case> = fc
  .record({
    family: fc.constantFrom<4 | 6>(4, 6),
    bits: fc.integer({ min: 2, max: 9 }),
    isPool: fc.boolean(),
    gatewayAt: fc.option(fc.nat(), { nil: null }),
    childAt: fc.option(fc.record({ index: fc.nat(), bits: fc.integer({ min: 0, max: 3 }) }), { nil: null }),
  })
  .chain((base) => {
    const size = 2 ** base.bits;
    const children: [number, number][] = [];
    if (base.childAt && base.childAt.bits < base.bits) {
      const blocks = size / 2 ** base.childAt.bits;
      children.push([(base.childAt.index % blocks) * 2 ** base.childAt.bits, base.childAt.bits]);
    }
    const gateway = base.gatewayAt === null ? null : base.gatewayAt % size;
    const partial = { family: base.family, bits: base.bits, isPool: base.isPool, children, gateway };
    return shape(size).map(({ runs, scattered }) => {
      const used = new Set<number>();
      for (const { start, length } of runs) for (let o = start; o < Math.min(size, start + length); o++) used.add(o);
      for (const o of scattered) used.add(o);
      return { ...partial, used: [...used].filter((o) => assignable(partial, o)).sort((a, b) => a - b) };
    });
  });

describe('first free against a brute-force model', () => {
  it('10.7.0.0/24 holding 10.7.0.1 … 10.7.0.100 answers 10.7.0.101 (regression: addresses were walked in text order)', async () => {
    const { answer, expected } = await run({
      family: 4,
      bits: 8,
      isPool: false,
      used: Array.from({ length: 100 }, (_, i) => i + 1),
      gateway: null,
      children: [],
    });
    expect([answer.ip, expected]).toEqual([expected, expected]);
    expect(answer.ip?.endsWith('.101')).toBe(true);
  });

  it('a /23 holding its first 64 hosts answers the 65th', async () => {
    const { answer } = await run({
      family: 4,
      bits: 9,
      isPool: false,
      used: Array.from({ length: 64 }, (_, i) => i + 1),
      gateway: null,
      children: [],
    });
    expect(answer.ip?.endsWith('.65')).toBe(true);
  });

  it('a /21 holding its first 1,024 hosts (as many as are read with the subnet) answers the next', async () => {
    for (const taken of [1023, 1024, 1025]) {
      const { answer, expected } = await run({
        family: 4,
        bits: 11,
        isPool: false,
        used: Array.from({ length: taken }, (_, i) => i + 1),
        gateway: null,
        children: [],
      });
      expect([answer.ip, expected]).toEqual([expected, expected]);
      expect(expected).not.toBeNull();
    }
  });

  it('answers {ip: null, message} when every usable address is taken', async () => {
    const { answer } = await run({
      family: 4,
      bits: 3,
      isPool: false,
      used: [1, 2, 3, 4, 5],
      gateway: 6,
      children: [],
    });
    expect(answer.ip).toBeNull();
    expect(answer.message).toMatch(/^No free address in /);
  });

  it('answers {ip: null} for the last address of either family as a /32 or /128 whose gateway it is', async () => {
    for (const ip of ['255.255.255.255', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff']) {
      const subnet = await createSubnet(t.org.api, `${ip}/${ip.includes(':') ? 128 : 32}`, { gateway: ip });
      const answer = expectStatus(await t.org.api.call('getSubnetFirstFreeIp', { params: { id: subnet.id } }), 200);
      expect(answer.ip).toBeNull();
    }
  });

  it('agrees with the model on small subnets of both families (runs, gaps, gateway, a child, pool)', async () => {
    await fc.assert(
      fc.asyncProperty(smallCase, async (c) => {
        const { answer, expected } = await run(c);
        expect(answer.ip).toBe(expected);
      }),
      { numRuns: 30 },
    );
  });

  it('agrees with the model on a /20 nearly full, one gap at the edge of a block or of the records read', async () => {
    // 4,094 usable hosts in 16 blocks of 256: gaps just before, at and after the edges of blocks.
    const size = 4096;
    // 1,024 to 1,026: the edge of the records read with the subnet (its first 1,024).
    const edges = [
      1, 2, 255, 256, 257, 511, 512, 513, 1023, 1024, 1025, 1026, 2047, 2048, 2049, 3583, 3584, 4093, 4094,
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...edges),
        fc.option(fc.constantFrom(...edges), { nil: null }),
        fc.constantFrom<4 | 6>(4, 6),
        async (gap, gateway, family) => {
          const used: number[] = [];
          for (let o = 1; o < size - 1; o++) if (o !== gap) used.push(o);
          const c: Case = { family, bits: 12, isPool: false, used, gateway, children: [] };
          const { answer, expected } = await run(c);
          expect(answer.ip).toBe(expected);
        },
      ),
      { numRuns: 6 },
    );
  });

  it('agrees with the model on a /18 nearly full, where whole blocks are passed by their tallies: gaps left and freed', async () => {
    // 16,382 usable hosts: 62 whole blocks of 256 passed by their tallies (address_tallies).
    const size = 2 ** 14;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: size - 2 }), { maxLength: 3 }),
        // Past the first 1,024 records (read with the subnet by allocation).
        fc.uniqueArray(fc.integer({ min: 1100, max: size - 2 }), { minLength: 1, maxLength: 3 }),
        fc.constantFrom<4 | 6>(4, 6),
        async (left, freed, family) => {
          const shape = { family, bits: 14, isPool: false, gateway: null, children: [] };
          const used: number[] = [];
          for (let o = 0; o < size; o++) if (assignable(shape, o) && !left.includes(o)) used.push(o);
          const c: Case = { ...shape, used };
          const { subnetId } = await run(c);
          // Deleted after the creates (the tallies count down), highest first: the records below keep their index.
          const held = used.filter((o) => freed.includes(o));
          for (const o of [...held].reverse()) {
            const [record] = expectStatus(
              await t.org.api.call('listSubnetAddresses', {
                params: { id: subnetId },
                query: { offset: used.indexOf(o), limit: 1 },
              }),
              200,
            );
            expectStatus(await t.org.api.call('deleteAddress', { params: { id: record?.id as string } }), 204);
          }
          const after = { ...c, used: used.filter((o) => !held.includes(o)) };
          const { answer, expected } = await firstFree(after, subnetId);
          expect(answer.ip).toBe(expected);
        },
      ),
      // Each run creates 16,382 records: a failure is reported as found, not shrunk.
      { numRuns: 6, endOnFailure: true },
    );
  }, 120_000);
});
