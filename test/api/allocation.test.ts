/** POST /subnets/{id}/allocate-address and /allocate-subnet: lowest free first, all or nothing, limits. */
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/types';
import { OCCUPANCY, withChildren } from '../../server/modules/subnets/subnet-space.repo';
import type { ApiClient } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const fresh = async (options: Parameters<typeof t.server.newOrg>[0] = { plan: 'enterprise' }) =>
  (await t.server.newOrg(options)).api;
const allocate = async (api: ApiClient, id: string, body: Record<string, unknown> = {}) =>
  expectStatus(await api.call('allocateAddress', { params: { id }, body }), 201);
const allocateSubnets = async (api: ApiClient, id: string, body: { prefix_length: number } & Record<string, unknown>) =>
  expectStatus(await api.call('allocateSubnet', { params: { id }, body }), 201);
const addressesOf = async (api: ApiClient, id: string) =>
  expectStatus(await api.call('listSubnetAddresses', { params: { id }, query: { limit: 1000 } }), 200);
async function address(api: ApiClient, id: string, ip: string) {
  expectStatus(await api.call('createAddress', { params: { id }, body: { ip } }), 201);
}

describe('allocate addresses', () => {
  it('creates the lowest free address with the fields given', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/24');
    await address(api, subnet.id, '10.1.0.1');
    const [created] = await allocate(api, subnet.id, { hostname: 'web', owner: 'ops', status: 'reserved' });
    expect(created).toMatchObject({ ip: '10.1.0.2', hostname: 'web', owner: 'ops', status: 'reserved' });
    expect((await addressesOf(api, subnet.id)).map((a) => a.ip)).toEqual(['10.1.0.1', '10.1.0.2']);
  });

  it('skips the gateway, child subnets and the network address', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/28', { gateway: '10.1.0.1' });
    await createSubnet(api, '10.1.0.2/31');
    const created = await allocate(api, subnet.id, { count: 3 });
    expect(created.map((a) => a.ip)).toEqual(['10.1.0.4', '10.1.0.5', '10.1.0.6']);
  });

  it('takes every address of a pool, network and broadcast included', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/30', { is_pool: true });
    expect((await allocate(api, subnet.id, { count: 4 })).map((a) => a.ip)).toEqual([
      '10.1.0.0',
      '10.1.0.1',
      '10.1.0.2',
      '10.1.0.3',
    ]);
  });

  it('allocates IPv6 addresses from the first (IPv6 reserves no network or broadcast address)', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '2001:db8::/64');
    expect((await allocate(api, subnet.id, { count: 2 })).map((a) => a.ip)).toEqual(['2001:db8::', '2001:db8::1']);
  });

  it('answers 409 exhausted and creates nothing when fewer are free than asked', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/29');
    await address(api, subnet.id, '10.1.0.3');
    const refused = expectStatus(
      await api.call('allocateAddress', { params: { id: subnet.id }, body: { count: 6 } }),
      409,
    );
    expect(refused).toMatchObject({ code: 'exhausted' });
    expect(refused.error).toMatch(/10\.1\.0\.0\/29 has 5 free/);
    expect(await addressesOf(api, subnet.id)).toHaveLength(1);
    expect(await allocate(api, subnet.id, { count: 5 })).toHaveLength(5);
  });

  it('accepts a count of 500 and refuses 501', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/22');
    expectStatus(await api.call('allocateAddress', { params: { id: subnet.id }, body: { count: 501 } }), 400);
    const created = await allocate(api, subnet.id, { count: 500 });
    expect(created.map((a) => a.ip).slice(-2)).toEqual(['10.1.1.243', '10.1.1.244']);
  });

  it('refuses a hostname with a count above 1', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/24');
    const refused = expectStatus(
      await api.call('allocateAddress', { params: { id: subnet.id }, body: { count: 2, hostname: 'web' } }),
      400,
    );
    expect(refused.error).toMatch(/^hostname: /);
  });

  it('answers 402 past the plan’s address limit, creating nothing', async () => {
    const api = await fresh({ plan: 'enterprise', limits: { addresses: 2 } });
    const subnet = await createSubnet(api, '10.1.0.0/24');
    expectStatus(await api.call('allocateAddress', { params: { id: subnet.id }, body: { count: 3 } }), 402);
    expect(await allocate(api, subnet.id, { count: 2 })).toHaveLength(2);
  });

  it('answers 404 for another organisation’s subnet', async () => {
    const subnet = await createSubnet(await fresh(), '10.1.0.0/24');
    expectStatus(await (await fresh()).call('allocateAddress', { params: { id: subnet.id }, body: {} }), 404);
  });

  it('logs each allocated address as a create', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/24');
    const created = await allocate(api, subnet.id, { count: 2 });
    const log = expectStatus(await api.call('listActivity', { query: { resource_type: 'address' } }), 200);
    expect(log.entries.map((e) => [e.action, e.resource_id]).sort()).toEqual(
      created.map((a) => ['create', a.id]).sort(),
    );
  });

  it('agrees with a model of the lowest free addresses over random subnets', async () => {
    const state = fc.record({
      bits: fc.integer({ min: 3, max: 7 }), // a /25 … /29 under 10.9.0.0
      pool: fc.boolean(),
      gateway: fc.option(fc.nat(127)),
      child: fc.option(fc.record({ at: fc.nat(127), bits: fc.integer({ min: 0, max: 3 }) })),
      used: fc.uniqueArray(fc.nat(127), { maxLength: 40 }),
      count: fc.integer({ min: 1, max: 20 }),
    });
    await fc.assert(
      fc.asyncProperty(state, async ({ bits, pool, gateway, child, used, count }) => {
        const size = 2 ** bits;
        const api = await fresh();
        const ip = (offset: number) => `10.9.0.${offset}`;
        const gw = gateway === null ? null : gateway % size;
        const subnet = await createSubnet(api, `10.9.0.0/${32 - bits}`, {
          is_pool: pool,
          ...(gw === null ? {} : { gateway: ip(gw) }),
        });
        const inChild = (o: number) =>
          child !== null &&
          child.bits < bits &&
          o >= child.at - (child.at % 2 ** child.bits) &&
          o < child.at - (child.at % 2 ** child.bits) + 2 ** child.bits &&
          child.at < size;
        if (child !== null && child.bits < bits && child.at < size) {
          const start = child.at - (child.at % 2 ** child.bits);
          await createSubnet(api, `${ip(start)}/${32 - child.bits}`);
        }
        const usable = (o: number) => pool || (o !== 0 && o !== size - 1);
        const records = used.filter((o) => o < size && usable(o) && !inChild(o));
        if (records.length > 0) {
          const ips = records.map(ip);
          expectStatus(await api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips } }), 200);
        }
        const free = Array.from({ length: size }, (_, o) => o).filter(
          (o) => usable(o) && o !== gw && !inChild(o) && !records.includes(o),
        );
        const response = await api.call('allocateAddress', { params: { id: subnet.id }, body: { count } });
        if (free.length < count) {
          expectStatus(response, 409);
        } else {
          expect(expectStatus(response, 201).map((a) => a.ip)).toEqual(free.slice(0, count).map(ip));
        }
      }),
      { numRuns: 25 },
    );
  });

  it('allocates up to the last address of either family, then answers 409 exhausted', async () => {
    const api = await fresh();
    for (const [network, usable] of [
      ['255.255.255.255/32', 1],
      ['255.255.255.252/30', 2],
      ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128', 1],
      ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:fff0/126', 4],
    ] as const) {
      const subnet = await createSubnet(api, network);
      for (let i = 0; i < usable; i++) await allocate(api, subnet.id);
      const answer = await api.call('allocateAddress', { params: { id: subnet.id }, body: {} });
      expect(expectStatus(answer, 409).code).toBe('exhausted');
    }
  });

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

  // After an allocation the next one in the subnet skips reading it (allocation-hints.ts): whatever changed in
  // between (an address freed or taken below, a child subnet or the gateway changed) must not be passed over.
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

describe('allocate subnets', () => {
  it('creates the lowest free blocks of the size asked, nested in the subnet', async () => {
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/24');
    await createSubnet(api, '10.1.0.0/26');
    const created = await allocateSubnets(api, parent.id, { prefix_length: 26, count: 2, name: 'pods' });
    expect(created.map((s) => [s.network, s.name, s.parent_id])).toEqual([
      ['10.1.0.64/26', 'pods', parent.id],
      ['10.1.0.128/26', 'pods', parent.id],
    ]);
  });

  it('skips blocks holding an address record of the subnet', async () => {
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/24');
    await address(api, parent.id, '10.1.0.5');
    const [created] = await allocateSubnets(api, parent.id, { prefix_length: 28 });
    expect(created?.network).toBe('10.1.0.16/28');
  });

  it('skips blocks overlapping a deeper descendant', async () => {
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/24');
    await createSubnet(api, '10.1.0.0/25');
    await createSubnet(api, '10.1.0.200/29');
    const created = await allocateSubnets(api, parent.id, { prefix_length: 27, count: 3 });
    expect(created.map((s) => s.network)).toEqual(['10.1.0.128/27', '10.1.0.160/27', '10.1.0.224/27']);
  });

  it('creates in the subnet’s VRF', async () => {
    const api = await fresh();
    const vrf = expectStatus(await api.call('createVrf', { body: { name: 'blue' } }), 201);
    const parent = await createSubnet(api, '10.1.0.0/24', { vrf_id: vrf.id });
    const [created] = await allocateSubnets(api, parent.id, { prefix_length: 25 });
    expect(created).toMatchObject({ vrf_id: vrf.id, parent_id: parent.id });
  });

  it('answers 409 exhausted and creates nothing when fewer blocks are free than asked', async () => {
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/24');
    await createSubnet(api, '10.1.0.0/25');
    const refused = expectStatus(
      await api.call('allocateSubnet', { params: { id: parent.id }, body: { prefix_length: 26, count: 3 } }),
      409,
    );
    expect(refused.code).toBe('exhausted');
    expect(await allocateSubnets(api, parent.id, { prefix_length: 26, count: 2 })).toHaveLength(2);
  });

  it.each([24, 23, 33])('refuses a prefix_length of %i for a /24', async (prefix_length) => {
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/24');
    const refused = expectStatus(
      await api.call('allocateSubnet', { params: { id: parent.id }, body: { prefix_length } }),
      400,
    );
    expect(refused.error).toMatch(/^prefix_length: /);
  });

  it('accepts a count of 64 and refuses 65', async () => {
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/16');
    expectStatus(
      await api.call('allocateSubnet', { params: { id: parent.id }, body: { prefix_length: 24, count: 65 } }),
      400,
    );
    expect(await allocateSubnets(api, parent.id, { prefix_length: 24, count: 64 })).toHaveLength(64);
  });

  it('answers 402 past the plan’s subnet limit', async () => {
    const api = await fresh({ plan: 'enterprise', limits: { subnets: 2 } });
    const parent = await createSubnet(api, '10.1.0.0/24');
    expectStatus(
      await api.call('allocateSubnet', { params: { id: parent.id }, body: { prefix_length: 26, count: 2 } }),
      402,
    );
  });

  it('answers 404 for another organisation’s subnet', async () => {
    const parent = await createSubnet(await fresh(), '10.1.0.0/24');
    expectStatus(
      await (await fresh()).call('allocateSubnet', { params: { id: parent.id }, body: { prefix_length: 26 } }),
      404,
    );
  });

  it('refuses a folder of another organisation', async () => {
    const other = await fresh();
    const folder = expectStatus(await other.call('createFolder', { body: { name: 'x' } }), 201);
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/24');
    const refused = expectStatus(
      await api.call('allocateSubnet', {
        params: { id: parent.id },
        body: { prefix_length: 26, folder_id: folder.id },
      }),
      400,
    );
    expect(refused.error).toMatch(/^folder_id: /);
  });

  // After an allocation the next one in the subnet starts from what it left (subnet-allocate.service.ts).
  it('allocates blocks up to the end of either family, then answers 409 exhausted', async () => {
    const api = await fresh();
    for (const [network, prefix_length, blocks] of [
      ['255.255.255.252/30', 32, 4],
      ['ffff:ffff:ffff:ffff:ffff:ffff:ffff:fff8/125', 127, 4],
    ] as const) {
      const subnet = await createSubnet(api, network);
      for (let i = 0; i < blocks; i++) await allocateSubnets(api, subnet.id, { prefix_length });
      const answer = await api.call('allocateSubnet', { params: { id: subnet.id }, body: { prefix_length } });
      expect(expectStatus(answer, 409).code).toBe('exhausted');
    }
  });

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

  it('gives concurrent allocations in one subnet the lowest blocks, each its own', async () => {
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/24');
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => allocateSubnets(api, parent.id, { prefix_length: 28, count: 2 })),
    );
    const networks = answers.flat().map((s) => s.network);
    const lowest = Array.from({ length: 12 }, (_, i) => `10.1.0.${i * 16}/28`);
    expect([...networks].sort((a, b) => lowest.indexOf(a) - lowest.indexOf(b))).toEqual(lowest);
  });

  it('never allocates over a subnet created at the same time in the subnet (one of the two gets it)', async () => {
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/24');
    const [allocated, made] = await Promise.all([
      allocateSubnets(api, parent.id, { prefix_length: 26, count: 2 }),
      api.call('createSubnet', { body: { network: '10.1.0.64/26' } }),
    ]);
    const networks = allocated.map((s) => s.network);
    if (made.status === 201) expect(networks).toEqual(['10.1.0.0/26', '10.1.0.128/26']);
    else {
      expect(expectStatus(made, 400).code).toBe('duplicate');
      expect(networks).toEqual(['10.1.0.0/26', '10.1.0.64/26']);
    }
  });
});
