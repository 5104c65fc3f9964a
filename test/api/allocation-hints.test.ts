/**
 * Allocations right after allocations: the next allocation in a subnet starts from where the last one ended
 * without reading the subnet (allocation-hints.ts, subnet-allocate.service.ts), guarded by what lies below.
 * Whatever changed in between (a record freed or taken below, a child subnet or the gateway changed) must not
 * be passed over.
 */
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/types';
import { OCCUPANCY, withChildren } from '../../server/modules/subnets/subnet-space.repo';
import { addressesOf, allocate, allocateSubnets } from '../support/allocations';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const fresh = async () => (await t.server.newOrg({ plan: 'enterprise' })).api;

describe('address allocation after an allocation', () => {
  it('gives the next allocation an address freed below the last one', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/24');
    const [, second] = await allocate(api, subnet.id, { count: 3 });
    expectStatus(await api.call('deleteAddress', { params: { id: second?.id as string } }), 204);
    expect((await allocate(api, subnet.id)).map((a) => a.ip)).toEqual(['10.1.0.2']);
  });

  it('gives the next allocation an address freed in a whole block of 256 below the last one (counted by its tally)', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.2.0.0/22');
    await allocate(api, subnet.id, { count: 500 });
    const taken = await allocate(api, subnet.id, { count: 200 });
    expect(taken.at(-1)?.ip).toBe('10.2.2.188');
    const freed = (await addressesOf(api, subnet.id)).find((a) => a.ip === '10.2.1.44');
    expectStatus(await api.call('deleteAddress', { params: { id: freed?.id as string } }), 204);
    expect((await allocate(api, subnet.id)).map((a) => a.ip)).toEqual(['10.2.1.44']);
    expect((await allocate(api, subnet.id)).map((a) => a.ip)).toEqual(['10.2.2.189']);
  });

  it('gives the next allocation the range of a child subnet deleted below the last one', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/24');
    await allocate(api, subnet.id, { count: 8 });
    const child = await createSubnet(api, '10.1.0.4/30');
    expect((await allocate(api, subnet.id)).map((a) => a.ip)).toEqual(['10.1.0.9']);
    expectStatus(await api.call('deleteSubnet', { params: { id: child.id } }), 204);
    expect((await allocate(api, subnet.id, { count: 2 })).map((a) => a.ip)).toEqual(['10.1.0.4', '10.1.0.5']);
  });

  it('agrees with the model over a series of allocations and changes in one subnet', async () => {
    const step = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({ op: fc.constant('allocate' as const), count: fc.integer({ min: 1, max: 8 }) }),
      },
      { weight: 2, arbitrary: fc.record({ op: fc.constant('free' as const), pick: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('take' as const), at: fc.integer({ min: 1, max: 62 }) }) },
      {
        weight: 1,
        arbitrary: fc.record({ op: fc.constant('gateway' as const), at: fc.option(fc.integer({ min: 1, max: 62 })) }),
      },
      {
        weight: 1,
        // Children mostly low, below where the allocations have got to.
        arbitrary: fc.record({ op: fc.constant('child' as const), block: fc.integer({ min: 0, max: 7 }) }),
      },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('unchild' as const), pick: fc.nat() }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 4, maxLength: 16 }), async (steps) => {
        const api = await fresh();
        const ip = (offset: number) => `10.8.0.${offset}`;
        const subnet = await createSubnet(api, '10.8.0.0/26');
        // The model: the subnet's own records (offset → id), its /30 children (first offset → id), the gateway.
        const records = new Map<number, string>();
        const children = new Map<number, string>();
        let gateway: number | null = null;
        const inChild = (o: number) => children.has(o - (o % 4));
        const free = () =>
          Array.from({ length: 62 }, (_, i) => i + 1).filter((o) => o !== gateway && !inChild(o) && !records.has(o));
        for (const s of steps) {
          if (s.op === 'allocate') {
            const expected = free().slice(0, s.count);
            const response = await api.call('allocateAddress', { params: { id: subnet.id }, body: { count: s.count } });
            if (expected.length < s.count) {
              expectStatus(response, 409);
              continue;
            }
            const created = expectStatus(response, 201);
            expect(created.map((a) => a.ip)).toEqual(expected.map(ip));
            for (const [i, o] of expected.entries()) records.set(o, created[i]?.id as string);
          } else if (s.op === 'free' && records.size > 0) {
            const [o, id] = [...records][s.pick % records.size] as [number, string];
            expectStatus(await api.call('deleteAddress', { params: { id } }), 204);
            records.delete(o);
          } else if (s.op === 'take' && !records.has(s.at) && !inChild(s.at)) {
            const made = expectStatus(
              await api.call('createAddress', { params: { id: subnet.id }, body: { ip: ip(s.at) } }),
              201,
            );
            records.set(s.at, made.id);
          } else if (s.op === 'gateway') {
            const body = { gateway: s.at === null ? null : ip(s.at) };
            expectStatus(await api.call('updateSubnet', { params: { id: subnet.id }, body }), 200);
            gateway = s.at;
          } else if (s.op === 'child' && !children.has(s.block * 4)) {
            const first = s.block * 4;
            const child = await createSubnet(api, `${ip(first)}/30`);
            children.set(first, child.id);
            // The records inside move to the child (and go with it when it is deleted).
            for (let o = first; o < first + 4; o++) records.delete(o);
          } else if (s.op === 'unchild' && children.size > 0) {
            const [first, id] = [...children][s.pick % children.size] as [number, string];
            expectStatus(await api.call('deleteSubnet', { params: { id } }), 204);
            children.delete(first);
          }
        }
      }),
      { numRuns: 30 },
    );
  });
});

describe('subnet allocation after an allocation', () => {
  it('gives the next allocation a block freed below the last one by a deleted subnet', async () => {
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/24');
    const [, second] = await allocateSubnets(api, parent.id, { prefix_length: 28, count: 3 });
    await allocateSubnets(api, parent.id, { prefix_length: 28 });
    expectStatus(await api.call('deleteSubnet', { params: { id: second?.id as string } }), 204);
    expect((await allocateSubnets(api, parent.id, { prefix_length: 28 })).map((s) => s.network)).toEqual([
      '10.1.0.16/28',
    ]);
  });

  it('gives the next allocation a block freed below the last one by a deleted address record', async () => {
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/24');
    const record = expectStatus(
      await api.call('createAddress', { params: { id: parent.id }, body: { ip: '10.1.0.20' } }),
      201,
    );
    expect((await allocateSubnets(api, parent.id, { prefix_length: 28, count: 2 })).map((s) => s.network)).toEqual([
      '10.1.0.0/28',
      '10.1.0.32/28',
    ]);
    expectStatus(await api.call('deleteAddress', { params: { id: record.id } }), 204);
    expect((await allocateSubnets(api, parent.id, { prefix_length: 28 })).map((s) => s.network)).toEqual([
      '10.1.0.16/28',
    ]);
  });

  // Else no hint would ever pass its guard: every allocation would read, as before hints.
  it('keeps, for the next allocation, the digest the database gives of what occupies the subnet', async () => {
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/24');
    expectStatus(await api.call('createAddress', { params: { id: parent.id }, body: { ip: '10.1.0.200' } }), 201);
    const occupancy = async () =>
      rowsOf<{ digest: string }>(
        await t.server.database.db.execute(
          sql`SELECT ${sql.raw(OCCUPANCY('s'))} AS digest FROM subnets s WHERE s.id = ${parent.id}`,
        ),
      )[0]?.digest as string;
    for (const count of [1, 3, 2]) {
      const before = await occupancy();
      const made = await allocateSubnets(api, parent.id, { prefix_length: 28, count });
      const hashes = rowsOf<{ hash: string }>(
        await t.server.database.db.execute(
          sql`SELECT hashinetextended(network, 0)::text AS hash FROM subnets
              WHERE id IN (${sql.join(
                made.map((m) => sql`${m.id}::uuid`),
                sql`, `,
              )})`,
        ),
      ).map((r) => r.hash);
      expect(withChildren(before, hashes)).toBe(await occupancy());
    }
  });
});
