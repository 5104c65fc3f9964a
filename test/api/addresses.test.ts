import { describe, expect, it } from 'vitest';
import { addressHelpers } from '../support/address-helpers';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const {
  createSubnet,
  fresh,
  create,
  created,
  refused,
  batchCreate,
  batched,
  list,
  getAddress,
  patch,
  twoSpaces,
  range,
  populated,
} = addressHelpers(t);

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
    const [kind, network = '', ip] = all.split(' ');
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
    expect(expectStatus(response, 400).error).toMatch(/^offset: /);
  });

  it.each([0, 1001])('refuses limit %i, naming limit', async (limit) => {
    const { subnet, api } = await fresh();
    const response = await api.call('listSubnetAddresses', { params: { id: subnet.id }, query: { limit } });
    expect(expectStatus(response, 400).error).toMatch(/^limit: /);
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
    expect(expectStatus(await patch(address.id, { ip: '10.0.0.5' }, api), 400).error).toContain("'ip'");
    expect(expectStatus(await getAddress(address.id, api), 200).ip).toBe('10.0.0.4');
  });

  it('PATCH refuses a status outside the enum, naming status', async () => {
    const { subnet, api } = await fresh();
    const address = await created(subnet.id, { ip: '10.0.0.4' }, api);
    expect(expectStatus(await patch(address.id, { status: 'bogus' }, api), 400).error).toMatch(/^status: /);
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
    expect(expectStatus(await getAddress(address.id, api), 200).subnet_id).toBe(child.id);
  });
});
