import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { createSubnet as createSubnetWith, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import type { TestServer } from '../support/server';

const t = useTestServer();

type Address = { id: string; subnet_id: string; ip: string; status: string; owner: string; mac_address: string };
type ApiError = { error: string; code: string };
type Body = Record<string, unknown>;

/** A subnet (the 201 may wrap it in `{subnet, warnings}` when it overlaps other VRFs). */
/** A subnet of the file's organisation unless another client is given. */
const createSubnet = (network: string, api: ApiClient = t.org.api, extra: Body = {}) =>
  createSubnetWith(api, network, extra);
/** A new organisation (pro unless told) with one subnet. */
const fresh = async (network = '10.0.0.0/24', options: Parameters<TestServer['newOrg']>[0] = {}) => {
  const own = await t.server.newOrg(options);
  const api = options.plan === 'free' ? own.web : own.api;
  return { api, subnet: await createSubnet(network, api) };
};
const create = (subnetId: string, body: Body, api: ApiClient = t.org.api) =>
  api.call('createAddress', { params: { id: subnetId }, body });
const created = async (subnetId: string, body: Body, api: ApiClient = t.org.api) =>
  expectStatus<Address>(await create(subnetId, body, api), 201);
const refused = async (subnetId: string, body: Body, api: ApiClient = t.org.api) =>
  expectStatus<ApiError>(await create(subnetId, body, api), 400);
const batchCreate = (subnetId: string, body: Body, api: ApiClient = t.org.api) =>
  api.call('batchCreateAddresses', { params: { id: subnetId }, body });
/** Batch-creates `ips`, expecting `status`; answers the body. */
const batched = async (subnetId: string, ips: string[], api: ApiClient, status = 200, extra: Body = {}) =>
  expectStatus(await batchCreate(subnetId, { ips, ...extra }, api), status);
const list = async (subnetId: string, api: ApiClient = t.org.api, query: Record<string, number> = {}) => {
  const response = await api.call('listSubnetAddresses', { params: { id: subnetId }, query });
  return { items: expectStatus<Address[]>(response, 200), total: response.headers.get('x-total-count') };
};
const getAddress = (id: string, api: ApiClient = t.org.api) => api.call('getAddress', { params: { id } });
const patch = (id: string, body: Body, api: ApiClient = t.org.api) =>
  api.call('updateAddress', { params: { id }, body });
/** A new organisation with 10.0.0.0/24 in the global space and again in a VRF. */
const twoSpaces = async () => {
  const { subnet, api } = await fresh();
  const vrf = expectStatus(await api.call('createVrf', { body: { name: 'blue' } }), 201);
  return { subnet, api, inVrf: await createSubnet('10.0.0.0/24', api, { vrf_id: vrf.id }) };
};
/** `count` consecutive IPv4 addresses from `first` (no octet carry beyond the third octet). */
const range = (first: string, count: number) => {
  const [a, b, c, d] = first.split('.').map(Number);
  return Array.from({ length: count }, (_, i) => `${a}.${b}.${c + Math.floor((d + i) / 256)}.${(d + i) % 256}`);
};
/** A subnet holding `count` addresses (a /21 from 10.0.0.1), with their ids. */
const populated = async (count: number, api: ApiClient) => {
  const subnet = await createSubnet('10.0.0.0/21', api);
  const ips = range('10.0.0.1', count);
  for (let i = 0; i < count; i += 500) await batched(subnet.id, ips.slice(i, i + 500), api);
  return { subnet, ids: (await list(subnet.id, api)).items.map((a) => a.id) };
};

describe('create address', () => {
  it('creates with status assigned and empty optional fields by default', async () => {
    const { subnet, api } = await fresh();
    const address = await created(subnet.id, { ip: '10.0.0.10' }, api);
    const empty = { hostname: '', mac_address: '', description: '', owner: '' };
    expect(address).toMatchObject({ subnet_id: subnet.id, ip: '10.0.0.10', status: 'assigned', ...empty });
  });

  it.each(['assigned', 'reserved', 'd-dhcp', 'm-dhcp', 'gateway'])('accepts status %s', async (status) => {
    const { subnet, api } = await fresh();
    expect((await created(subnet.id, { ip: '10.0.0.1', status }, api)).status).toBe(status);
  });

  it.each(['AA-BB-CC-DD-EE-FF', 'aabbccddeeff', 'AA:bb:CC:dd:EE:ff'])('normalises MAC %s', async (mac) => {
    const { subnet, api } = await fresh();
    const address = await created(subnet.id, { ip: '10.0.0.2', mac_address: mac }, api);
    expect(address.mac_address).toBe('aa:bb:cc:dd:ee:ff');
  });

  it.each(['aa:bb:cc:dd:ee', 'aa:bb-cc:dd:ee:ff', 'gg:bb:cc:dd:ee:ff'])('refuses MAC %s naming it', async (mac) => {
    const { subnet, api } = await fresh();
    expect((await refused(subnet.id, { ip: '10.0.0.2', mac_address: mac }, api)).error).toMatch(/^mac_address: /);
  });

  it('refuses an ip outside the subnet, naming ip', async () => {
    const { subnet, api } = await fresh();
    const error = await refused(subnet.id, { ip: '10.0.1.5' }, api);
    expect(error).toEqual({ code: 'validation', error: 'ip: 10.0.1.5 is outside 10.0.0.0/24' });
  });

  it.each([
    ['an IPv6 address in an IPv4 subnet', '10.0.0.0/24', '2001:db8::1'],
    ['an IPv6 address with a zone id (400, not 500)', 'fe80::/64', 'fe80::1%eth0'],
    ['a malformed ip', '10.0.0.0/24', '10.0.0.256'],
  ])('refuses %s, naming ip', async (_, network, ip) => {
    const { subnet, api } = await fresh(network);
    expect((await refused(subnet.id, { ip }, api)).error).toMatch(/^ip: /);
  });

  it('returns IPv6 addresses in canonical form', async () => {
    const { subnet, api } = await fresh('2001:db8::/64');
    expect((await created(subnet.id, { ip: '2001:DB8:0:0::1' }, api)).ip).toBe('2001:db8::1');
  });

  it('refuses the same ip twice in one space (400 duplicate), whatever its spelling', async () => {
    const { subnet, api } = await fresh('2001:db8::/64');
    await created(subnet.id, { ip: '2001:db8::1' }, api);
    const error = await refused(subnet.id, { ip: '2001:DB8:0::1' }, api);
    expect(error).toEqual({ code: 'duplicate', error: 'ip: 2001:db8::1 is already assigned' });
  });

  it('accepts the same ip in two VRFs', async () => {
    const { subnet, inVrf, api } = await twoSpaces();
    const a = await created(subnet.id, { ip: '10.0.0.7' }, api);
    const b = await created(inVrf.id, { ip: '10.0.0.7' }, api);
    expect([a.subnet_id, b.subnet_id]).toEqual([subnet.id, inVrf.id]);
  });

  it('batch-create counts an ip assigned in another VRF as free', async () => {
    const { subnet, inVrf, api } = await twoSpaces();
    await created(subnet.id, { ip: '10.0.0.7' }, api);
    expect(await batched(inVrf.id, ['10.0.0.7'], api)).toEqual({ created: 1 });
  });

  it('refuses an ip of a child subnet in the parent, naming the child', async () => {
    const { subnet: parent, api } = await fresh('10.0.0.0/16');
    const child = await createSubnet('10.0.5.0/24', api);
    const error = await refused(parent.id, { ip: '10.0.5.9' }, api);
    expect(error.error).toContain('10.0.5.0/24');
    expect(error.error).toContain(child.id);
    expect((await list(parent.id, api)).total).toBe('0');
  });

  it.each(['10.0.0.0/24 10.0.0.0', '10.0.0.0/24 10.0.0.255', '10.0.0.0/30 10.0.0.0', '10.0.0.0/30 10.0.0.3'])(
    'refuses network/broadcast in a non-pool subnet: %s',
    async (both) => {
      const [network, ip] = both.split(' ');
      const { subnet, api } = await fresh(network);
      expect((await refused(subnet.id, { ip }, api)).error).toMatch(/^ip: .*network or broadcast/);
    },
  );

  it.each([
    ...['pool 10.0.0.0/24 10.0.0.0', 'pool 10.0.0.0/24 10.0.0.255', 'plain 10.0.0.0/31 10.0.0.0'],
    ...['plain 10.0.0.0/31 10.0.0.1', 'plain 10.0.0.7/32 10.0.0.7', 'plain 2001:db8::/64 2001:db8::'],
    'plain 2001:db8::/64 2001:db8::ffff:ffff:ffff:ffff',
  ])('allows network/broadcast where usable: %s', async (all) => {
    const [kind, network, ip] = all.split(' ');
    const own = await t.server.newOrg();
    const subnet = await createSubnet(network, own.api, { is_pool: kind === 'pool' });
    expect((await created(subnet.id, { ip }, own.api)).ip).toBe(ip);
  });
});

describe('list addresses', () => {
  it('orders by ip numerically and sends X-Total-Count', async () => {
    const { subnet, api } = await fresh();
    for (const ip of ['10.0.0.10', '10.0.0.2', '10.0.0.100', '10.0.0.9']) await created(subnet.id, { ip }, api);
    const { items, total } = await list(subnet.id, api);
    expect(items.map((a) => a.ip)).toEqual(['10.0.0.2', '10.0.0.9', '10.0.0.10', '10.0.0.100']);
    expect(total).toBe('4');
  });

  it('orders IPv6 addresses numerically', async () => {
    const { subnet, api } = await fresh('2001:db8::/64');
    await batched(subnet.id, ['2001:db8::10', '2001:db8::2', '2001:db8::a'], api);
    expect((await list(subnet.id, api)).items.map((a) => a.ip)).toEqual(['2001:db8::2', '2001:db8::a', '2001:db8::10']);
  });

  it('pages with limit and offset; the total counts every address', async () => {
    const { subnet, api } = await fresh();
    await batched(subnet.id, range('10.0.0.1', 5), api);
    const { items, total } = await list(subnet.id, api, { limit: 2, offset: 2 });
    expect(items.map((a) => a.ip)).toEqual(['10.0.0.3', '10.0.0.4']);
    expect(total).toBe('5');
    expect((await list(subnet.id, api, { limit: 2, offset: 4 })).items.map((a) => a.ip)).toEqual(['10.0.0.5']);
  });

  it('returns 1,000 by default and accepts limit 1000', async () => {
    const own = await t.server.newOrg();
    const { subnet } = await populated(1001, own.api);
    const all = await list(subnet.id, own.api);
    expect([all.items.length, all.total]).toEqual([1000, '1001']);
    expect((await list(subnet.id, own.api, { limit: 1000, offset: 1000 })).items.map((a) => a.ip)).toEqual([
      '10.0.3.233',
    ]);
  });

  it('answers an empty page for an offset past the end', async () => {
    const { subnet, api } = await fresh();
    await created(subnet.id, { ip: '10.0.0.1' }, api);
    for (const offset of [1, 1_000_000_000]) {
      expect(await list(subnet.id, api, { offset })).toEqual({ items: [], total: '1' });
    }
  });

  it('refuses an offset past 1,000,000,000 (400 naming offset, not a 500)', async () => {
    const { subnet, api } = await fresh();
    const response = await api.call('listSubnetAddresses', { params: { id: subnet.id }, query: { offset: 1e20 } });
    expect(expectStatus<ApiError>(response, 400).error).toMatch(/^offset: /);
  });

  it.each([0, 1001])('refuses limit %i, naming limit', async (limit) => {
    const { subnet, api } = await fresh();
    const response = await api.call('listSubnetAddresses', { params: { id: subnet.id }, query: { limit } });
    expect(expectStatus<ApiError>(response, 400).error).toMatch(/^limit: /);
  });

  it('answers 404 for another organisation’s subnet on list, create and batch-create', async () => {
    const { subnet: theirs } = await fresh();
    const params = { id: theirs.id };
    expectStatus(await t.org.api.call('listSubnetAddresses', { params }), 404);
    expectStatus(await create(theirs.id, { ip: '10.0.0.5' }), 404);
    expectStatus(await batchCreate(theirs.id, { ips: ['10.0.0.5'] }), 404);
  });
});

describe('get, patch and delete an address', () => {
  it('PATCH changes only the fields given; GET shows the change', async () => {
    const { subnet, api } = await fresh();
    const body = { ip: '10.0.0.4', hostname: 'h', description: 'd', owner: 'o', mac_address: 'aabbccddeeff' };
    const address = await created(subnet.id, body, api);
    const updated = expectStatus(
      await patch(address.id, { status: 'reserved', mac_address: 'AA-BB-CC-00-11-22' }, api),
      200,
    );
    const { updated_at } = updated;
    expect(updated).toEqual({ ...address, status: 'reserved', mac_address: 'aa:bb:cc:00:11:22', updated_at });
    expect(expectStatus(await getAddress(address.id, api), 200)).toEqual(updated);
  });

  it('PATCH refuses a body with ip (immutable)', async () => {
    const { subnet, api } = await fresh();
    const address = await created(subnet.id, { ip: '10.0.0.4' }, api);
    expect(expectStatus<ApiError>(await patch(address.id, { ip: '10.0.0.5' }, api), 400).error).toContain("'ip'");
    expect(expectStatus<Address>(await getAddress(address.id, api), 200).ip).toBe('10.0.0.4');
  });

  it('PATCH refuses a status outside the enum, naming status', async () => {
    const { subnet, api } = await fresh();
    const address = await created(subnet.id, { ip: '10.0.0.4' }, api);
    expect(expectStatus<ApiError>(await patch(address.id, { status: 'bogus' }, api), 400).error).toMatch(/^status: /);
  });

  it('deletes an address (204), then it is gone (404)', async () => {
    const { subnet, api } = await fresh();
    const address = await created(subnet.id, { ip: '10.0.0.4' }, api);
    expectStatus(await api.call('deleteAddress', { params: { id: address.id } }), 204);
    expectStatus(await getAddress(address.id, api), 404);
    expectStatus(await api.call('deleteAddress', { params: { id: address.id } }), 404);
  });

  it('answers 404 for another organisation’s address on get, patch and delete', async () => {
    const { subnet, api } = await fresh();
    const theirs = await created(subnet.id, { ip: '10.0.0.4' }, api);
    expectStatus(await getAddress(theirs.id), 404);
    expectStatus(await patch(theirs.id, { owner: 'me' }), 404);
    expectStatus(await t.org.api.call('deleteAddress', { params: { id: theirs.id } }), 404);
    expect(expectStatus(await getAddress(theirs.id, api), 200)).toEqual(theirs);
  });

  it('moves to a child subnet created around it', async () => {
    const { subnet: parent, api } = await fresh('10.0.0.0/16');
    const address = await created(parent.id, { ip: '10.0.7.7' }, api);
    const child = await createSubnet('10.0.7.0/24', api);
    expect(expectStatus<Address>(await getAddress(address.id, api), 200).subnet_id).toBe(child.id);
  });
});

describe('batch-create addresses', () => {
  it('creates with status reserved by default and answers the count', async () => {
    const { subnet, api } = await fresh();
    const result = await batched(subnet.id, ['10.0.0.1', '10.0.0.2'], api);
    expect(result).toEqual({ created: 2 });
    const items = (await list(subnet.id, api)).items.map((a) => `${a.ip} ${a.status}`);
    expect(items).toEqual(['10.0.0.1 reserved', '10.0.0.2 reserved']);
  });

  it('creates with the given status', async () => {
    const { subnet, api } = await fresh();
    await batched(subnet.id, ['10.0.0.1'], api, 200, { status: 'd-dhcp' });
    expect((await list(subnet.id, api)).items[0].status).toBe('d-dhcp');
  });

  it('accepts 500 ips and refuses 501, naming ips', async () => {
    const { subnet, api } = await fresh('10.0.0.0/22');
    const ips = range('10.0.0.1', 501);
    const error = await batched(subnet.id, ips, api, 400);
    expect(error.error).toMatch(/^ips: /);
    expect(await batched(subnet.id, ips.slice(0, 500), api)).toEqual({ created: 500 });
  });

  it.each([
    ['outside the subnet', '10.0.1.1', /10\.0\.1\.1 is outside/],
    ['the network address', '10.0.0.0', /10\.0\.0\.0 is the network/],
    ['not an ip', '10.0.0.999', /^ips\.1: /],
    ['of the other family', '2001:db8::1', /2001:db8::1/],
  ])('refuses the whole batch when one ip is %s, naming it', async (_, bad, message) => {
    const { subnet, api } = await fresh();
    const error = await batched(subnet.id, ['10.0.0.1', bad, '10.0.0.2'], api, 400);
    expect(error.error).toMatch(message);
    expect((await list(subnet.id, api)).total).toBe('0');
  });

  it('refuses the whole batch when one ip lies in a child subnet, naming the child', async () => {
    const { subnet, api } = await fresh('10.0.0.0/16');
    await createSubnet('10.0.9.0/24', api);
    const error = await batched(subnet.id, ['10.0.1.1', '10.0.9.1'], api, 400);
    expect(error.error).toContain('10.0.9.0/24');
    expect((await list(subnet.id, api)).total).toBe('0');
  });

  it('skips ips already assigned and leaves them unchanged', async () => {
    const { subnet, api } = await fresh();
    const existing = await created(subnet.id, { ip: '10.0.0.5', owner: 'kept' }, api);
    const result = await batched(subnet.id, ['10.0.0.5', '10.0.0.6', '10.0.0.7'], api);
    expect(result).toEqual({ created: 2 });
    expect(expectStatus(await getAddress(existing.id, api), 200)).toEqual(existing);
  });

  it('counts an ip given twice in one request (in any spelling) once', async () => {
    const { subnet, api } = await fresh('2001:db8::/64');
    const ips = ['2001:db8::5', '2001:DB8:0::5', '2001:db8::5', '2001:db8::6'];
    expect(await batched(subnet.id, ips, api)).toEqual({ created: 2 });
    expect((await list(subnet.id, api)).total).toBe('2');
  });
});

describe('batch-update and batch-delete addresses', () => {
  const seed = async () => {
    const { subnet, api } = await fresh();
    await batched(subnet.id, range('10.0.0.1', 3), api);
    return { subnet, api, ids: (await list(subnet.id, api)).items.map((a) => a.id) };
  };
  const batchUpdate = (body: Body, api: ApiClient) => api.call('batchUpdateAddresses', { body });
  const batchDelete = (ids: string[], api: ApiClient) => api.call('batchDeleteAddresses', { body: { ids } });

  it('batch-update sets status and owner on the given ids only', async () => {
    const { subnet, api, ids } = await seed();
    const result = expectStatus(await batchUpdate({ ids: ids.slice(0, 2), status: 'gateway', owner: 'ops' }, api), 200);
    expect(result).toEqual({ updated: 2 });
    const items = (await list(subnet.id, api)).items.map((a) => `${a.status}/${a.owner}`);
    expect(items).toEqual(['gateway/ops', 'gateway/ops', 'reserved/']);
  });

  it('batch-update changes only the given field', async () => {
    const { subnet, api, ids } = await seed();
    expectStatus(await batchUpdate({ ids, owner: 'only-owner' }, api), 200);
    const pairs = (await list(subnet.id, api)).items.map((a) => [a.status, a.owner]);
    expect(pairs).toEqual(Array(3).fill(['reserved', 'only-owner']));
  });

  it('batch-update refuses a body with neither status nor owner', async () => {
    const { api, ids } = await seed();
    expect(expectStatus<ApiError>(await batchUpdate({ ids }, api), 400).error).toMatch(/status/);
  });

  it('batch-update accepts 500 ids and refuses 501, naming ids', async () => {
    const own = await t.server.newOrg();
    const { ids } = await populated(500, own.api);
    const error = expectStatus<ApiError>(await batchUpdate({ ids: [...ids, randomUUID()], owner: 'x' }, own.api), 400);
    expect(error.error).toMatch(/^ids: /);
    expect(expectStatus(await batchUpdate({ ids, owner: 'x' }, own.api), 200)).toEqual({ updated: 500 });
  });

  it('batch-update neither changes nor counts another organisation’s ids', async () => {
    const mine = await seed();
    const theirs = await seed();
    const result = expectStatus(await batchUpdate({ ids: [...mine.ids, ...theirs.ids], owner: 'me' }, mine.api), 200);
    expect(result).toEqual({ updated: 3 });
    expect((await list(theirs.subnet.id, theirs.api)).items.map((a) => a.owner)).toEqual(['', '', '']);
  });

  it('batch-delete deletes the given ids and answers the count', async () => {
    const { subnet, api, ids } = await seed();
    expect(expectStatus(await batchDelete(ids.slice(1), api), 200)).toEqual({ deleted: 2 });
    expect((await list(subnet.id, api)).items.map((a) => a.id)).toEqual([ids[0]]);
  });

  it('batch-delete accepts 500 ids and refuses 501, naming ids', async () => {
    const own = await t.server.newOrg();
    const { subnet, ids } = await populated(500, own.api);
    expect(expectStatus<ApiError>(await batchDelete([...ids, randomUUID()], own.api), 400).error).toMatch(/^ids: /);
    expect(expectStatus(await batchDelete(ids, own.api), 200)).toEqual({ deleted: 500 });
    expect((await list(subnet.id, own.api)).total).toBe('0');
  });

  it('batch-delete neither deletes nor counts another organisation’s ids', async () => {
    const mine = await seed();
    const theirs = await seed();
    expect(expectStatus(await batchDelete([...theirs.ids, mine.ids[0]], mine.api), 200)).toEqual({ deleted: 1 });
    expect((await list(theirs.subnet.id, theirs.api)).total).toBe('3');
  });
});

describe('address plan limits', () => {
  const enterpriseOf3 = () => fresh('10.0.0.0/24', { plan: 'enterprise', limits: { addresses: 3 } });

  it('allows 1,500 addresses on the free plan through a session and refuses one more (402)', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    const { subnet } = await populated(1500, free.web);
    expect((await list(subnet.id, free.web)).total).toBe('1500');
    const error = expectStatus<ApiError>(await create(subnet.id, { ip: '10.0.6.1' }, free.web), 402);
    expect(error.code).toBe('plan_limit');
    expect(error.error).toContain('1500 IP addresses');
  });

  it('refuses a free-plan batch that would cross 1,500 and creates nothing', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    const { subnet } = await populated(1499, free.web);
    expect((await batched(subnet.id, ['10.0.6.1', '10.0.6.2'], free.web, 402)).code).toBe('plan_limit');
    expect((await list(subnet.id, free.web)).total).toBe('1499');
  });

  it('honours an enterprise override at its boundary', async () => {
    const { subnet, api } = await enterpriseOf3();
    for (const ip of range('10.0.0.1', 3)) await created(subnet.id, { ip }, api);
    expect(expectStatus<ApiError>(await create(subnet.id, { ip: '10.0.0.4' }, api), 402).code).toBe('plan_limit');
  });

  it('refuses an enterprise batch of 2 when 2 of 3 exist and creates nothing', async () => {
    const { subnet, api } = await enterpriseOf3();
    await batched(subnet.id, ['10.0.0.1', '10.0.0.2'], api);
    const error = await batched(subnet.id, ['10.0.0.3', '10.0.0.4'], api, 402);
    expect(error.error).toContain('3 IP addresses');
    expect((await list(subnet.id, api)).total).toBe('2');
  });

  it('at the limit, a batch of only already-assigned ips is not refused', async () => {
    const { subnet, api } = await enterpriseOf3();
    await batched(subnet.id, range('10.0.0.1', 3), api);
    expect(await batched(subnet.id, ['10.0.0.2'], api)).toEqual({ created: 0 });
  });
});
