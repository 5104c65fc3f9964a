/**
 * Used counts (GET /subnets/{id}, /usage and the list) against a brute-force model over random trees:
 * a subnet counts the address records in its range except those inside an untracked subnet nested in
 * it (an untracked subnet and everything under it count in no ancestor's figures).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defined } from '../support/defined';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer({}, false);

/** A block of a /24 as [first offset, host bits]. */
type Block = [number, number];
const inside = (offset: number, [start, bits]: Block) => offset >= start && offset < start + 2 ** bits;
const strictlyInside = (a: Block, b: Block) => a[1] < b[1] && inside(a[0], b);

const tree = fc.record({
  blocks: fc.uniqueArray(
    fc
      .integer({ min: 0, max: 6 })
      .chain((bits) =>
        fc.integer({ min: 0, max: 2 ** (8 - bits) - 1 }).map((index): Block => [index * 2 ** bits, bits]),
      ),
    { minLength: 1, maxLength: 12, selector: ([start, bits]) => `${start}/${bits}` },
  ),
  untracked: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
  addresses: fc.uniqueArray(fc.integer({ min: 0, max: 255 }), { maxLength: 120 }),
});

describe('used counts against a model', () => {
  it('agree for every subnet of random trees with untracked subnets at any depth', async () => {
    await fc.assert(
      fc.asyncProperty(tree, async ({ blocks, untracked, addresses }) => {
        const org = await t.server.newOrg({ plan: 'enterprise' });
        const root: Block = [0, 8];
        const all: Block[] = [root, ...blocks.filter((b) => b[1] < 8)];
        const tracked = (i: number) => i === 0 || !untracked[i];
        const ids: string[] = [];
        for (const [i, [start, bits]] of all.entries()) {
          const network = `10.20.0.${start}/${32 - bits}`;
          ids.push((await createSubnet(org.api, network, { is_pool: true, tracked: tracked(i) })).id);
        }
        // Each address goes to the smallest subnet holding it.
        const owner = (offset: number) =>
          all
            .map((b, i) => ({ b, i }))
            .filter(({ b }) => inside(offset, b))
            .sort((x, y) => x.b[1] - y.b[1])[0]?.i ?? 0; // the root (0) holds every address
        const byOwner = new Map<number, string[]>();
        for (const offset of addresses)
          byOwner.set(owner(offset), [...(byOwner.get(owner(offset)) ?? []), `10.20.0.${offset}`]);
        for (const [i, ips] of byOwner) {
          const id = defined(ids[i], 'the subnet');
          expectStatus(await org.api.call('batchCreateAddresses', { params: { id }, body: { ips } }), 200);
        }
        const model = (s: Block) =>
          addresses.filter(
            (a) => inside(a, s) && !all.some((u, j) => !tracked(j) && strictlyInside(u, s) && inside(a, u)),
          ).length;
        const listed = expectStatus(await org.api.call('listSubnets'), 200);
        for (const [i, block] of all.entries()) {
          const id = defined(ids[i], 'the subnet');
          const one = expectStatus(await org.api.call('getSubnet', { params: { id } }), 200);
          const usage = expectStatus(await org.api.call('getSubnetUsage', { params: { id } }), 200);
          const inList = listed.find((s) => s.id === id)?.used_count;
          expect([one.used_count, usage.used, inList]).toEqual([
            model(block),
            model(block),
            tracked(i) ? model(block) : undefined,
          ]);
        }
      }),
      { numRuns: 15 },
    );
  });
});
