/**
 * POST /subnets/{id}/allocate-address and /allocate-subnet: lowest free first, all or nothing, limits (an
 * allocation right after another: allocation-hints.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressesOf, allocate, allocateSubnets } from '../support/allocations';
import type { ApiClient } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const fresh = async (options: Parameters<typeof t.server.newOrg>[0] = { plan: 'enterprise' }) =>
  (await t.server.newOrg(options)).api;
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
