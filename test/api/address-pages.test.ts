/**
 * A page of GET /subnets/{id}/addresses is built from its own query (timestamps as text), while
 * GET /addresses/{id} maps a drizzle row in the service: both must give every address the same shape and
 * values.
 */
import { describe, expect, it } from 'vitest';
import { defined } from '../support/defined';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

async function pageAndSingles(network: string, bodies: Record<string, unknown>[]) {
  const subnet = await createSubnet(t.org.api, network);
  const ids: string[] = [];
  for (const body of bodies) {
    ids.push(expectStatus(await t.org.api.call('createAddress', { params: { id: subnet.id }, body }), 201).id);
  }
  const page = expectStatus(await t.org.api.call('listSubnetAddresses', { params: { id: subnet.id } }), 200);
  const singles = [];
  for (const id of ids) singles.push(expectStatus(await t.org.api.call('getAddress', { params: { id } }), 200));
  return { page, singles };
}

describe('a page of addresses', () => {
  it('lists each address exactly as GET /addresses/{id} shows it, every optional field set or not', async () => {
    const { page, singles } = await pageAndSingles('10.90.0.0/24', [
      { ip: '10.90.0.9', hostname: 'web', mac_address: '00-1A-2B-3C-4D-5E', description: 'd', owner: 'o' },
      { ip: '10.90.0.10', status: 'reserved', custom_fields: { rack: null, slot: { u: 4 }, tags: ['a', 'b'] } },
      { ip: '10.90.0.2' },
    ]);
    expect(page).toEqual([singles[2], singles[0], singles[1]]);
  });

  it('orders IPv6 addresses numerically and writes them as the single read does', async () => {
    const { page, singles } = await pageAndSingles('2001:db8:5::/64', [
      { ip: '2001:db8:5::a' },
      { ip: '2001:db8:5::9' },
      { ip: '2001:db8:5::1:0' },
    ]);
    expect(page).toEqual([singles[1], singles[0], singles[2]]);
  });

  it('gives the same page for the subnet id in upper case (subnet_id as stored)', async () => {
    const { page } = await pageAndSingles('10.92.0.0/24', [{ ip: '10.92.0.1' }]);
    const upper = expectStatus(
      await t.org.api.call('listSubnetAddresses', {
        params: { id: defined(page[0], 'the address').subnet_id.toUpperCase() },
      }),
      200,
    );
    expect(upper).toEqual(page);
  });

  it('keeps nulls inside custom fields', async () => {
    const { page } = await pageAndSingles('10.91.0.0/24', [{ ip: '10.91.0.1', custom_fields: { rack: null } }]);
    expect(page[0]?.custom_fields).toEqual({ rack: null });
  });
});

describe('a page holding the characters its query packs rows with (US \\x1f, RS \\x1e)', () => {
  it('lists such values exactly, beside plain ones', async () => {
    const { page, singles } = await pageAndSingles('10.93.0.0/24', [
      { ip: '10.93.0.1', hostname: 'plain' },
      { ip: '10.93.0.2', hostname: 'a\x1fb', description: 'c\x1ed' },
      { ip: '10.93.0.3', owner: '\x1e\x1f', custom_fields: { key: 'x\x1fy\x1e' } },
    ]);
    expect(page).toEqual(singles);
  });

  it('keeps the count and paging right when a value would split a row in two', async () => {
    const subnet = await createSubnet(t.org.api, '10.94.0.0/24');
    const ips = ['10.94.0.1', '10.94.0.2', '10.94.0.3', '10.94.0.4'];
    for (const [i, ip] of ips.entries()) {
      const body = { ip, description: i === 1 ? `${'\x1f'.repeat(11)}\x1e` : `d${i}` };
      expectStatus(await t.org.api.call('createAddress', { params: { id: subnet.id }, body }), 201);
    }
    const response = await t.org.api.call('listSubnetAddresses', {
      params: { id: subnet.id },
      query: { limit: 2, offset: 1 },
    });
    const page = expectStatus(response, 200);
    expect(response.headers.get('x-total-count')).toBe('4');
    expect(page.map((a) => [a.ip, a.description])).toEqual([
      ['10.94.0.2', `${'\x1f'.repeat(11)}\x1e`],
      ['10.94.0.3', 'd2'],
    ]);
    // The page after a cursor, which counts its rows instead of working them out from the total.
    const after = await t.org.api.call('listSubnetAddresses', {
      params: { id: subnet.id },
      query: { limit: 2, cursor: response.headers.get('next-cursor') ?? expect.unreachable('a cursor') },
    });
    expect(expectStatus(after, 200).map((a) => [a.ip, a.description])).toEqual([['10.94.0.4', 'd3']]);
    const first = await t.org.api.call('listSubnetAddresses', { params: { id: subnet.id }, query: { limit: 1 } });
    const rest = await t.org.api.call('listSubnetAddresses', {
      params: { id: subnet.id },
      query: { limit: 2, cursor: first.headers.get('next-cursor') ?? expect.unreachable('a cursor') },
    });
    expect(expectStatus(rest, 200).map((a) => [a.ip, a.description])).toEqual([
      ['10.94.0.2', `${'\x1f'.repeat(11)}\x1e`],
      ['10.94.0.3', 'd2'],
    ]);
    expect(rest.headers.get('next-cursor')).not.toBeNull();
  });
});

describe('a page with reverse-DNS names', () => {
  it('shows a ptr_record as GET /addresses/{id} does, an empty one included, and omits an unset one', async () => {
    const subnet = await createSubnet(t.org.api, '10.95.0.0/24');
    const rows = [
      { ip: '10.95.0.1', subnet: '10.95.0.0/24', ptr_record: 'host.example.com' },
      { ip: '10.95.0.2', subnet: '10.95.0.0/24', ptr_record: '' },
      { ip: '10.95.0.3', subnet: '10.95.0.0/24' },
    ];
    expectStatus(await t.org.api.call('importAddresses', { body: { addresses: rows } }), 200);
    const page = expectStatus(await t.org.api.call('listSubnetAddresses', { params: { id: subnet.id } }), 200);
    const singles = [];
    for (const address of page) {
      singles.push(expectStatus(await t.org.api.call('getAddress', { params: { id: address.id } }), 200));
    }
    expect(page).toEqual(singles);
    expect(page.map((a) => a.ptr_record)).toEqual(['host.example.com', '', undefined]);
  });
});
