/**
 * The activity log records every change made through the API: one entry per change, written with it,
 * `changes` as {field: [old, new]}. Reading the log (filters, paging, export, retention) is in
 * activity-log.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { OperationId } from '../../contract/routes';
import type { ApiClient } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { type DeclaredStatus, expectStatus } from '../support/observed';
import type { TestOrg } from '../support/server';

const t = useTestServer({}, false);

type Body = Record<string, unknown>;

const log = async (api: ApiClient, query: Record<string, string | number> = {}) =>
  expectStatus(await api.call('listActivity', { query: { limit: 500, ...query } }), 200);
/** The entries oldest first, as (action, resource_type, resource_id, changes). */
const history = async (api: ApiClient) =>
  (await log(api)).entries.reverse().map((e) => [e.action, e.resource_type, e.resource_id, e.changes]);
const ok = async <Id extends OperationId, S extends DeclaredStatus<Id>>(
  api: ApiClient,
  operationId: Id,
  status: S,
  options: Body = {},
) => expectStatus(await api.call(operationId, options), status);
const address = async (api: ApiClient, subnetId: string, ip: string) =>
  ok(api, 'createAddress', 201, { params: { id: subnetId }, body: { ip } });

/** Each test its own organisation. */
const fresh = (): Promise<TestOrg> => t.server.newOrg();

describe('entries for folders, VLANs, VRFs and locations', () => {
  it('records a folder’s create, update and delete with their changes', async () => {
    const { api } = await fresh();
    const folder = await ok(api, 'createFolder', 201, { body: { name: 'DC', description: 'main' } });
    await ok(api, 'updateFolder', 200, { params: { id: folder.id }, body: { name: 'DC-1', description: 'main' } });
    await ok(api, 'deleteFolder', 204, { params: { id: folder.id } });
    expect(await history(api)).toEqual([
      ['create', 'folder', folder.id, { name: [null, 'DC'], description: [null, 'main'], sort_order: [null, 0] }],
      ['update', 'folder', folder.id, { name: ['DC', 'DC-1'] }],
      ['delete', 'folder', folder.id, { name: ['DC-1', null], description: ['main', null], sort_order: [0, null] }],
    ]);
  });

  it('records a VLAN’s create, update and delete with their changes', async () => {
    const { api } = await fresh();
    const location = await ok(api, 'createLocation', 201, { body: { name: 'B1' } });
    const vlan = await ok(api, 'createVlan', 201, { body: { vlan_number: 120, location_id: location.id } });
    await ok(api, 'updateVlan', 200, { params: { id: vlan.id }, body: { name: 'servers', location_id: null } });
    await ok(api, 'deleteVlan', 204, { params: { id: vlan.id } });
    expect((await history(api)).slice(1)).toEqual([
      ['create', 'vlan', vlan.id, { vlan_number: [null, 120], location_id: [null, location.id] }],
      ['update', 'vlan', vlan.id, { name: ['', 'servers'], location_id: [location.id, null] }],
      ['delete', 'vlan', vlan.id, { vlan_number: [120, null], name: ['servers', null] }],
    ]);
  });

  it('records a VRF’s create, update and delete with their changes', async () => {
    const { api } = await fresh();
    const vrf = await ok(api, 'createVrf', 201, { body: { name: 'blue', rd: '65000:1' } });
    await ok(api, 'updateVrf', 200, { params: { id: vrf.id }, body: { rd: '65000:2' } });
    await ok(api, 'deleteVrf', 204, { params: { id: vrf.id } });
    expect(await history(api)).toEqual([
      ['create', 'vrf', vrf.id, { name: [null, 'blue'], rd: [null, '65000:1'] }],
      ['update', 'vrf', vrf.id, { rd: ['65000:1', '65000:2'] }],
      ['delete', 'vrf', vrf.id, { name: ['blue', null], rd: ['65000:2', null] }],
    ]);
  });

  it('records a location’s create, update and delete with their changes', async () => {
    const { api } = await fresh();
    const location = await ok(api, 'createLocation', 201, { body: { name: 'B1', address: '1 Main St' } });
    await ok(api, 'updateLocation', 200, { params: { id: location.id }, body: { address: '2 Main St' } });
    await ok(api, 'deleteLocation', 204, { params: { id: location.id } });
    expect(await history(api)).toEqual([
      ['create', 'location', location.id, { name: [null, 'B1'], address: [null, '1 Main St'] }],
      ['update', 'location', location.id, { address: ['1 Main St', '2 Main St'] }],
      ['delete', 'location', location.id, { name: ['B1', null], address: ['2 Main St', null] }],
    ]);
  });

  it('records no entry for a PATCH that changes nothing', async () => {
    const { api } = await fresh();
    const folder = await ok(api, 'createFolder', 201, { body: { name: 'same' } });
    await ok(api, 'updateFolder', 200, { params: { id: folder.id }, body: { name: 'same' } });
    expect((await log(api)).entries.map((e) => e.action)).toEqual(['create']);
  });

  it('records nothing for a change that fails', async () => {
    const { api } = await fresh();
    await ok(api, 'createFolder', 201, { body: { name: 'taken' } });
    const other = await ok(api, 'createFolder', 201, { body: { name: 'other' } });
    await ok(api, 'updateFolder', 400, { params: { id: other.id }, body: { name: 'taken' } });
    await ok(api, 'createFolder', 400, { body: { name: 'taken' } });
    expect((await log(api)).total).toBe(2);
  });

  it('names the user who made the change', async () => {
    const { api, userId } = await fresh();
    await ok(api, 'createFolder', 201, { body: { name: 'mine' } });
    expect((await log(api)).entries[0]?.user_id).toBe(userId);
  });
});

describe('entries for subnets', () => {
  it('records a subnet’s create with each field that holds a value', async () => {
    const { api } = await fresh();
    const created = await createSubnet(api, '10.1.0.0/24', { name: 'lan', gateway: '10.1.0.1' });
    expect(await history(api)).toEqual([
      [
        'create',
        'subnet',
        created.id,
        {
          network: [null, '10.1.0.0/24'],
          name: [null, 'lan'],
          gateway: [null, '10.1.0.1'],
          is_pool: [null, false],
          scan_enabled: [null, false],
          tracked: [null, true],
        },
      ],
    ]);
  });

  it('records a subnet’s update with only the changed fields, and a VRF made by name', async () => {
    const { api } = await fresh();
    const created = await createSubnet(api, '10.1.0.0/24', { name: 'lan' });
    await ok(api, 'updateSubnet', 200, {
      params: { id: created.id },
      body: { name: 'lan', vrf: 'red', tracked: false },
    });
    const [, vrfEntry, update] = await history(api);
    expect(vrfEntry).toEqual(['create', 'vrf', expect.any(String), { name: [null, 'red'] }]);
    expect(update).toEqual(['update', 'subnet', created.id, { vrf_id: [null, vrfEntry?.[2]], tracked: [true, false] }]);
  });

  it('records a subnet’s create with its addresses in the form the subnet keeps them', async () => {
    const { api } = await fresh();
    const created = await createSubnet(api, '2001:db8::/64', { gateway: '2001:DB8:0::1', dns_primary: '2001:DB8::53' });
    const [entry] = await history(api);
    expect(entry?.[3]).toMatchObject({ gateway: [null, created.gateway], dns_primary: [null, created.dns_primary] });
    expect(created).toMatchObject({ gateway: '2001:db8::1', dns_primary: '2001:db8::53' });
  });

  it('records a VLAN made by number in a subnet update', async () => {
    const { api } = await fresh();
    const created = await createSubnet(api, '10.1.0.0/24');
    await ok(api, 'updateSubnet', 200, { params: { id: created.id }, body: { vlan: '42' } });
    const [, vlanEntry, update] = await history(api);
    expect(vlanEntry).toEqual(['create', 'vlan', expect.any(String), { vlan_number: [null, 42] }]);
    expect(update).toEqual(['update', 'subnet', created.id, { vlan_id: [null, vlanEntry?.[2]] }]);
  });

  it('records one delete per subnet of a cascade, with the addresses each removed, none per address', async () => {
    const { api } = await fresh();
    const top = await createSubnet(api, '10.2.0.0/16', { name: 'top' });
    const child = await createSubnet(api, '10.2.1.0/24');
    const grandchild = await createSubnet(api, '10.2.1.0/26');
    for (const ip of ['10.2.0.5', '10.2.0.6']) await address(api, top.id, ip);
    await address(api, grandchild.id, '10.2.1.5');
    const before = (await log(api)).total;
    await ok(api, 'deleteSubnet', 204, { params: { id: top.id } });
    const { entries, total } = await log(api);
    expect(total).toBe(before + 3);
    const deletes = entries.slice(0, 3).map((e) => [e.action, e.resource_id, e.changes.addresses_removed]);
    expect(deletes).toEqual(
      expect.arrayContaining([
        ['delete', top.id, [2, 0]],
        ['delete', child.id, [0, 0]],
        ['delete', grandchild.id, [1, 0]],
      ]),
    );
    expect(entries.find((e) => e.resource_id === top.id && e.action === 'delete')?.changes).toMatchObject({
      network: ['10.2.0.0/16', null],
      name: ['top', null],
    });
  });

  it('records a split as an entry on the original with the parts, then a create of each part', async () => {
    const { api } = await fresh();
    const original = await createSubnet(api, '10.3.0.0/24', { name: 'lab' });
    const parts = await ok(api, 'splitSubnet', 200, { params: { id: original.id }, body: { parts: 4 } });
    const entries = (await log(api)).entries.reverse();
    expect(entries.map((e) => [e.action, e.resource_id])).toEqual([
      ['create', original.id],
      ['split', original.id],
      ...parts.map((part) => ['create', part.id]),
    ]);
    expect(entries[2]?.changes).toEqual({
      network: [null, '10.3.0.0/26'],
      name: [null, 'lab'],
      is_pool: [null, false],
      scan_enabled: [null, false],
      tracked: [null, true],
    });
    expect(entries[1]?.changes).toEqual({
      network: ['10.3.0.0/24', null],
      parts: [null, ['10.3.0.0/26', '10.3.0.64/26', '10.3.0.128/26', '10.3.0.192/26']],
      addresses_removed: [0, 0],
    });
  });
});

describe('entries for addresses', () => {
  it('records an address’s create, update and delete with their changes', async () => {
    const { api } = await fresh();
    const parent = await createSubnet(api, '10.4.0.0/24');
    const created = await address(api, parent.id, '10.4.0.10');
    const params = { id: created.id };
    await ok(api, 'updateAddress', 200, { params, body: { hostname: 'web1', status: 'assigned' } });
    await ok(api, 'deleteAddress', 204, { params });
    const base = { subnet_id: parent.id, ip: '10.4.0.10', status: 'assigned' };
    expect((await history(api)).slice(1)).toEqual([
      [
        'create',
        'address',
        created.id,
        { subnet_id: [null, base.subnet_id], ip: [null, base.ip], status: [null, 'assigned'] },
      ],
      ['update', 'address', created.id, { hostname: ['', 'web1'] }],
      [
        'delete',
        'address',
        created.id,
        {
          subnet_id: [base.subnet_id, null],
          ip: [base.ip, null],
          hostname: ['web1', null],
          status: ['assigned', null],
        },
      ],
    ]);
  });

  it('records one batch_create entry per address created, none for ips already assigned', async () => {
    const { api } = await fresh();
    const parent = await createSubnet(api, '10.5.0.0/24');
    await address(api, parent.id, '10.5.0.1');
    const ips = ['10.5.0.1', '10.5.0.2', '10.5.0.3'];
    expect(await ok(api, 'batchCreateAddresses', 200, { params: { id: parent.id }, body: { ips } })).toEqual({
      created: 2,
    });
    const batch = (await log(api)).entries.filter((e) => e.action === 'batch_create');
    // `changes` is free-form in the contract; the log writes each field as [old, new].
    expect(batch.map((e) => (e.changes.ip as [unknown, unknown])[1]).sort()).toEqual(['10.5.0.2', '10.5.0.3']);
    expect(batch[0]).toMatchObject({ resource_type: 'address', changes: { status: [null, 'reserved'] } });
    expect(new Set(batch.map((e) => e.resource_id)).size).toBe(2);
  });

  it('records one batch_update entry per address whose values changed', async () => {
    const { api } = await fresh();
    const parent = await createSubnet(api, '10.6.0.0/24');
    const a = await address(api, parent.id, '10.6.0.1');
    const b = await address(api, parent.id, '10.6.0.2');
    await ok(api, 'updateAddress', 200, { params: { id: b.id }, body: { status: 'reserved' } });
    const body = { ids: [a.id, b.id], status: 'reserved' };
    expect(await ok(api, 'batchUpdateAddresses', 200, { body })).toEqual({ updated: 2 });
    const batch = (await log(api)).entries.filter((e) => e.action === 'batch_update');
    expect(batch.map((e) => [e.resource_id, e.changes])).toEqual([[a.id, { status: ['assigned', 'reserved'] }]]);
  });

  it('records one batch_delete entry per address deleted', async () => {
    const { api } = await fresh();
    const parent = await createSubnet(api, '10.7.0.0/24');
    const a = await address(api, parent.id, '10.7.0.1');
    const b = await address(api, parent.id, '10.7.0.2');
    expect(await ok(api, 'batchDeleteAddresses', 200, { body: { ids: [a.id, b.id] } })).toEqual({ deleted: 2 });
    const batch = (await log(api)).entries.filter((e) => e.action === 'batch_delete');
    expect(batch.map((e) => e.resource_id).sort()).toEqual([a.id, b.id].sort());
    expect(batch.find((e) => e.resource_id === a.id)?.changes).toMatchObject({ ip: ['10.7.0.1', null] });
  });
});

describe('isolation', () => {
  it('never shows another organisation’s entries, filter values or export rows', async () => {
    const mine = await fresh();
    const theirs = await t.server.newOrg();
    await ok(theirs.api, 'createFolder', 201, { body: { name: 'secret' } });
    expect(await log(mine.api)).toEqual({ entries: [], total: 0, users: {} });
    expect(await ok(mine.api, 'listActivityFilters', 200)).toEqual({ actions: [], resource_types: [] });
    const csv = await ok(mine.api, 'exportActivity', 200);
    expect(csv.trim().split('\n')).toHaveLength(1);
  });

  it('filtering by another organisation’s user finds nothing', async () => {
    const mine = await fresh();
    const theirs = await t.server.newOrg();
    await ok(theirs.api, 'createFolder', 201, { body: { name: 'secret' } });
    expect((await log(mine.api, { user_id: theirs.userId })).total).toBe(0);
  });
});
