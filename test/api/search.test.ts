/** GET /search: each kind of match, best matches first, at most 50 of each, within the organisation. */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const fresh = async () => (await t.server.newOrg({ plan: 'enterprise' })).api;
const search = async (api: ApiClient, q: string) => expectStatus(await api.call('searchIpam', { query: { q } }), 200);
const networks = async (api: ApiClient, q: string) => (await search(api, q)).subnets.map((s) => s.network);
const ips = async (api: ApiClient, q: string) => (await search(api, q)).addresses.map((a) => a.ip);
async function address(api: ApiClient, subnetId: string, ip: string, extra: Record<string, string | string[]> = {}) {
  return expectStatus(await api.call('createAddress', { params: { id: subnetId }, body: { ip, ...extra } }), 201);
}

describe('search', () => {
  it('finds an address by its ip and the subnets containing it, most specific first', async () => {
    const api = await fresh();
    await createSubnet(api, '10.0.0.0/8');
    const lan = await createSubnet(api, '10.1.2.0/24');
    await createSubnet(api, '10.1.0.0/16');
    await createSubnet(api, '192.168.0.0/16');
    const found = await address(api, lan.id, '10.1.2.7', { hostname: 'printer' });
    const answer = await search(api, '10.1.2.7');
    expect(answer.addresses).toEqual([{ id: found.id, ip: '10.1.2.7', hostname: 'printer', subnet_id: lan.id }]);
    expect(answer.subnets.map((s) => s.network)).toEqual(['10.1.2.0/24', '10.1.0.0/16', '10.0.0.0/8']);
  });

  it.each([
    ['/32', '10.150.0.0/16', '10.150.1.10', '10.150.1.10/32'],
    ['/128', '2001:db8::/64', '2001:db8::a', '2001:DB8::A/128'],
  ])('finds an address and its subnets by its %s CIDR as by its ip', async (_, network, ip, q) => {
    const api = await fresh();
    const subnet = await createSubnet(api, network);
    const found = await address(api, subnet.id, ip, { hostname: 'web' });
    expect(await search(api, q)).toEqual({
      subnets: [{ id: subnet.id, network, name: '' }],
      addresses: [{ id: found.id, ip, hostname: 'web', subnet_id: subnet.id }],
    });
  });

  it('names the subnet holding each address found, the smallest one containing it', async () => {
    const api = await fresh();
    await createSubnet(api, '10.7.0.0/16');
    const lan = await createSubnet(api, '10.7.1.0/24');
    await address(api, lan.id, '10.7.1.5', { hostname: 'nas' });
    expect((await search(api, 'nas')).addresses.map((a) => a.subnet_id)).toEqual([lan.id]);
  });

  it('finds a /32 subnet by its CIDR before the subnets containing it', async () => {
    const api = await fresh();
    await createSubnet(api, '10.150.0.0/16');
    await createSubnet(api, '10.150.1.10/32');
    expect(await networks(api, '10.150.1.10/32')).toEqual(['10.150.1.10/32', '10.150.0.0/16']);
  });

  it('finds a subnet by its exact CIDR before the ones starting like it', async () => {
    const api = await fresh();
    for (const n of ['10.1.2.0/24', '10.1.2.0/25', '10.1.2.0/23', '10.1.20.0/24']) await createSubnet(api, n);
    expect((await networks(api, '10.1.2.0/24'))[0]).toBe('10.1.2.0/24');
  });

  it('finds networks and ips by how their text starts', async () => {
    const api = await fresh();
    const a = await createSubnet(api, '10.20.1.0/24');
    await createSubnet(api, '10.2.0.0/16');
    await createSubnet(api, '110.20.0.0/16');
    await address(api, a.id, '10.20.1.9');
    expect(await networks(api, '10.20')).toEqual(['10.20.1.0/24']);
    expect(await ips(api, '10.20.1')).toEqual(['10.20.1.9']);
  });

  it('finds IPv6 networks written in upper case', async () => {
    const api = await fresh();
    await createSubnet(api, '2001:db8:abcd::/48');
    expect(await networks(api, '2001:DB8:ABCD')).toEqual(['2001:db8:abcd::/48']);
  });

  it('finds names, hostnames and descriptions by a substring in any case', async () => {
    const api = await fresh();
    const s = await createSubnet(api, '10.1.0.0/24', { name: 'Berlin Office' });
    await createSubnet(api, '10.2.0.0/24', { description: 'old office wing' });
    await createSubnet(api, '10.3.0.0/24', { name: 'lab' });
    await address(api, s.id, '10.1.0.5', { hostname: 'OFFICE-printer' });
    await address(api, s.id, '10.1.0.6', { description: 'in the office' });
    await address(api, s.id, '10.1.0.7', { hostname: 'lab-1' });
    expect(await networks(api, 'OFFICE')).toEqual(['10.1.0.0/24', '10.2.0.0/24']);
    expect(await ips(api, 'office')).toEqual(['10.1.0.5', '10.1.0.6']);
  });

  it('ranks an exact name and hostname before those that only contain the query', async () => {
    const api = await fresh();
    const s = await createSubnet(api, '10.1.0.0/24', { name: 'core-lab' });
    await createSubnet(api, '10.2.0.0/24', { name: 'Lab' });
    await address(api, s.id, '10.1.0.5', { hostname: 'lab-printer' });
    await address(api, s.id, '10.1.0.6', { hostname: 'LAB' });
    expect(await networks(api, 'lab')).toEqual(['10.2.0.0/24', '10.1.0.0/24']);
    expect(await ips(api, 'lab')).toEqual(['10.1.0.6', '10.1.0.5']);
  });

  it('finds what carries the tag named by the query, after what matches it otherwise', async () => {
    const api = await fresh();
    expectStatus(await api.call('createTag', { body: { name: 'edge' } }), 201);
    const tagged = await createSubnet(api, '10.1.0.0/24', { tags: ['edge'] });
    await createSubnet(api, '10.2.0.0/24', { name: 'edge router' });
    await createSubnet(api, '10.3.0.0/24');
    await address(api, tagged.id, '10.1.0.5', { tags: ['edge'] });
    await address(api, tagged.id, '10.1.0.6', { hostname: 'edge-1' });
    await address(api, tagged.id, '10.1.0.7');
    expect(await networks(api, 'edge')).toEqual(['10.2.0.0/24', '10.1.0.0/24']);
    expect(await ips(api, 'edge')).toEqual(['10.1.0.6', '10.1.0.5']);
    expect(await networks(api, 'edg')).toEqual(['10.2.0.0/24']);
  });

  it.each([
    ['%', 'a%b'],
    ['_', 'a_b'],
    ['\\', 'a\\b'],
  ])('takes %s in the query literally', async (_, name) => {
    const api = await fresh();
    await createSubnet(api, '10.1.0.0/24', { name });
    await createSubnet(api, '10.2.0.0/24', { name: 'axxb' });
    expect(await networks(api, name)).toEqual(['10.1.0.0/24']);
  });

  it('answers at most 50 of each kind when more match', async () => {
    const api = await fresh();
    const subnets = Array.from({ length: 51 }, (_, i) => ({ network: `10.1.${i}.0/24`, name: `site ${i}` }));
    expectStatus(await api.call('importSubnets', { body: { subnets } }), 200);
    const addresses = Array.from({ length: 51 }, (_, i) => ({
      ip: `10.1.0.${i + 1}`,
      subnet: '10.1.0.0/24',
      hostname: `site-${i}`,
    }));
    expectStatus(await api.call('importAddresses', { body: { addresses } }), 200);
    const answer = await search(api, 'site');
    expect([answer.subnets.length, answer.addresses.length]).toEqual([50, 50]);
    expect((await search(api, 'site 50')).subnets).toHaveLength(1);
  });

  it('answers the 50 lowest networks by address when more start like the query, not the first as text', async () => {
    const api = await fresh();
    const subnets = Array.from({ length: 60 }, (_, i) => ({ network: `10.160.${i}.0/24` }));
    expectStatus(await api.call('importSubnets', { body: { subnets } }), 200);
    expect(await networks(api, '10.160.')).toEqual(subnets.slice(0, 50).map((s) => s.network));
  });

  it('answers the 50 lowest networks by address when more names match, not the first by name', async () => {
    const api = await fresh();
    const subnets = Array.from({ length: 60 }, (_, i) => ({ network: `10.1.${i}.0/24`, name: `site ${59 - i}` }));
    expectStatus(await api.call('importSubnets', { body: { subnets } }), 200);
    expect(await networks(api, 'site')).toEqual(subnets.slice(0, 50).map((s) => s.network));
  });

  it('answers the 50 lowest ips when more start like the query, not the first as text', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/24');
    const addresses = Array.from({ length: 60 }, (_, i) => ({ ip: `10.1.0.${i + 1}`, subnet: subnet.network }));
    expectStatus(await api.call('importAddresses', { body: { addresses } }), 200);
    expect(await ips(api, '10.1.0.')).toEqual(addresses.slice(0, 50).map((a) => a.ip));
  });

  it('sorts matches of the same kind by address, not as text', async () => {
    const api = await fresh();
    for (const network of ['10.160.10.0/24', '10.160.2.0/24']) await createSubnet(api, network, { name: 'lab' });
    expect(await networks(api, 'lab')).toEqual(['10.160.2.0/24', '10.160.10.0/24']);
    expect(await networks(api, '10.160')).toEqual(['10.160.2.0/24', '10.160.10.0/24']);
  });

  it('shows 50 when exactly 50 match', async () => {
    const api = await fresh();
    const subnets = Array.from({ length: 50 }, (_, i) => ({ network: `10.1.${i}.0/24`, name: `site ${i}` }));
    expectStatus(await api.call('importSubnets', { body: { subnets } }), 200);
    expect((await search(api, 'site')).subnets).toHaveLength(50);
  });

  it('never finds another organisation’s subnets or addresses', async () => {
    const other = await fresh();
    const s = await createSubnet(other, '10.1.0.0/24', { name: 'secret' });
    await address(other, s.id, '10.1.0.5', { hostname: 'secret' });
    const api = await fresh();
    expect(await search(api, 'secret')).toEqual({ subnets: [], addresses: [] });
    expect(await search(api, '10.1.0.5')).toEqual({ subnets: [], addresses: [] });
  });

  it('accepts a query of 500 characters and refuses 501, naming q', async () => {
    const api = await fresh();
    expect(await search(api, 'x'.repeat(500))).toEqual({ subnets: [], addresses: [] });
    const refused = expectStatus(await api.call('searchIpam', { query: { q: 'x'.repeat(501) } }), 400);
    expect(refused.error).toMatch(/^q: /);
  });

  it('refuses an empty query', async () => {
    const refused = expectStatus(await (await fresh()).call('searchIpam', { query: { q: '  ' } }), 400);
    expect(refused.error).toMatch(/^q: /);
  });
});
