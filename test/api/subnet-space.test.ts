import { assert, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { defined } from '../support/defined';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

type Body = Record<string, unknown>;

/** Creates a subnet; with a VRF elsewhere in range the answer carries warnings, so unwrap it. */
const create = (network: string, extra: Body = {}, api: ApiClient = t.org.api) => createSubnet(api, network, extra);
const get = async (id: string, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('getSubnet', { params: { id } }), 200);
const address = async (subnetId: string, ip: string, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('createAddress', { params: { id: subnetId }, body: { ip } }), 201);
const split = (id: string, parts: number, api: ApiClient = t.org.api) =>
  api.call('splitSubnet', { params: { id }, body: { parts } });
const splitOk = async (id: string, parts: number, api: ApiClient = t.org.api) =>
  expectStatus(await split(id, parts, api), 200);
const firstFree = async (id: string, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('getSubnetFirstFreeIp', { params: { id } }), 200);
const freeBlocks = (id: string, query: Record<string, number>, api: ApiClient = t.org.api) =>
  api.call('getSubnetFreeBlocks', { params: { id }, query });
const parentOf = async (id: string, api: ApiClient = t.org.api) => (await get(id, api)).parent_id;
const vrf = async (name: string, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('createVrf', { body: { name } }), 201);
const patch = (id: string, body: Body, api: ApiClient = t.org.api) =>
  api.call('updateSubnet', { params: { id }, body });
const subnetOf = async (addressId: string) =>
  expectStatus(await t.org.api.call('getAddress', { params: { id: addressId } }), 200).subnet_id;

describe('spaces', () => {
  it('answers 404 for another organisation’s subnet on every subnet route', async () => {
    const params = { id: (await create('10.99.0.0/24', {}, (await t.server.newOrg()).api)).id };
    for (const operationId of ['getSubnet', 'getSubnetUsage', 'getSubnetFirstFreeIp', 'deleteSubnet'] as const)
      expectStatus(await t.org.api.call(operationId, { params }), 404);
    expectStatus(await patch(params.id, { name: 'mine' }), 404);
    expectStatus(await split(params.id, 2), 404);
    expectStatus(await freeBlocks(params.id, { prefix: 26 }), 404);
  });

  it('creates a global subnet meeting other VRFs’ ranges, with warnings', async () => {
    const own = await t.server.newOrg();
    const theirs = await create('10.0.0.0/16', { vrf_id: (await vrf('cust', own.api)).id, name: 'core' }, own.api);
    const body = expectStatus(await own.api.call('createSubnet', { body: { network: '10.0.1.0/24' } }), 201);
    assert('subnet' in body, 'the subnet with overlap warnings');
    expect(body.subnet).toMatchObject({ network: '10.0.1.0/24', vrf_id: null });
    expect(body.warnings).toEqual([{ id: theirs.id, network: '10.0.0.0/16', name: 'core', vrf_name: 'cust' }]);
  });

  it('moves a subnet to a new VRF by name and back with an empty string', async () => {
    const created = await create('10.65.0.0/24');
    const moved = expectStatus(await patch(created.id, { vrf: 'green' }), 200);
    expect(moved).toMatchObject({ vrf_name: 'green', vrf_id: expect.any(String) });
    const back = expectStatus(await patch(created.id, { vrf: '' }), 200);
    expect(back.vrf_id).toBeNull();
    expect(back).not.toHaveProperty('vrf_name');
  });

  it('refuses a move into a VRF holding the same CIDR (400 duplicate)', async () => {
    const own = await t.server.newOrg();
    await create('10.0.0.0/24', { vrf_id: (await vrf('taken', own.api)).id }, own.api);
    const global = await create('10.0.0.0/24', {}, own.api);
    const error = expectStatus(await patch(global.id, { vrf: 'taken' }, own.api), 400);
    expect(error).toMatchObject({ code: 'duplicate', error: expect.stringContaining('10.0.0.0/24') });
  });

  it('re-nests a moved subnet in both spaces', async () => {
    const own = await t.server.newOrg();
    const blue = await vrf('blue', own.api);
    const a = await create('10.0.0.0/8', {}, own.api);
    const c = await create('10.1.1.0/24', {}, own.api);
    const d = await create('10.0.0.0/8', { vrf_id: blue.id }, own.api);
    const e = await create('10.1.2.0/24', { vrf_id: blue.id }, own.api);
    const b = await create('10.1.0.0/16', {}, own.api);
    expectStatus(await patch(b.id, { vrf: 'blue' }, own.api), 200);
    const parents = await Promise.all([c, b, e].map((s) => parentOf(s.id, own.api)));
    expect(parents).toEqual([a.id, d.id, b.id]);
  });

  it('hands a moved subnet the addresses it covers in its new space', async () => {
    const container = await create('10.66.0.0/16', { vrf_id: (await vrf('takeover')).id });
    const held = await address(container.id, '10.66.1.7');
    const moved = await create('10.66.1.0/24');
    expectStatus(await patch(moved.id, { vrf: 'takeover' }), 200);
    expect(await subnetOf(held.id)).toBe(moved.id);
  });

  it('refuses a move whose addresses are already assigned in the new space (400 duplicate)', async () => {
    const container = await create('10.67.0.0/16');
    await address(container.id, '10.67.1.7');
    const moving = await create('10.67.1.0/24', { vrf_id: (await vrf('clash')).id });
    await address(moving.id, '10.67.1.7');
    const error = expectStatus(await patch(moving.id, { vrf: '' }), 400);
    expect(error).toMatchObject({ code: 'duplicate', error: expect.stringMatching(/^vrf: .*global space/) });
  });
});

describe('split', () => {
  it('answers the parts as {id, network} in address order', async () => {
    const subnet = await create('10.1.0.0/24');
    const parts = await splitOk(subnet.id, 4);
    expect(parts.map((p) => p.network)).toEqual(['10.1.0.0/26', '10.1.0.64/26', '10.1.0.128/26', '10.1.0.192/26']);
  });

  it('deletes the original and its own addresses', async () => {
    const subnet = await create('10.2.0.0/24');
    const held = await address(subnet.id, '10.2.0.10');
    await splitOk(subnet.id, 2);
    expectStatus(await t.org.api.call('getSubnet', { params: { id: subnet.id } }), 404);
    expectStatus(await t.org.api.call('getAddress', { params: { id: held.id } }), 404);
  });

  it('gives every part the folder, parent, name, VRF and pool flag of the original', async () => {
    const folder = expectStatus(await t.org.api.call('createFolder', { body: { name: 'split-folder' } }), 201);
    const space = await vrf('split-vrf');
    const top = await create('10.3.0.0/16', { vrf_id: space.id });
    const extra = { folder_id: folder.id, vrf_id: space.id, name: 'pool', is_pool: true };
    const subnet = await create('10.3.1.0/24', extra);
    for (const part of await splitOk(subnet.id, 2))
      expect(await get(part.id)).toMatchObject({ ...extra, parent_id: top.id, vrf_name: 'split-vrf' });
  });

  it('nests existing children under the part containing them, keeping their addresses', async () => {
    const subnet = await create('10.4.0.0/24');
    const child = await create('10.4.0.192/28');
    const held = await address(child.id, '10.4.0.193');
    const parts = await splitOk(subnet.id, 2);
    expect(await parentOf(child.id)).toBe(defined(parts[1], 'the second part').id);
    expect(await subnetOf(held.id)).toBe(child.id);
  });

  it('makes a child larger than a part the parent of the parts inside it', async () => {
    const own = await t.server.newOrg();
    const top = await create('10.0.0.0/8', {}, own.api);
    const subnet = await create('10.5.0.0/16', {}, own.api);
    const big = await create('10.5.0.0/17', {}, own.api);
    const parts = await splitOk(subnet.id, 4, own.api);
    const parents = await Promise.all([...parts, big].map((p) => parentOf(p.id, own.api)));
    expect(parents).toEqual([big.id, big.id, top.id, top.id, top.id]);
  });

  it('moves the addresses of a larger child into the part holding them', async () => {
    const subnet = await create('10.11.0.0/16');
    const big = await create('10.11.0.0/17');
    const [low, high] = [await address(big.id, '10.11.0.10'), await address(big.id, '10.11.64.10')];
    const parts = await splitOk(subnet.id, 4);
    expect([await subnetOf(low.id), await subnetOf(high.id)]).toEqual(parts.slice(0, 2).map((p) => p.id));
  });

  it('nests parts under the smallest descendant containing them', async () => {
    const subnet = await create('10.6.0.0/16');
    await create('10.6.0.0/17');
    const inner = await create('10.6.0.0/18');
    const parts = await splitOk(subnet.id, 8);
    expect(await Promise.all(parts.slice(0, 2).map((p) => parentOf(p.id)))).toEqual([inner.id, inner.id]);
  });

  it('refuses a split whose part equals an existing child (400 duplicate)', async () => {
    const subnet = await create('10.7.0.0/24');
    await create('10.7.0.64/26');
    const error = expectStatus(await split(subnet.id, 4), 400);
    expect(error).toMatchObject({ code: 'duplicate', error: expect.stringContaining('10.7.0.64/26') });
    await get(subnet.id);
  });

  it('refuses a split whose part equals a deeper descendant (400 duplicate)', async () => {
    const subnet = await create('10.8.0.0/16');
    await create('10.8.0.0/17');
    await create('10.8.0.0/18');
    const error = expectStatus(await split(subnet.id, 4), 400);
    expect(error).toMatchObject({ code: 'duplicate', error: expect.stringContaining('10.8.0.0/18') });
  });

  it.each([1, 3, 2048])('refuses %i parts, naming the field', async (parts) => {
    const subnet = await create(`10.9.${parts % 256}.0/24`);
    expect(expectStatus(await split(subnet.id, parts), 400).error).toMatch(/^parts: /);
  });

  it.each([
    ['10.10.0.0/31', 4],
    ['10.10.1.0/24', 1024],
  ])('refuses to split %s into %i (the prefix would not exist)', async (network, parts) => {
    const subnet = await create(network);
    expect(expectStatus(await split(subnet.id, parts), 400).error).toMatch(/^parts: /);
  });

  it('splits a subnet into 1,024 parts, the most allowed', async () => {
    const own = await t.server.newOrg();
    const subnet = await create('10.64.0.0/14', {}, own.api);
    const parts = await splitOk(subnet.id, 1024, own.api);
    expect(parts).toHaveLength(1024);
    expect([parts[0]?.network, parts[1023]?.network]).toEqual(['10.64.0.0/24', '10.67.255.0/24']);
  });

  it('splits an IPv6 /120 into 256 single addresses', async () => {
    const subnet = await create('2001:db8:120::/120');
    const parts = await splitOk(subnet.id, 256);
    expect(parts).toHaveLength(256);
    expect([parts[0]?.network, parts[255]?.network]).toEqual(['2001:db8:120::/128', '2001:db8:120::ff/128']);
  });

  it('lets only one of a concurrent split and delete succeed', async () => {
    const own = await t.server.newOrg();
    for (let i = 0; i < 5; i++) {
      const { id } = await create(`10.${i}.0.0/24`, {}, own.api);
      const [s, d] = await Promise.all([split(id, 2, own.api), own.api.call('deleteSubnet', { params: { id } })]);
      const outcome = `${s.status}/${d.status}`;
      expectStatus(s, s.status === 200 ? 200 : 404);
      expectStatus(d, d.status === 204 ? 204 : 404);
      expect(['200/404', '404/204']).toContain(outcome);
    }
  });

  it('refuses a split that would pass the subnet limit (402)', async () => {
    const enterprise = await t.server.newOrg({ plan: 'enterprise', limits: { subnets: 4 } });
    const subnet = await create('10.0.0.0/24', {}, enterprise.api);
    expect(expectStatus(await split(subnet.id, 8, enterprise.api), 402).code).toBe('plan_limit');
    expect(await splitOk(subnet.id, 4, enterprise.api)).toHaveLength(4);
  });
});

describe('usage and first free', () => {
  it('answers used, total and utilization of a subnet', async () => {
    const subnet = await create('10.20.0.0/29');
    await address(subnet.id, '10.20.0.1');
    const usage = expectStatus(await t.org.api.call('getSubnetUsage', { params: { id: subnet.id } }), 200);
    expect(usage).toMatchObject({ subnet_id: subnet.id, network: '10.20.0.0/29', used: 1, total: 6 });
    expect(usage.utilization).toBeCloseTo(1 / 6, 15);
  });

  it('skips the network address of an empty IPv4 subnet', async () => {
    expect(await firstFree((await create('10.30.0.0/24')).id)).toEqual({ ip: '10.30.0.1' });
  });

  it('skips the gateway and assigned addresses', async () => {
    const subnet = await create('10.30.1.0/24', { gateway: '10.30.1.1' });
    for (const ip of ['10.30.1.2', '10.30.1.3', '10.30.1.4', '10.30.1.5']) await address(subnet.id, ip);
    expect(await firstFree(subnet.id)).toEqual({ ip: '10.30.1.6' });
  });

  it('skips the range of a child subnet', async () => {
    const subnet = await create('10.30.2.0/24');
    await create('10.30.2.0/28');
    expect(await firstFree(subnet.id)).toEqual({ ip: '10.30.2.16' });
  });

  it('answers null with a message when a /30 is full', async () => {
    const subnet = await create('10.30.3.0/30');
    for (const ip of ['10.30.3.1', '10.30.3.2']) await address(subnet.id, ip);
    expect(await firstFree(subnet.id)).toEqual({ ip: null, message: expect.stringContaining('10.30.3.0/30') });
  });

  it('offers the only address of a /32, then nothing once taken', async () => {
    const subnet = await create('10.30.4.7/32');
    expect(await firstFree(subnet.id)).toEqual({ ip: '10.30.4.7' });
    await address(subnet.id, '10.30.4.7');
    expect((await firstFree(subnet.id)).ip).toBeNull();
  });

  it('offers the network address of a pool first', async () => {
    expect(await firstFree((await create('10.30.5.0/30', { is_pool: true })).id)).toEqual({ ip: '10.30.5.0' });
  });

  it('offers IPv6 addresses from the start of the range, skipping used ones and the gateway', async () => {
    const subnet = await create('2001:db8:30::/64', { gateway: '2001:db8:30::1' });
    expect(await firstFree(subnet.id)).toEqual({ ip: '2001:db8:30::' });
    await address(subnet.id, '2001:db8:30::');
    await address(subnet.id, '2001:db8:30::2');
    expect(await firstFree(subnet.id)).toEqual({ ip: '2001:db8:30::3' });
  });
});

describe('free blocks', () => {
  it('answers the lowest free blocks, with children at any depth taken', async () => {
    const own = await t.server.newOrg();
    const subnet = await create('10.0.0.0/24', {}, own.api);
    await create('10.0.0.0/26', {}, own.api);
    await create('10.0.0.0/28', {}, own.api);
    await create('10.0.0.128/27', {}, own.api);
    const answer = expectStatus(await freeBlocks(subnet.id, { prefix: 26 }, own.api), 200);
    expect(answer).toMatchObject({ subnet_id: subnet.id, network: '10.0.0.0/24', prefix: 26, total: 2, capped: false });
    expect(answer.blocks).toEqual(['10.0.0.64/26', '10.0.0.192/26']);
  });

  it.each([
    ['255.255.255.0/24', '255.255.255.252/30', 26, ['255.255.255.0/26', '255.255.255.64/26', '255.255.255.128/26']],
    [
      'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00/120',
      'ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffc/126',
      122,
      [
        'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff00/122',
        'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff40/122',
        'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ff80/122',
      ],
    ],
  ])('answers for %s with a child ending at the last address of the family', async (parent, child, prefix, blocks) => {
    const own = await t.server.newOrg();
    const subnet = await create(parent, {}, own.api);
    await create(child, {}, own.api);
    const answer = expectStatus(await freeBlocks(subnet.id, { prefix }, own.api), 200);
    expect(answer).toMatchObject({ blocks, total: 3, capped: false });
  });

  it('ignores subnets of other VRFs and supernets', async () => {
    const own = await t.server.newOrg();
    const elsewhere = await vrf('elsewhere', own.api);
    await create('10.0.0.0/16', {}, own.api);
    const subnet = await create('10.0.1.0/24', {}, own.api);
    await create('10.0.1.0/26', { vrf_id: elsewhere.id }, own.api);
    const answer = expectStatus(await freeBlocks(subnet.id, { prefix: 26 }, own.api), 200);
    expect(answer).toMatchObject({
      blocks: ['10.0.1.0/26', '10.0.1.64/26', '10.0.1.128/26', '10.0.1.192/26'],
      total: 4,
    });
  });

  it('counts the exact total of an IPv4 /16 with some children', async () => {
    const own = await t.server.newOrg();
    const subnet = await create('10.0.0.0/16', {}, own.api);
    for (const n of ['10.0.0.0/24', '10.0.1.0/25', '10.0.16.0/20']) await create(n, {}, own.api);
    const answer = expectStatus(await freeBlocks(subnet.id, { prefix: 24 }, own.api), 200);
    expect(answer).toMatchObject({ total: 256 - 18, capped: false });
    expect(answer.blocks).toEqual(['10.0.2.0/24', '10.0.3.0/24', '10.0.4.0/24', '10.0.5.0/24', '10.0.6.0/24']);
  });

  it('caps the total of an IPv6 /32 asked for up to 50 /64 blocks at 1,000,000', async () => {
    const own = await t.server.newOrg();
    const subnet = await create('2001:db8::/32', {}, own.api);
    const answer = expectStatus(await freeBlocks(subnet.id, { prefix: 64, limit: 50 }, own.api), 200);
    expect(answer).toMatchObject({ total: 1_000_000, capped: true });
    expect(answer.blocks).toHaveLength(50);
    expect(answer.blocks.slice(0, 2)).toEqual(['2001:db8::/64', '2001:db8:0:1::/64']);
  });

  it('reports 1,000,000 free blocks as the capped total and 999,999 exactly', async () => {
    const own = await t.server.newOrg();
    const subnet = await create('2001:db8:100::/44', {}, own.api); // 2^20 = 1,048,576 /64 blocks
    // Children from the start of the range taking 48,576 of them: 2^15 + 2^13 + 2^12 + 2^11 + 2^10 + 2^8 + 2^7 + 2^6.
    let offset = 0;
    for (const prefix of [49, 51, 52, 53, 54, 56, 57, 58]) {
      await create(`2001:db8:100:${offset.toString(16)}::/${prefix}`, {}, own.api);
      offset += 2 ** (64 - prefix);
    }
    const atCap = expectStatus(await freeBlocks(subnet.id, { prefix: 64, limit: 1 }, own.api), 200);
    expect(atCap).toMatchObject({ blocks: ['2001:db8:100:bdc0::/64'], total: 1_000_000, capped: true });
    await create('2001:db8:100:bdc0::/64', {}, own.api);
    const belowCap = expectStatus(await freeBlocks(subnet.id, { prefix: 64, limit: 1 }, own.api), 200);
    expect(belowCap).toMatchObject({ blocks: ['2001:db8:100:bdc1::/64'], total: 999_999, capped: false });
  });

  it.each([
    ['limit 51', '10.41.0.0/16', { prefix: 24, limit: 51 }, /^limit: /],
    ['its own prefix', '10.42.0.0/16', { prefix: 16 }, /^prefix: /],
    ['a shorter prefix', '10.43.0.0/16', { prefix: 8 }, /^prefix: /],
    ['prefix 33 on IPv4', '10.44.0.0/16', { prefix: 33 }, /^prefix: /],
    ['prefix 129', '2001:db8:44::/48', { prefix: 129 }, /^prefix: /],
    ['a missing prefix', '10.45.0.0/16', {}, /^prefix: /],
  ])('refuses %s, naming the field', async (_, network, query, message) => {
    const subnet = await create(network);
    expect(expectStatus(await freeBlocks(subnet.id, query), 400).error).toMatch(message);
  });
});
