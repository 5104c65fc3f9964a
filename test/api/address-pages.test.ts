/**
 * A page of GET /subnets/{id}/addresses is built from its own query (timestamps as text), while
 * GET /addresses/{id} maps a drizzle row in the service: both must give every address the same shape and
 * values.
 */
import { describe, expect, it } from 'vitest';
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
      await t.org.api.call('listSubnetAddresses', { params: { id: page[0].subnet_id.toUpperCase() } }),
      200,
    );
    expect(upper).toEqual(page);
  });

  it('keeps nulls inside custom fields', async () => {
    const { page } = await pageAndSingles('10.91.0.0/24', [{ ip: '10.91.0.1', custom_fields: { rack: null } }]);
    expect(page[0].custom_fields).toEqual({ rack: null });
  });
});
