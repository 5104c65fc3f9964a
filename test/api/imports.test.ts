/** POST /import/subnets and /import/addresses: row by row results, the single creates' rules, limits. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { defined } from '../support/defined';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();
const MB = 1024 * 1024;

async function fresh(options: Parameters<typeof t.server.newOrg>[0] = {}) {
  return (await t.server.newOrg(options)).api;
}
const importSubnets = async (api: ApiClient, subnets: unknown[]) =>
  expectStatus(await api.call('importSubnets', { body: { subnets } }), 200);
const importAddresses = async (api: ApiClient, addresses: unknown[]) =>
  expectStatus(await api.call('importAddresses', { body: { addresses } }), 200);
const listSubnets = async (api: ApiClient) => expectStatus(await api.call('listSubnets', {}), 200);
const byNetwork = async (api: ApiClient) => new Map((await listSubnets(api)).map((s) => [s.network, s]));
const addressesOf = async (api: ApiClient, id: string) =>
  expectStatus(await api.call('listSubnetAddresses', { params: { id }, query: { limit: 1000 } }), 200);

describe('import subnets', () => {
  it('creates each row and answers a result per row with the totals', async () => {
    const api = await fresh();
    const answer = await importSubnets(api, [{ network: '10.1.0.0/24', name: 'a' }, { network: '10.2.0.0/24' }]);
    expect(answer.summary).toEqual({ created: 2, skipped: 0, errors: 0 });
    expect(answer.results.map((r) => [r.row, r.status, r.network])).toEqual([
      [1, 'created', '10.1.0.0/24'],
      [2, 'created', '10.2.0.0/24'],
    ]);
    const listed = await byNetwork(api);
    expect(listed.get('10.1.0.0/24')?.id).toBe(defined(answer.results[0], 'the result').id);
    expect(listed.get('10.1.0.0/24')?.name).toBe('a');
  });

  it('normalises the network as POST /subnets does', async () => {
    const api = await fresh();
    const answer = await importSubnets(api, [{ network: '2001:DB8:0:0::/48' }]);
    expect(answer.results[0]).toMatchObject({ status: 'created', network: '2001:db8::/48' });
  });

  it('skips a network that exists in the same space, naming it', async () => {
    const api = await fresh();
    await createSubnet(api, '10.1.0.0/24');
    const answer = await importSubnets(api, [{ network: '10.1.0.0/24' }]);
    expect(answer.results[0]).toMatchObject({ status: 'skipped', id: null });
    expect(answer.results[0]?.error).toMatch(/duplicate: 10\.1\.0\.0\/24 already exists in the global space/);
    expect(answer.summary).toEqual({ created: 0, skipped: 1, errors: 0 });
  });

  it('skips a later row repeating an earlier one', async () => {
    const api = await fresh();
    const answer = await importSubnets(api, [{ network: '10.1.0.0/24' }, { network: '10.1.0.0/24', name: 'again' }]);
    expect(answer.results.map((r) => r.status)).toEqual(['created', 'skipped']);
    expect((await listSubnets(api)).map((s) => s.name)).toEqual(['']);
  });

  it('creates the same network in two VRFs', async () => {
    const api = await fresh();
    const answer = await importSubnets(api, [
      { network: '10.1.0.0/24', vrf: 'red' },
      { network: '10.1.0.0/24', vrf: 'blue' },
    ]);
    expect(answer.summary.created).toBe(2);
  });

  it('takes vrf "" as the global space, as no vrf: a duplicate of a global subnet, and no VRF made', async () => {
    const api = await fresh();
    const answer = await importSubnets(api, [{ network: '10.1.0.0/24' }, { network: '10.1.0.0/24', vrf: ' ' }]);
    expect(answer.results.map((r) => r.status)).toEqual(['created', 'skipped']);
    expect(expectStatus(await api.call('listVrfs', {}), 200)).toEqual([]);
  });

  it('nests children imported before their parent under it', async () => {
    const api = await fresh();
    await importSubnets(api, [{ network: '10.1.1.0/24' }, { network: '10.1.2.0/24' }, { network: '10.1.0.0/16' }]);
    const listed = await byNetwork(api);
    const parent = listed.get('10.1.0.0/16')!.id;
    expect(listed.get('10.1.1.0/24')?.parent_id).toBe(parent);
    expect(listed.get('10.1.2.0/24')?.parent_id).toBe(parent);
  });

  it('moves the addresses an imported subnet covers into it', async () => {
    const api = await fresh();
    const parent = await createSubnet(api, '10.1.0.0/16');
    expectStatus(await api.call('createAddress', { params: { id: parent.id }, body: { ip: '10.1.5.9' } }), 201);
    const [result] = (await importSubnets(api, [{ network: '10.1.5.0/24' }])).results;
    const id = defined(result?.id ?? undefined, 'the subnet imported');
    expect((await addressesOf(api, id)).map((a) => a.ip)).toEqual(['10.1.5.9']);
    expect(await addressesOf(api, parent.id)).toEqual([]);
  });

  it('creates each named folder, VLAN, VRF and location once and links the rows to them', async () => {
    const api = await fresh();
    const named = { folder: 'DC', vlan: 120, vrf: 'corp', location: 'Berlin' };
    await importSubnets(api, [
      { network: '10.1.0.0/24', ...named },
      { network: '10.2.0.0/24', ...named },
    ]);
    const folders = expectStatus(await api.call('listFolders', {}), 200);
    const vlans = expectStatus(await api.call('listVlans', {}), 200);
    const vrfs = expectStatus(await api.call('listVrfs', {}), 200);
    const locations = expectStatus(await api.call('listLocations', {}), 200);
    expect([folders.length, vlans.length, vrfs.length, locations.length]).toEqual([1, 1, 1, 1]);
    for (const subnet of await listSubnets(api)) {
      expect(subnet).toMatchObject({ folder_name: 'DC', vlan_number: 120, vrf_name: 'corp', location_name: 'Berlin' });
    }
  });

  it('uses the objects that exist already', async () => {
    const api = await fresh();
    const folder = expectStatus(await api.call('createFolder', { body: { name: 'DC' } }), 201);
    await importSubnets(api, [{ network: '10.1.0.0/24', folder: 'DC' }]);
    expect((await listSubnets(api))[0]?.folder_id).toBe(folder.id);
  });

  it.each([
    ['a bad CIDR', { network: '10.1.0.0/33' }, /^network: /],
    [
      'host bits set',
      { network: '10.1.0.1/24' },
      /network: 10\.1\.0\.1\/24 has host bits set; the network is 10\.1\.0\.0\/24/,
    ],
    [
      'a gateway outside the network',
      { network: '10.1.0.0/24', gateway: '10.2.0.1' },
      /gateway: 10\.2\.0\.1 is outside/,
    ],
    ['an unknown field', { network: '10.1.0.0/24', colour: 'red' }, /colour/],
    ['a VLAN out of range', { network: '10.1.0.0/24', vlan: 4095 }, /^vlan: /],
    ['not an object', 'text', /^row: /],
  ])('reports a row with %s as an error and imports the others', async (_, bad, message) => {
    const api = await fresh();
    const answer = await importSubnets(api, [{ network: '10.9.0.0/24' }, bad]);
    expect(answer.results[1]).toMatchObject({ row: 2, status: 'error', id: null });
    expect(answer.results[1]?.error).toMatch(message);
    expect(answer.summary).toEqual({ created: 1, skipped: 0, errors: 1 });
    expect((await listSubnets(api)).map((s) => s.network)).toEqual(['10.9.0.0/24']);
  });

  it('creates no folder for a row that is invalid', async () => {
    const api = await fresh();
    await importSubnets(api, [{ network: '10.1.0.1/24', folder: 'never' }]);
    expect(expectStatus(await api.call('listFolders', {}), 200)).toEqual([]);
  });

  // Found by test/fuzz/openapi-requests.test.ts: one such row failed the whole import with a 400.
  it('reports a row with text the database cannot store (NUL, an unpaired surrogate in JSON) as an error', async () => {
    const api = await fresh();
    const answer = await importSubnets(api, [
      { network: '10.1.0.0/24', name: 'kept \ud800' },
      { network: '10.2.0.0/24', description: 'a\u0000b' },
      { network: '10.3.0.0/24', custom_fields: { note: '\ud800' } },
      { network: '10.4.0.0/24', custom_fields: { 'k\u0000': 1 } },
      { network: '10.5.0.0/24', folder: 'nul\u0000' },
    ]);
    expect(answer.results.map((r) => [r.status, r.error])).toEqual([
      ['created', undefined],
      ['error', 'description: must not contain NUL characters (nor unpaired surrogates in JSON)'],
      ['error', 'custom_fields: must not contain NUL characters (nor unpaired surrogates in JSON)'],
      ['error', 'custom_fields: must not contain NUL characters (nor unpaired surrogates in JSON)'],
      ['error', 'folder: must not contain NUL characters (nor unpaired surrogates in JSON)'],
    ]);
    expect((await listSubnets(api)).map((s) => s.network)).toEqual(['10.1.0.0/24']);
    expect(expectStatus(await api.call('listFolders', {}), 200)).toEqual([]);
  });

  it('reports rows past the plan limit as errors and keeps the rows before them', async () => {
    const api = await fresh({ plan: 'enterprise', limits: { subnets: 2 } });
    const answer = await importSubnets(api, [
      { network: '10.1.0.0/24' },
      { network: '10.1.0.0/24' },
      { network: '10.2.0.0/24' },
      { network: '10.3.0.0/24' },
    ]);
    expect(answer.results.map((r) => r.status)).toEqual(['created', 'skipped', 'created', 'error']);
    expect(answer.results[3]?.error).toMatch(/Plan limit reached: 2 subnets/);
    expect((await listSubnets(api)).length).toBe(2);
  });

  it('reports the rows naming a folder the plan has no room for as errors', async () => {
    const api = await fresh({ plan: 'enterprise', limits: { folders: 0 } });
    const answer = await importSubnets(api, [{ network: '10.1.0.0/24', folder: 'DC' }, { network: '10.2.0.0/24' }]);
    expect(answer.results[0]?.error).toMatch(/^folder: Plan limit reached: 0 folders/);
    expect(answer.results[1]?.status).toBe('created');
  });

  it('accepts 1,000 rows and refuses 1,001, naming the field', async () => {
    const api = await fresh({ plan: 'enterprise' });
    const rows = Array.from({ length: 1001 }, (_, i) => ({ network: `10.${i >> 8}.${i & 255}.0/24` }));
    const refused = expectStatus(await api.call('importSubnets', { body: { subnets: rows } }), 400);
    expect(refused.error).toMatch(/^subnets: at most 1000 rows/);
    expect((await importSubnets(api, rows.slice(0, 1000))).summary.created).toBe(1000);
  });

  it.each([
    ['importSubnets', { subnets: [{ network: '10.1.0.0/24' }] }],
    ['importAddresses', { addresses: [{ ip: '10.1.0.1', subnet: '10.1.0.0/24' }] }],
  ] as const)('%s accepts a body of exactly 10 MB and answers 413 to one byte more', async (id, rows) => {
    const api = await fresh();
    // JSON allows whitespace after the value: the same rows padded to the size wanted.
    const body = (bytes: number) => JSON.stringify(rows).padEnd(bytes, ' ');
    const headers = { 'content-type': 'application/json' };
    const tooLarge = await api.call(id, { rawBody: body(10 * MB + 1), headers });
    expect(expectStatus(tooLarge, 413).code).toBe('payload_too_large');
    expect(expectStatus(await api.call(id, { rawBody: body(10 * MB), headers }), 200).results).toHaveLength(1);
  });

  it('refuses an empty import', async () => {
    const api = await fresh();
    const refused = expectStatus(await api.call('importSubnets', { body: { subnets: [] } }), 400);
    expect(refused.error).toMatch(/^subnets: must contain at least one row/);
  });

  it('logs each created subnet as an import', async () => {
    const api = await fresh();
    const answer = await importSubnets(api, [{ network: '10.1.0.0/24' }, { network: '10.1.0.0/24' }]);
    const log = expectStatus(await api.call('listActivity', { query: { resource_type: 'subnet' } }), 200);
    expect(log.entries.map((e) => [e.action, e.resource_id])).toEqual([
      ['import', defined(answer.results[0], 'the result').id],
    ]);
  });
});

describe('import subnets against a model of the hierarchy', () => {
  /** A block of 10.0.0.0/16 as [first offset, host bits]. */
  type Block = [number, number];
  const networkOf = ([start, bits]: Block) => `10.0.${start >> 8}.${start & 255}/${32 - bits}`;
  const contains = (outer: Block, inner: Block) =>
    outer[1] > inner[1] && inner[0] >= outer[0] && inner[0] < outer[0] + 2 ** outer[1];
  const block = fc
    .integer({ min: 2, max: 12 })
    .chain((bits) => fc.integer({ min: 0, max: 2 ** (16 - bits) - 1 }).map((i): Block => [i * 2 ** bits, bits]));

  it('gives every subnet its smallest container and every address the smallest subnet holding it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(block, { minLength: 1, maxLength: 14, selector: networkOf }),
        fc.integer({ min: 0, max: 14 }),
        fc.uniqueArray(fc.integer({ min: 1, max: 65_534 }), { maxLength: 30 }),
        async (blocks, before, offsets) => {
          const api = await fresh({ plan: 'enterprise' });
          const root = await createSubnet(api, '10.0.0.0/16');
          before = Math.min(before, blocks.length - 1); // at least one row is imported
          const existing = blocks.slice(0, before);
          for (const b of existing) await createSubnet(api, networkOf(b));
          const ipOf = (o: number) => `10.0.${o >> 8}.${o & 255}`;
          const all: Block[] = [[0, 16], ...blocks];
          // The /16 holds every block and offset.
          const smallest = (inner: Block) =>
            defined(all.filter((outer) => contains(outer, inner)).sort((a, b) => a[1] - b[1])[0], 'a container');
          // Addresses go where the model puts them among the subnets already there (not on network/broadcast).
          const placed: [string, Block][] = [];
          for (const o of offsets) {
            const holder = defined(
              [[0, 16] as Block, ...existing].filter((b) => contains(b, [o, 0])).sort((a, b) => a[1] - b[1])[0],
              'a subnet holding the address',
            );
            if (o === holder[0] || o === holder[0] + 2 ** holder[1] - 1) continue;
            const id = holder[1] === 16 ? root.id : (await byNetwork(api)).get(networkOf(holder))!.id;
            expectStatus(await api.call('createAddress', { params: { id }, body: { ip: ipOf(o) } }), 201);
            placed.push([ipOf(o), [o, 0]]);
          }
          const answer = await importSubnets(
            api,
            blocks
              .slice(before)
              .reverse()
              .map((b) => ({ network: networkOf(b) })),
          );
          expect(answer.summary.created).toBe(blocks.length - before);
          const listed = await byNetwork(api);
          const idOf = (b: Block) => (b[1] === 16 ? root.id : listed.get(networkOf(b))!.id);
          for (const b of blocks) expect(listed.get(networkOf(b))?.parent_id).toBe(idOf(smallest(b)));
          for (const [ip, at] of placed) {
            const holder = smallest(at);
            expect((await addressesOf(api, idOf(holder))).map((a) => a.ip)).toContain(ip);
          }
        },
      ),
      { numRuns: 15 },
    );
  });
});

describe('import addresses', () => {
  it('creates each row in the subnet its CIDR names, with its fields', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/24');
    const answer = await importAddresses(api, [
      {
        ip: '10.1.0.10',
        subnet: '10.1.0.0/24',
        hostname: 'web',
        mac_address: '00:1A:2B:3C:4D:5E',
        status: 'reserved',
        owner: 'ops',
        ptr_record: 'web.example.com',
        description: 'front',
      },
    ]);
    expect(answer.results[0]).toMatchObject({ row: 1, status: 'created', ip: '10.1.0.10' });
    const [address] = await addressesOf(api, subnet.id);
    expect(address).toMatchObject({
      id: defined(answer.results[0], 'the result').id,
      hostname: 'web',
      mac_address: '00:1a:2b:3c:4d:5e',
      status: 'reserved',
      owner: 'ops',
      ptr_record: 'web.example.com',
      description: 'front',
    });
  });

  it('skips an ip already assigned and a repeated row', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/24');
    expectStatus(await api.call('createAddress', { params: { id: subnet.id }, body: { ip: '10.1.0.5' } }), 201);
    const answer = await importAddresses(api, [
      { ip: '10.1.0.5', subnet: '10.1.0.0/24' },
      { ip: '10.1.0.6', subnet: '10.1.0.0/24' },
      { ip: '10.1.0.6', subnet: '10.1.0.0/24' },
    ]);
    expect(answer.results.map((r) => r.status)).toEqual(['skipped', 'created', 'skipped']);
    expect(answer.results[0]?.error).toBe('ip: 10.1.0.5 is already assigned');
    expect(answer.summary).toEqual({ created: 1, skipped: 2, errors: 0 });
  });

  it.each([
    ['a subnet that does not exist', { ip: '10.9.0.1', subnet: '10.9.0.0/24' }, /^subnet: no subnet 10\.9\.0\.0\/24/],
    [
      'an ip outside the subnet',
      { ip: '10.2.0.1', subnet: '10.1.0.0/24' },
      /^ip: 10\.2\.0\.1 is outside 10\.1\.0\.0\/24/,
    ],
    ['the network address', { ip: '10.1.0.0', subnet: '10.1.0.0/24' }, /network or broadcast/],
    ['an ip inside a child subnet', { ip: '10.1.0.130', subnet: '10.1.0.0/24' }, /child subnet 10\.1\.0\.128\/25/],
    ['a subnet with host bits', { ip: '10.1.0.1', subnet: '10.1.0.1/24' }, /^subnet: 10\.1\.0\.1\/24 has host bits/],
    ['a bad MAC', { ip: '10.1.0.1', subnet: '10.1.0.0/24', mac_address: 'nope' }, /^mac_address: /],
    ['no subnet', { ip: '10.1.0.1' }, /^subnet: /],
  ])('reports a row with %s as an error and imports the others', async (_, bad, message) => {
    const api = await fresh();
    await createSubnet(api, '10.1.0.0/24');
    await createSubnet(api, '10.1.0.128/25');
    const answer = await importAddresses(api, [bad, { ip: '10.1.0.7', subnet: '10.1.0.0/24' }]);
    expect(answer.results[0]).toMatchObject({ status: 'error', id: null });
    expect(answer.results[0]?.error).toMatch(message);
    expect(answer.results[1]?.status).toBe('created');
  });

  it('never finds another organisation’s subnet', async () => {
    const other = await fresh();
    await createSubnet(other, '10.1.0.0/24');
    const answer = await importAddresses(await fresh(), [{ ip: '10.1.0.1', subnet: '10.1.0.0/24' }]);
    expect(answer.results[0]?.error).toMatch(/no subnet 10\.1\.0\.0\/24 in this organisation/);
  });

  describe('a CIDR in several spaces', () => {
    /** The subnet 10.1.0.0/24 in the global space and in the VRFs named. */
    async function inSpaces(api: ApiClient, spaces: (string | null)[]) {
      const ids: Record<string, string> = {};
      for (const name of spaces) {
        const vrfId = name && expectStatus(await api.call('createVrf', { body: { name } }), 201).id;
        ids[name ?? ''] = (await createSubnet(api, '10.1.0.0/24', vrfId ? { vrf_id: vrfId } : {})).id;
      }
      return (name: string) => defined(ids[name], `the subnet in ${name ? `VRF ${name}` : 'the global space'}`);
    }

    it('means the VRF named with vrf, and the global space with vrf ""', async () => {
      const api = await fresh();
      const ids = await inSpaces(api, [null, 'blue']);
      const answer = await importAddresses(api, [
        { ip: '10.1.0.1', subnet: '10.1.0.0/24', vrf: '' },
        { ip: '10.1.0.2', subnet: '10.1.0.0/24', vrf: 'blue' },
      ]);
      expect(answer.summary.created).toBe(2);
      expect((await addressesOf(api, ids(''))).map((a) => a.ip)).toEqual(['10.1.0.1']);
      expect((await addressesOf(api, ids('blue'))).map((a) => a.ip)).toEqual(['10.1.0.2']);
    });

    it('means the only subnet with the CIDR without vrf, whatever its VRF', async () => {
      const api = await fresh();
      const ids = await inSpaces(api, ['blue']);
      await importAddresses(api, [{ ip: '10.1.0.1', subnet: '10.1.0.0/24' }]);
      expect((await addressesOf(api, ids('blue'))).length).toBe(1);
    });

    it('is an error row naming every space that holds it, the global one too, when no vrf is given', async () => {
      const api = await fresh();
      const ids = await inSpaces(api, ['red', null, 'blue']);
      const answer = await importAddresses(api, [
        { ip: '10.1.0.1', subnet: '10.1.0.0/24' },
        { ip: '10.1.0.2', subnet: '10.1.0.0/24', vrf: '' },
      ]);
      expect(answer.results[0]).toMatchObject({
        status: 'error',
        error:
          'subnet: 10.1.0.0/24 exists in the global space, VRF "blue", VRF "red"; name the VRF in vrf ("" for the global space)',
      });
      expect(answer.results[1]?.status).toBe('created');
      expect((await addressesOf(api, ids(''))).map((a) => a.ip)).toEqual(['10.1.0.2']);
    });

    it.each([
      ['a VRF without it', 'green', /^subnet: no subnet 10\.1\.0\.0\/24 in VRF "green"$/],
      ['the global space without it', '', /^subnet: no subnet 10\.1\.0\.0\/24 in the global space$/],
    ])('is an error row when vrf names %s', async (_, vrf, message) => {
      const api = await fresh();
      await inSpaces(api, ['blue']);
      const answer = await importAddresses(api, [{ ip: '10.1.0.1', subnet: '10.1.0.0/24', vrf }]);
      expect(answer.results[0]).toMatchObject({ status: 'error', error: expect.stringMatching(message) });
    });
  });

  it('reports rows past the plan limit as errors and keeps the rows before them', async () => {
    const api = await fresh({ plan: 'enterprise', limits: { addresses: 2 } });
    await createSubnet(api, '10.1.0.0/24');
    const rows = ['10.1.0.1', '10.1.0.2', '10.1.0.3'].map((ip) => ({ ip, subnet: '10.1.0.0/24' }));
    const answer = await importAddresses(api, rows);
    expect(answer.results.map((r) => r.status)).toEqual(['created', 'created', 'error']);
    expect(answer.results[2]?.error).toMatch(/Plan limit reached: 2/);
  });

  it('reports a row with text the database cannot store as an error and imports the others', async () => {
    const api = await fresh();
    const { id } = await createSubnet(api, '10.1.0.0/24');
    const answer = await importAddresses(api, [
      { ip: '10.1.0.1', subnet: '10.1.0.0/24' },
      { ip: '10.1.0.2', subnet: '10.1.0.0/24', hostname: 'a\u0000' },
      { ip: '10.1.0.3', subnet: '10.1.0.0/24', custom_fields: { note: 'x\udc00' } },
    ]);
    expect(answer.results.map((r) => [r.status, r.error])).toEqual([
      ['created', undefined],
      ['error', 'hostname: must not contain NUL characters (nor unpaired surrogates in JSON)'],
      ['error', 'custom_fields: must not contain NUL characters (nor unpaired surrogates in JSON)'],
    ]);
    expect((await addressesOf(api, id)).map((a) => a.ip)).toEqual(['10.1.0.1']);
  });

  it('accepts 1,000 rows and refuses 1,001', async () => {
    const api = await fresh({ plan: 'enterprise' });
    await createSubnet(api, '10.1.0.0/22');
    const rows = Array.from({ length: 1001 }, (_, i) => ({
      ip: `10.1.${i >> 8}.${(i & 255) + 1}`,
      subnet: '10.1.0.0/22',
    }));
    expectStatus(await api.call('importAddresses', { body: { addresses: rows } }), 400);
    const answer = await importAddresses(api, rows.slice(0, 1000));
    expect(answer.summary).toEqual({ created: 997, skipped: 0, errors: 3 }); // .256 is not an ip
  });

  it('logs each created address as an import', async () => {
    const api = await fresh();
    await createSubnet(api, '10.1.0.0/24');
    const answer = await importAddresses(api, [{ ip: '10.1.0.1', subnet: '10.1.0.0/24' }]);
    const log = expectStatus(await api.call('listActivity', { query: { resource_type: 'address' } }), 200);
    expect(log.entries.map((e) => [e.action, e.resource_id])).toEqual([
      ['import', defined(answer.results[0], 'the result').id],
    ]);
  });
});
