/** GET /export/subnets and /export/addresses: the specification's columns, names, quoting, filters, round trip. */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { cellValue, parseCsv } from '../support/csv';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const fresh = async () => (await t.server.newOrg({ plan: 'enterprise' })).api;
const subnetsCsv = async (api: ApiClient, folder_id?: string) =>
  parseCsv(expectStatus(await api.call('exportSubnets', { query: folder_id ? { folder_id } : {} }), 200));
const addressesCsv = async (api: ApiClient, subnet_id?: string) =>
  parseCsv(expectStatus(await api.call('exportAddresses', { query: subnet_id ? { subnet_id } : {} }), 200));
/** The rows after the header, as objects keyed by the header's columns, each cell's value restored. */
const records = ([header = [], ...rows]: string[][]) =>
  rows.map((row) => Object.fromEntries(header.map((column, i) => [column, cellValue(row[i] ?? '')])));

describe('export subnets', () => {
  it('answers a CSV download named by date with the specification’s header row, then tags', async () => {
    const api = await fresh();
    const response = await api.call('exportSubnets');
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(
      /^attachment; filename="subnets-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    expect(parseCsv(expectStatus(response, 200))).toEqual([
      [
        'network',
        'name',
        'description',
        'folder',
        'vlan',
        'vrf',
        'location',
        'gateway',
        'dns_primary',
        'dns_secondary',
        'is_pool',
        'scan_enabled',
        'tracked',
        'tags',
        'custom_fields',
      ],
    ]);
  });

  it('writes every field, related items by name and the VLAN by number', async () => {
    const api = await fresh();
    await api.call('importSubnets', {
      body: {
        subnets: [
          {
            network: '10.1.0.0/24',
            name: 'LAN',
            description: 'office',
            folder: 'DC',
            vlan: 120,
            vrf: 'corp',
            location: 'Berlin',
            gateway: '10.1.0.1',
            dns_primary: '10.0.0.53',
            dns_secondary: '10.0.0.54',
            is_pool: true,
            scan_enabled: true,
            tracked: false,
            tags: ['edge', 'lab'],
            custom_fields: { units: 4, rack: 'R1' },
          },
        ],
      },
    });
    expect((await subnetsCsv(api))[1]).toEqual([
      '10.1.0.0/24',
      'LAN',
      'office',
      'DC',
      '120',
      'corp',
      'Berlin',
      '10.1.0.1',
      '10.0.0.53',
      '10.0.0.54',
      'true',
      'true',
      'false',
      'edge,lab',
      '{"rack": "R1", "units": 4}',
    ]);
  });

  it('leaves unset values empty', async () => {
    const api = await fresh();
    await createSubnet(api, '10.1.0.0/24');
    expect((await subnetsCsv(api))[1]).toEqual([
      '10.1.0.0/24',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      '',
      'false',
      'false',
      'true',
      '',
      '',
    ]);
  });

  it('quotes commas, quotes and line breaks', async () => {
    const api = await fresh();
    await createSubnet(api, '10.1.0.0/24', { name: 'a, "b"', description: 'two\nlines' });
    const response = await api.call('exportSubnets');
    expect(expectStatus(response, 200)).toContain('10.1.0.0/24,"a, ""b""","two\nlines",');
  });

  it.each(['=HYPERLINK("x")', '+1', '-1', '@SUM(A1)'])(
    'neutralises a name starting like a formula: %s',
    async (name) => {
      const api = await fresh();
      await createSubnet(api, '10.1.0.0/24', { name });
      const [, row] = await subnetsCsv(api);
      expect(row?.[1]).toBe(`'${name}`);
    },
  );

  it('orders rows by space and network', async () => {
    const api = await fresh();
    for (const network of ['10.2.0.0/24', '10.1.0.0/16', '10.1.0.0/24', '2001:db8::/48'])
      await createSubnet(api, network);
    expect((await subnetsCsv(api)).slice(1).map((row) => row[0])).toEqual([
      '10.1.0.0/16',
      '10.1.0.0/24',
      '10.2.0.0/24',
      '2001:db8::/48',
    ]);
  });

  it('exports only the folder asked for', async () => {
    const api = await fresh();
    const folder = expectStatus(await api.call('createFolder', { body: { name: 'DC' } }), 201);
    await createSubnet(api, '10.1.0.0/24', { folder_id: folder.id });
    await createSubnet(api, '10.2.0.0/24');
    expect((await subnetsCsv(api, folder.id)).slice(1).map((row) => row[0])).toEqual(['10.1.0.0/24']);
  });

  it('answers 400 naming the folder_id that is not a uuid, and for an unknown filter', async () => {
    const api = await fresh();
    const error = expectStatus(await api.call('exportSubnets', { query: { folder_id: 'dc-1' } }), 400);
    expect(error.error).toMatch(/folder_id/);
    expectStatus(await api.call('exportSubnets', { query: { subnet_id: 'x' } }), 400);
  });

  it('answers 404 for a folder of another organisation', async () => {
    const other = await fresh();
    const folder = expectStatus(await other.call('createFolder', { body: { name: 'DC' } }), 201);
    expectStatus(await (await fresh()).call('exportSubnets', { query: { folder_id: folder.id } }), 404);
  });

  it('never shows another organisation’s subnets', async () => {
    const other = await fresh();
    await createSubnet(other, '10.1.0.0/24');
    expect(await subnetsCsv(await fresh())).toHaveLength(1);
  });

  it('writes more rows than one page of the reader', async () => {
    const api = await fresh();
    const subnets = Array.from({ length: 1000 }, (_, i) => ({ network: `10.${i >> 8}.${i & 255}.0/24` }));
    await api.call('importSubnets', { body: { subnets } });
    await api.call('importSubnets', {
      body: { subnets: subnets.map((s) => ({ network: s.network.replace(/^10\./, '11.') })) },
    });
    await api.call('importSubnets', {
      body: { subnets: subnets.slice(0, 5).map((s) => ({ network: s.network.replace(/^10\./, '12.') })) },
    });
    const rows = (await subnetsCsv(api)).slice(1);
    expect(rows).toHaveLength(2005);
    expect(new Set(rows.map((row) => row[0])).size).toBe(2005);
  });

  it('gives back the same subnets when imported into another organisation', async () => {
    const api = await fresh();
    await api.call('importSubnets', {
      body: {
        subnets: [
          { network: '10.1.0.0/16', name: '=top', folder: 'DC', vlan: 7, location: 'Paris', tracked: false },
          {
            network: '10.1.2.0/24',
            name: '\'quoted, "x"',
            gateway: '10.1.2.1',
            vrf: 'corp',
            is_pool: true,
            custom_fields: { rack: '=R1', nested: { a: [1, 'b,"c"'] } },
          },
          { network: '2001:db8::/48', description: 'line\nbreak', dns_primary: '2001:db8::53', scan_enabled: true },
        ],
      },
    });
    const exported = records(await subnetsCsv(api));
    const copy = await fresh();
    const rows = exported.map((r) => ({
      network: r.network,
      ...(r.name && { name: r.name }),
      ...(r.description && { description: r.description }),
      ...(r.folder && { folder: r.folder }),
      ...(r.vlan && { vlan: Number(r.vlan) }),
      ...(r.vrf && { vrf: r.vrf }),
      ...(r.location && { location: r.location }),
      ...(r.gateway && { gateway: r.gateway }),
      ...(r.dns_primary && { dns_primary: r.dns_primary }),
      ...(r.dns_secondary && { dns_secondary: r.dns_secondary }),
      is_pool: r.is_pool === 'true',
      scan_enabled: r.scan_enabled === 'true',
      tracked: r.tracked === 'true',
      ...(r.custom_fields && { custom_fields: JSON.parse(r.custom_fields) }),
    }));
    const answer = expectStatus(await copy.call('importSubnets', { body: { subnets: rows } }), 200);
    expect(answer.summary).toEqual({ created: 3, skipped: 0, errors: 0 });
    expect(records(await subnetsCsv(copy))).toEqual(exported);
  });
});

describe('export addresses', () => {
  it('answers a CSV download named by date with the specification’s header row, then vrf and tags', async () => {
    const api = await fresh();
    const response = await api.call('exportAddresses');
    expect(response.headers.get('content-disposition')).toMatch(/filename="addresses-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect(parseCsv(expectStatus(response, 200))).toEqual([
      [
        'ip',
        'subnet',
        'hostname',
        'mac_address',
        'description',
        'status',
        'owner',
        'ptr_record',
        'vrf',
        'tags',
        'custom_fields',
      ],
    ]);
  });

  it('writes every field with the CIDR of the address’s subnet', async () => {
    const api = await fresh();
    await createSubnet(api, '10.1.0.0/24');
    await api.call('importAddresses', {
      body: {
        addresses: [
          {
            ip: '10.1.0.5',
            subnet: '10.1.0.0/24',
            hostname: 'web',
            mac_address: '00:1a:2b:3c:4d:5e',
            description: 'front',
            status: 'reserved',
            owner: 'ops',
            ptr_record: 'web.example.com',
            tags: ['web'],
            custom_fields: { up: true },
          },
        ],
      },
    });
    expect((await addressesCsv(api))[1]).toEqual([
      '10.1.0.5',
      '10.1.0.0/24',
      'web',
      '00:1a:2b:3c:4d:5e',
      'front',
      'reserved',
      'ops',
      'web.example.com',
      '',
      'web',
      '{"up": true}',
    ]);
  });

  it('writes the VRF of the address’s subnet, empty in the global space', async () => {
    const api = await fresh();
    const vrf = expectStatus(await api.call('createVrf', { body: { name: 'corp' } }), 201);
    for (const extra of [{}, { vrf_id: vrf.id }]) {
      const subnet = await createSubnet(api, '10.1.0.0/24', extra);
      expectStatus(await api.call('createAddress', { params: { id: subnet.id }, body: { ip: '10.1.0.5' } }), 201);
    }
    expect((await addressesCsv(api)).slice(1).map((row) => [row[0], row[1], row[8]])).toEqual([
      ['10.1.0.5', '10.1.0.0/24', ''],
      ['10.1.0.5', '10.1.0.0/24', 'corp'],
    ]);
  });

  it('answers 400 naming the subnet_id that is not a uuid', async () => {
    const error = expectStatus(
      await (await fresh()).call('exportAddresses', { query: { subnet_id: '10.1.0.0/24' } }),
      400,
    );
    expect(error.error).toMatch(/subnet_id/);
  });

  it('exports only the subnet asked for, and 404 for another organisation’s', async () => {
    const api = await fresh();
    const a = await createSubnet(api, '10.1.0.0/24');
    const b = await createSubnet(api, '10.2.0.0/24');
    expectStatus(await api.call('createAddress', { params: { id: a.id }, body: { ip: '10.1.0.1' } }), 201);
    expectStatus(await api.call('createAddress', { params: { id: b.id }, body: { ip: '10.2.0.1' } }), 201);
    expect((await addressesCsv(api, a.id)).slice(1).map((row) => row[0])).toEqual(['10.1.0.1']);
    expectStatus(await (await fresh()).call('exportAddresses', { query: { subnet_id: a.id } }), 404);
  });

  it('orders rows by space and ip, past one page of the reader', async () => {
    const api = await fresh();
    const subnet = await createSubnet(api, '10.1.0.0/20');
    const ips = Array.from({ length: 2100 }, (_, i) => `10.1.${(i + 1) >> 8}.${(i + 1) & 255}`);
    for (let i = 0; i < ips.length; i += 500) {
      const batch = ips.slice(i, i + 500).reverse();
      expectStatus(await api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips: batch } }), 200);
    }
    expect((await addressesCsv(api)).slice(1).map((row) => row[0])).toEqual(ips);
  });

  it('gives back the same addresses when imported into another organisation', async () => {
    const api = await fresh();
    await createSubnet(api, '10.1.0.0/24');
    await api.call('importAddresses', {
      body: {
        addresses: [
          {
            ip: '10.1.0.5',
            subnet: '10.1.0.0/24',
            hostname: '-dash',
            owner: '@team',
            status: 'gateway',
            custom_fields: { tag: '-x', n: 1.5 },
          },
          { ip: '10.1.0.6', subnet: '10.1.0.0/24', description: 'a,b "c"', mac_address: '00:1a:2b:3c:4d:5e' },
        ],
      },
    });
    const exported = records(await addressesCsv(api));
    const copy = await fresh();
    await createSubnet(copy, '10.1.0.0/24');
    const rows = exported.map((r) =>
      Object.fromEntries(
        Object.entries(r)
          .filter(([column, value]) => value !== '' || column === 'ip')
          .map(([column, value]) => [column, column === 'custom_fields' ? JSON.parse(value) : value]),
      ),
    );
    const answer = expectStatus(await copy.call('importAddresses', { body: { addresses: rows } }), 200);
    expect(answer.summary).toEqual({ created: 2, skipped: 0, errors: 0 });
    expect(records(await addressesCsv(copy))).toEqual(exported);
  });

  it('gives back addresses of one CIDR in two spaces when the vrf cells are imported as written, empty too', async () => {
    const api = await fresh();
    const spaces = async (org: ApiClient) => {
      const vrf = expectStatus(await org.call('createVrf', { body: { name: 'corp' } }), 201);
      return {
        global: await createSubnet(org, '10.1.0.0/24'),
        corp: await createSubnet(org, '10.1.0.0/24', { vrf_id: vrf.id }),
      };
    };
    const { global, corp } = await spaces(api);
    expectStatus(await api.call('createAddress', { params: { id: global.id }, body: { ip: '10.1.0.5' } }), 201);
    expectStatus(await api.call('createAddress', { params: { id: corp.id }, body: { ip: '10.1.0.6' } }), 201);
    const exported = records(await addressesCsv(api));
    const copy = await fresh();
    await spaces(copy);
    const rows = exported.map((r) =>
      Object.fromEntries(
        Object.entries(r)
          .filter(([column, value]) => value !== '' || column === 'vrf')
          .map(([column, value]) => [column, column === 'custom_fields' ? JSON.parse(value) : value]),
      ),
    );
    const answer = expectStatus(await copy.call('importAddresses', { body: { addresses: rows } }), 200);
    expect(answer.summary).toEqual({ created: 2, skipped: 0, errors: 0 });
    expect(records(await addressesCsv(copy))).toEqual(exported);
  });
});
