import { sql } from 'drizzle-orm';
import { assert, describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus, type ResponseBody } from '../support/observed';

const t = useTestServer();

type Body = Record<string, unknown>;
type Subnet = ResponseBody<'getSubnet', 200>;
let nextNetwork = 0;
/** A /24 no other test of this file uses. */
const fresh = () => `10.200.${nextNetwork++}.0/24`;

/** Creates a subnet that meets nothing in another VRF, so the answer is the plain subnet. */
const create = async (network: string, extra: Body = {}, api: ApiClient = t.org.api) => {
  const body = expectStatus(await api.call('createSubnet', { body: { network, ...extra } }), 201);
  assert(!('warnings' in body), 'a plain subnet, without warnings');
  return body;
};
const refusedCreate = async (body: Body, status: 400 | 402 = 400, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('createSubnet', { body }), status);
const get = async (id: string, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('getSubnet', { params: { id } }), 200);
const patch = (id: string, body: Body, api: ApiClient = t.org.api) =>
  api.call('updateSubnet', { params: { id }, body });
const list = async (api: ApiClient = t.org.api, query?: Record<string, string>) =>
  expectStatus(await api.call('listSubnets', { query }), 200);
const address = async (subnetId: string, ip: string, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('createAddress', { params: { id: subnetId }, body: { ip } }), 201);
const make = async (resource: 'Vlan' | 'Vrf' | 'Location' | 'Folder', body: Body, api: ApiClient = t.org.api) =>
  expectStatus(await api.call(`create${resource}`, { body }), 201);

describe('create, get, list', () => {
  it('creates an IPv4 subnet with defaults and utilization figures', async () => {
    const own = await t.server.newOrg();
    const subnet = await create('10.0.0.0/24', {}, own.api);
    expect(subnet).toMatchObject({ network: '10.0.0.0/24', name: '', description: '', folder_id: null, vrf_id: null });
    expect(subnet).toMatchObject({ folder_name: null, vlan_id: null, location_id: null, gateway: null });
    expect(subnet).toMatchObject({ is_pool: false, tracked: true, scan_enabled: false, dns_primary: null });
    expect(subnet).toMatchObject({ utilization: 0, used_count: 0, total_count: 254 });
    for (const omitted of ['parent_id', 'vlan_number', 'vrf_name', 'location_name', 'custom_fields'])
      expect(subnet).not.toHaveProperty(omitted);
  });

  it('creates an IPv6 subnet in canonical form with its whole range as total', async () => {
    const subnet = await create('2001:0DB8:0:0::/64');
    expect(subnet).toMatchObject({ network: '2001:db8::/64', total_count: 2 ** 64, utilization: 0 });
  });

  it.each([
    ['10.1.2.3/16', '10.1.0.0/16'],
    ['2001:db8::1/32', '2001:db8::/32'],
  ])('refuses %s with host bits set, naming the network %s', async (network, normalised) => {
    const error = await refusedCreate({ network });
    expect(error.code).toBe('validation');
    expect(error.error).toMatch(/^network: /);
    expect(error.error).toContain(normalised);
  });

  it('refuses a network that is not a CIDR, naming the field', async () => {
    expect((await refusedCreate({ network: '10.0.0.0' })).error).toMatch(/^network: /);
  });

  it('gets a subnet with its direct children only', async () => {
    const own = await t.server.newOrg();
    const top = await create('10.0.0.0/16', {}, own.api);
    const mid = await create('10.0.0.0/20', { name: 'mid' }, own.api);
    await create('10.0.1.0/24', {}, own.api);
    const detail = await get(top.id, own.api);
    expect(detail.children).toEqual([{ id: mid.id, network: '10.0.0.0/20', name: 'mid' }]);
  });

  it('lists subnets with resolved folder, VLAN, VRF and location names', async () => {
    const own = await t.server.newOrg();
    const folder = await make('Folder', { name: 'DC A' }, own.api);
    const vlan = await make('Vlan', { vlan_number: 120 }, own.api);
    const vrf = await make('Vrf', { name: 'blue' }, own.api);
    const location = await make('Location', { name: 'FRA1' }, own.api);
    const refs = { folder_id: folder.id, vlan_id: vlan.id, vrf_id: vrf.id, location_id: location.id };
    await create('10.0.0.0/24', refs, own.api);
    const [listed] = await list(own.api);
    expect(listed).toMatchObject({ ...refs, folder_name: 'DC A', vlan_number: 120, vrf_name: 'blue' });
    expect(listed?.location_name).toBe('FRA1');
  });

  it('filters the list by folder', async () => {
    const own = await t.server.newOrg();
    const folder = await make('Folder', { name: 'only' }, own.api);
    const inFolder = await create('10.0.0.0/24', { folder_id: folder.id }, own.api);
    await create('10.0.1.0/24', {}, own.api);
    const listed = await list(own.api, { folder_id: folder.id });
    expect(listed.map((s) => s.id)).toEqual([inFolder.id]);
  });

  it('refuses a folder filter that is not a UUID, naming it', async () => {
    const error = expectStatus(await t.org.api.call('listSubnets', { query: { folder_id: 'x' } }), 400);
    expect(error.error).toMatch(/^folder_id: /);
  });

  it('lists every subnet in one response, without pagination', async () => {
    const own = await t.server.newOrg();
    for (let i = 0; i < 120; i++) await create(`10.${i}.0.0/16`, {}, own.api);
    expect(await list(own.api)).toHaveLength(120);
  });

  it('never shows another organisation’s subnet', async () => {
    const other = await t.server.newOrg();
    const theirs = await create('192.168.77.0/24', {}, other.api);
    expectStatus(await t.org.api.call('getSubnet', { params: { id: theirs.id } }), 404);
    expect((await list()).map((s) => s.id)).not.toContain(theirs.id);
  });
});

describe('hierarchy', () => {
  it('nests a new subnet under the smallest containing subnet', async () => {
    const own = await t.server.newOrg();
    await create('10.0.0.0/8', {}, own.api);
    const mid = await create('10.1.0.0/16', {}, own.api);
    expect((await create('10.1.2.0/24', {}, own.api)).parent_id).toBe(mid.id);
  });

  it('re-parents the subnets a new subnet contains, and only those', async () => {
    const own = await t.server.newOrg();
    const top = await create('10.0.0.0/8', {}, own.api);
    const a = await create('10.1.1.0/24', {}, own.api);
    const b = await create('10.1.2.0/24', {}, own.api);
    const outside = await create('10.2.0.0/24', {}, own.api);
    const mid = await create('10.1.0.0/16', {}, own.api);
    expect(mid.parent_id).toBe(top.id);
    for (const s of [a, b]) expect((await get(s.id, own.api)).parent_id).toBe(mid.id);
    expect((await get(outside.id, own.api)).parent_id).toBe(top.id);
  });

  it('moves the addresses a new child covers into it', async () => {
    const parent = await create('172.16.0.0/24');
    const inside = await address(parent.id, '172.16.0.10');
    const outside = await address(parent.id, '172.16.0.200');
    const child = await create('172.16.0.0/25');
    const subnetOf = async (id: string) =>
      expectStatus(await t.org.api.call('getAddress', { params: { id } }), 200).subnet_id;
    expect(await subnetOf(inside.id)).toBe(child.id);
    expect(await subnetOf(outside.id)).toBe(parent.id);
  });

  it('nests IPv6 subnets: /48 children under a /32 created after them', async () => {
    const own = await t.server.newOrg();
    const kids = [await create('2001:db8:1::/48', {}, own.api), await create('2001:db8:2::/48', {}, own.api)];
    const top = await create('2001:db8::/32', {}, own.api);
    for (const kid of kids) expect((await get(kid.id, own.api)).parent_id).toBe(top.id);
    expect((await get(top.id, own.api)).children.map((c) => c.network)).toEqual(['2001:db8:1::/48', '2001:db8:2::/48']);
  });
});

describe('spaces and duplicates', () => {
  it('refuses the same CIDR twice in the global space, naming the existing network', async () => {
    await create('10.50.0.0/16');
    const error = await refusedCreate({ network: '10.50.0.0/16' });
    expect(error.code).toBe('duplicate');
    expect(error.error).toContain('10.50.0.0/16');
  });

  it('refuses another organisation’s VRF, naming vrf_id', async () => {
    const theirs = await make('Vrf', { name: 'not-yours' }, (await t.server.newOrg()).api);
    expect((await refusedCreate({ network: fresh(), vrf_id: theirs.id })).error).toMatch(/^vrf_id: /);
  });

  it.each(['folder_id', 'vlan_id', 'location_id'])('refuses a %s the organisation lacks, naming it', async (field) => {
    const error = await refusedCreate({ network: fresh(), [field]: '00000000-0000-4000-8000-000000000001' });
    expect(error.error).toBe(`${field}: no such object with id 00000000-0000-4000-8000-000000000001`);
  });

  it('names the first missing reference of several, and writes nothing', async () => {
    const own = await t.server.newOrg();
    const missing = '00000000-0000-4000-8000-000000000002';
    const body = { network: '10.9.0.0/24', vlan_id: missing, location_id: missing };
    expect((await refusedCreate(body, 400, own.api)).error).toMatch(/^vlan_id: /);
    expect(await list(own.api)).toEqual([]);
  });

  it('refuses the same CIDR twice in one VRF', async () => {
    const vrf = await make('Vrf', { name: 'dup-vrf' });
    await create('10.51.0.0/16', { vrf_id: vrf.id });
    expect((await refusedCreate({ network: '10.51.0.0/16', vrf_id: vrf.id })).code).toBe('duplicate');
  });

  it('never nests under a subnet of another VRF', async () => {
    const own = await t.server.newOrg();
    await create('10.0.0.0/8', { vrf_id: (await make('Vrf', { name: 'red' }, own.api)).id }, own.api);
    const global = expectStatus(await own.api.call('createSubnet', { body: { network: '10.1.0.0/16' } }), 201);
    assert('subnet' in global, 'the subnet with overlap warnings');
    expect(global.subnet).not.toHaveProperty('parent_id');
  });

  it('accepts the same CIDR in another VRF', async () => {
    const own = await t.server.newOrg();
    const [a, b] = [await make('Vrf', { name: 'a' }, own.api), await make('Vrf', { name: 'b' }, own.api)];
    await create('10.0.0.0/24', { vrf_id: a.id }, own.api);
    expect(await create('10.0.0.0/24', { vrf_id: b.id }, own.api)).toMatchObject({ vrf_id: b.id, vrf_name: 'b' });
  });
});

describe('PATCH', () => {
  it('changes only the fields given', async () => {
    const created = await create('10.60.0.0/24', { name: 'n', description: 'keep', gateway: '10.60.0.1' });
    const updated = expectStatus(await patch(created.id, { name: 'renamed' }), 200);
    const { children, ...subnet } = created;
    expect(children).toEqual([]);
    expect(updated).toEqual({ ...subnet, name: 'renamed', updated_at: updated.updated_at });
  });

  it('refuses a change of network', async () => {
    const created = await create('10.61.0.0/24');
    const error = expectStatus(await patch(created.id, { network: '10.61.1.0/24' }), 400);
    expect(error.error).toContain('network');
  });

  it('round-trips custom_fields', async () => {
    const created = await create('10.62.0.0/24');
    const custom_fields = { rack: 'R12', nested: { u: [1, 2] } };
    expectStatus(await patch(created.id, { custom_fields }), 200);
    expect((await get(created.id)).custom_fields).toEqual(custom_fields);
  });

  it('creates a missing VLAN from its number, which the VLAN list counts', async () => {
    const own = await t.server.newOrg();
    const created = await create('10.0.0.0/24', {}, own.api);
    const updated = expectStatus(await patch(created.id, { vlan: '120' }, own.api), 200);
    expect(updated.vlan_number).toBe(120);
    const vlans = expectStatus(await own.api.call('listVlans'), 200);
    expect(vlans).toMatchObject([{ id: updated.vlan_id, vlan_number: 120, subnet_count: 1 }]);
  });

  it('clears the VLAN with an empty string', async () => {
    const created = await create('10.63.0.0/24');
    expectStatus(await patch(created.id, { vlan: '121' }), 200);
    const cleared = expectStatus(await patch(created.id, { vlan: '' }), 200);
    expect(cleared.vlan_id).toBeNull();
    expect(cleared).not.toHaveProperty('vlan_number');
  });

  it.each(['0', '4095', 'x', '012'])('refuses vlan "%s", naming the field', async (vlan) => {
    const created = await create(fresh());
    expect(expectStatus(await patch(created.id, { vlan }), 400).error).toMatch(/^vlan: /);
  });

  it('refuses an IPv6 gateway on an IPv4 subnet, naming gateway', async () => {
    const created = await create('10.66.0.0/24');
    expect(expectStatus(await patch(created.id, { gateway: '2001:db8::1' }), 400).error).toMatch(/^gateway: /);
  });

  it('refuses a gateway outside the subnet', async () => {
    const error = await refusedCreate({ network: '10.67.0.0/24', gateway: '10.67.1.1' });
    expect(error.error).toMatch(/^gateway: .*outside 10\.67\.0\.0\/24/);
  });

  it('refuses a DNS t.server of the wrong family, naming the field', async () => {
    const created = await create('2001:db8:66::/48');
    expect(expectStatus(await patch(created.id, { dns_primary: '10.0.0.53' }), 400).error).toMatch(/^dns_primary: /);
  });

  it('clears gateway and DNS servers with null', async () => {
    const created = await create('2001:db8:67::/48', { gateway: '2001:db8:67::1', dns_secondary: '2001:db8::53' });
    const cleared = expectStatus(await patch(created.id, { gateway: null, dns_secondary: null }), 200);
    expect(cleared).toMatchObject({ gateway: null, dns_secondary: null });
  });

  it('refuses to auto-create an 11th VLAN on the free plan (402)', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    for (let n = 1; n <= 10; n++) await make('Vlan', { vlan_number: n }, free.web);
    const created = await create('10.0.0.0/24', {}, free.web);
    const error = expectStatus(await patch(created.id, { vlan: '11' }, free.web), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('10 VLANs') });
    expect(expectStatus(await patch(created.id, { vlan: '10' }, free.web), 200).vlan_number).toBe(10);
  });

  it('refuses to auto-create a 6th VRF on the free plan (402)', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    for (let n = 1; n <= 5; n++) await make('Vrf', { name: `v${n}` }, free.web);
    const created = await create('10.0.0.0/24', {}, free.web);
    const error = expectStatus(await patch(created.id, { vrf: 'v6' }, free.web), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('5 VRFs') });
    expect((await get(created.id, free.web)).vrf_id).toBeNull();
  });
});

describe('DELETE', () => {
  it('cascades to child subnets and their addresses', async () => {
    const parent = await create('10.70.0.0/16');
    const child = await create('10.70.1.0/24');
    const grandchild = await create('10.70.1.0/28');
    const held = await address(child.id, '10.70.1.100');
    expectStatus(await t.org.api.call('deleteSubnet', { params: { id: parent.id } }), 204);
    for (const id of [parent.id, child.id, grandchild.id])
      expectStatus(await t.org.api.call('getSubnet', { params: { id } }), 404);
    expectStatus(await t.org.api.call('getAddress', { params: { id: held.id } }), 404);
  });

  it('refuses to delete a VRF that subnets use (400 in_use)', async () => {
    const vrf = await make('Vrf', { name: 'busy' });
    await create('10.71.0.0/24', { vrf_id: vrf.id });
    const error = expectStatus(await t.org.api.call('deleteVrf', { params: { id: vrf.id } }), 400);
    expect(error.code).toBe('in_use');
  });
});

describe('counts in other lists', () => {
  it('counts subnets per VRF and subnets and VLANs per location', async () => {
    const own = await t.server.newOrg();
    const vrf = await make('Vrf', { name: 'counted' }, own.api);
    const location = await make('Location', { name: 'site' }, own.api);
    await make('Vlan', { vlan_number: 5, location_id: location.id }, own.api);
    await create('10.0.0.0/24', { vrf_id: vrf.id, location_id: location.id }, own.api);
    await create('10.0.1.0/24', { vrf_id: vrf.id }, own.api);
    const [vrfs, locations] = [await own.api.call('listVrfs'), await own.api.call('listLocations')];
    expect(expectStatus(vrfs, 200)).toMatchObject([{ name: 'counted', subnet_count: 2 }]);
    expect(expectStatus(locations, 200)).toMatchObject([{ name: 'site', subnet_count: 1, vlan_count: 1 }]);
  });
});

describe('subnet plan limit', () => {
  it('allows 100 subnets on the free plan through a session and refuses the 101st (402)', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    for (let i = 0; i < 100; i++) await create(`10.0.${i}.0/24`, {}, free.web);
    const error = await refusedCreate({ network: '10.0.100.0/24' }, 402, free.web);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('100 subnets') });
  });

  it('honours an enterprise override at its boundary', async () => {
    const enterprise = await t.server.newOrg({ plan: 'enterprise', limits: { subnets: 3 } });
    for (const n of [1, 2, 3]) await create(`10.${n}.0.0/16`, {}, enterprise.api);
    const error = await refusedCreate({ network: '10.4.0.0/16' }, 402, enterprise.api);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('3 subnets') });
  });

  it.each(['pro', 'teams'] as const)('sets no subnet limit on the %s plan: a 101st subnet is created', async (plan) => {
    const org = await t.server.newOrg({ plan });
    // The free plan's 100, seeded in SQL (disjoint /24s in the global space, so no parent to set).
    await t.server.database.db.execute(sql`
      INSERT INTO subnets (org_id, network)
      SELECT ${org.orgId}, ('10.0.' || g || '.0/24')::cidr FROM generate_series(0, 99) g`);
    await create('10.0.100.0/24', {}, org.api);
    expect(await list(org.api)).toHaveLength(101);
  });
});

describe('utilization', () => {
  it('counts the addresses of the subnet and its tracked descendants', async () => {
    const own = await t.server.newOrg();
    const parent = await create('10.0.0.0/24', {}, own.api);
    const child = await create('10.0.0.0/26', {}, own.api);
    for (const ip of ['10.0.0.100', '10.0.0.101']) await address(parent.id, ip, own.api);
    for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3']) await address(child.id, ip, own.api);
    const figures = (s: Pick<Subnet, 'used_count' | 'total_count' | 'utilization'>) => [
      s.used_count,
      s.total_count,
      s.utilization,
    ];
    expect((await list(own.api)).map(figures)).toEqual([
      [5, 254, 5 / 254],
      [3, 62, 3 / 62],
    ]);
    expect(figures(await get(parent.id, own.api))).toEqual([5, 254, 5 / 254]);
  });

  it('leaves an untracked child out of its ancestors and omits its figures in lists', async () => {
    const own = await t.server.newOrg();
    const parent = await create('10.0.0.0/24', {}, own.api);
    const hidden = await create('10.0.0.0/26', { tracked: false }, own.api);
    const deeper = await create('10.0.0.0/28', {}, own.api);
    await address(parent.id, '10.0.0.200', own.api);
    await address(hidden.id, '10.0.0.20', own.api);
    await address(deeper.id, '10.0.0.5', own.api);
    const byId = new Map((await list(own.api)).map((s) => [s.id, s]));
    expect(byId.get(parent.id)).toMatchObject({ used_count: 1, total_count: 254 });
    expect(byId.get(hidden.id)).not.toHaveProperty('used_count');
    expect(byId.get(hidden.id)).not.toHaveProperty('total_count');
    expect(byId.get(deeper.id)).toMatchObject({ used_count: 1, total_count: 14 });
    const usage = expectStatus(await own.api.call('getSubnetUsage', { params: { id: hidden.id } }), 200);
    expect(usage).toMatchObject({ used: 2, total: 62 });
    const usageOfParent = expectStatus(await own.api.call('getSubnetUsage', { params: { id: parent.id } }), 200);
    expect(usageOfParent.used).toBe(1);
  });

  it.each([
    ['10.80.0.0/30', false, 2],
    ['10.80.0.4/30', true, 4],
    ['10.80.0.8/31', false, 2],
    ['10.80.0.10/32', false, 1],
    ['2001:db8:80::/120', false, 256],
    ['2001:db8:81::/127', false, 2],
  ])('counts %s (pool %s) as %i usable addresses', async (network, is_pool, total) => {
    expect((await create(network, { is_pool })).total_count).toBe(total);
  });

  it('answers utilization as used over total', async () => {
    const subnet = await create('10.81.0.0/30');
    await address(subnet.id, '10.81.0.1');
    expect(await get(subnet.id)).toMatchObject({ used_count: 1, total_count: 2, utilization: 0.5 });
  });
});
