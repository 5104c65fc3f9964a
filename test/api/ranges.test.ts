/**
 * IP ranges inside a subnet (issue 24, part 4): create, list, update and delete; inside the subnet and of its
 * family, start before end, no two of a subnet overlapping (also when created at once), at most 100 per subnet;
 * each with its size and the records inside it; logged, in the change feed, gone with their subnet.
 */
import { describe, expect, it } from 'vitest';
import { RANGES_PER_SUBNET_MAX } from '../../contract/ranges.contract';
import type { ApiClient } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer({}, false);

const create = (api: ApiClient, subnetId: string, body: Record<string, unknown>) =>
  api.call('createSubnetRange', { params: { id: subnetId }, body: { role: 'dhcp', ...body } });
const list = (api: ApiClient, subnetId: string) => api.call('listSubnetRanges', { params: { id: subnetId } });
const fresh = () => t.server.newOrg({ plan: 'pro' });

describe('ranges', () => {
  it('are created, listed by first address with their size and records, updated and deleted', async () => {
    const { api } = await fresh();
    const subnet = await createSubnet(api, '10.70.0.0/24');
    const ips = ['10.70.0.100', '10.70.0.101', '10.70.0.150'];
    expectStatus(await api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips } }), 200);
    const late = expectStatus(await create(api, subnet.id, { start: '10.70.0.200', end: '10.70.0.209' }), 201);
    const pool = expectStatus(
      await create(api, subnet.id, { start: '10.70.0.100', end: '10.70.0.149', description: 'office' }),
      201,
    );
    expect(pool).toMatchObject({ subnet_id: subnet.id, start: '10.70.0.100', end: '10.70.0.149', size: 50, used: 2 });
    expect(pool.description).toBe('office');
    expect(expectStatus(await list(api, subnet.id), 200).map((r) => r.id)).toEqual([pool.id, late.id]);
    const moved = expectStatus(
      await api.call('updateRange', { params: { id: pool.id }, body: { end: '10.70.0.159', role: 'reserved' } }),
      200,
    );
    expect(moved).toMatchObject({ end: '10.70.0.159', role: 'reserved', size: 60, used: 3 });
    expectStatus(await api.call('deleteRange', { params: { id: pool.id } }), 204);
    expectStatus(await api.call('deleteRange', { params: { id: pool.id } }), 404);
    expect(expectStatus(await list(api, subnet.id), 200).map((r) => r.id)).toEqual([late.id]);
  });

  it('refuses an address outside the subnet, of the other family, an end before the start, naming the field', async () => {
    const { api } = await fresh();
    const subnet = await createSubnet(api, '10.71.0.0/24');
    for (const [body, message] of [
      [{ start: '10.71.1.1', end: '10.71.0.9' }, /^start: 10\.71\.1\.1 is outside 10\.71\.0\.0\/24/],
      [{ start: '10.71.0.1', end: '2001:db8::1' }, /^end: /],
      [{ start: '10.71.0.9', end: '10.71.0.1' }, /^end: 10\.71\.0\.1 is before start/],
      [{ start: 'x', end: '10.71.0.1' }, /^start: x is not an IP address/],
      [{ start: '10.71.0.1', end: '10.71.0.2', role: 'pool' }, /role/],
    ] as const) {
      expect(expectStatus(await create(api, subnet.id, body), 400).error).toMatch(message);
    }
    expectStatus(
      await create(api, '00000000-0000-4000-8000-000000000000', { start: '10.71.0.1', end: '10.71.0.2' }),
      404,
    );
    expectStatus(await list(api, '00000000-0000-4000-8000-000000000000'), 404);
    expect(expectStatus(await list(api, subnet.id), 200)).toEqual([]);
  });

  it('never overlap within a subnet, when updated either, and when 10 are created at once', async () => {
    const { api } = await fresh();
    const subnet = await createSubnet(api, '10.72.0.0/24');
    const first = expectStatus(await create(api, subnet.id, { start: '10.72.0.10', end: '10.72.0.19' }), 201);
    const overlap = expectStatus(await create(api, subnet.id, { start: '10.72.0.19', end: '10.72.0.30' }), 400);
    expect(overlap.error).toContain('overlaps the range 10.72.0.10–10.72.0.19');
    const second = expectStatus(await create(api, subnet.id, { start: '10.72.0.20', end: '10.72.0.30' }), 201);
    const grown = await api.call('updateRange', { params: { id: first.id }, body: { end: '10.72.0.20' } });
    expect(expectStatus(grown, 400).error).toContain('overlaps the range 10.72.0.20–10.72.0.30');
    // Its own old extent is no overlap.
    expectStatus(await api.call('updateRange', { params: { id: second.id }, body: { start: '10.72.0.25' } }), 200);
    const other = await createSubnet(api, '10.72.1.0/24');
    const racing = await Promise.all(
      Array.from({ length: 10 }, () => create(api, other.id, { start: '10.72.1.50', end: '10.72.1.60' })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(400)]);
  });

  it('a subnet holds 100 ranges; the next is a 400 naming the limit', async () => {
    const { api } = await fresh();
    const subnet = await createSubnet(api, '10.73.0.0/22');
    for (let i = 0; i < RANGES_PER_SUBNET_MAX; i++) {
      const start = `10.73.${Math.floor((2 * i + 1) / 256)}.${(2 * i + 1) % 256}`;
      expectStatus(await create(api, subnet.id, { start, end: start }), 201);
    }
    const refused = expectStatus(await create(api, subnet.id, { start: '10.73.3.1', end: '10.73.3.2' }), 400);
    expect(refused.error).toMatch(/^ranges: 10\.73\.0\.0\/22 already holds 100 ranges/);
  });

  it('are logged and in the change feed, go with their subnet, and another organisation’s are a 404', async () => {
    const org = await fresh();
    const other = await fresh();
    const subnet = await createSubnet(org.api, '10.74.0.0/24');
    const start = expectStatus(await org.api.call('listChanges', { query: { after: 'now' } }), 200).next_cursor;
    const range = expectStatus(await create(org.api, subnet.id, { start: '10.74.0.10', end: '10.74.0.20' }), 201);
    expectStatus(await other.api.call('updateRange', { params: { id: range.id }, body: { role: 'other' } }), 404);
    expectStatus(await other.api.call('deleteRange', { params: { id: range.id } }), 404);
    expectStatus(await other.api.call('listSubnetRanges', { params: { id: subnet.id } }), 404);
    expectStatus(await org.api.call('updateRange', { params: { id: range.id }, body: { role: 'static' } }), 200);
    const changes = expectStatus(await org.api.call('listChanges', { query: { after: start } }), 200).changes;
    expect(changes.map((c) => [c.operation, c.resource_type, c.resource_id, c.changes])).toEqual([
      [
        'create',
        'range',
        range.id,
        { subnet_id: [null, subnet.id], start: [null, '10.74.0.10'], end: [null, '10.74.0.20'], role: [null, 'dhcp'] },
      ],
      ['update', 'range', range.id, { role: ['dhcp', 'static'] }],
    ]);
    expectStatus(await org.api.call('deleteSubnet', { params: { id: subnet.id } }), 204);
    expectStatus(await org.api.call('updateRange', { params: { id: range.id }, body: { role: 'other' } }), 404);
  });
});

describe('ranges in imports and exports', () => {
  it('an export’s rows import as they stand: created, then skipped as already there; errors per row', async () => {
    const { api } = await fresh();
    const vrf = expectStatus(await api.call('createVrf', { body: { name: 'corp' } }), 201);
    const global = await createSubnet(api, '10.90.0.0/24');
    const inVrf = await createSubnet(api, '10.90.0.0/24', { vrf_id: vrf.id });
    expectStatus(await create(api, inVrf.id, { start: '10.90.0.10', end: '10.90.0.19', description: 'a, "b"' }), 201);
    expectStatus(await create(api, global.id, { start: '10.90.0.100', end: '10.90.0.199', role: 'reserved' }), 201);
    const csv = (await api.call('exportRanges')).text;
    expect(csv.trim().split('\r\n')).toEqual([
      'subnet,vrf,start,end,role,description',
      '10.90.0.0/24,,10.90.0.100,10.90.0.199,reserved,',
      '10.90.0.0/24,corp,10.90.0.10,10.90.0.19,dhcp,"a, ""b"""',
    ]);
    const one = await api.call('exportRanges', { query: { subnet_id: inVrf.id } });
    expect(one.text.trim().split('\r\n')).toHaveLength(2);
    expectStatus(await api.call('exportRanges', { query: { subnet_id: '00000000-0000-4000-8000-000000000000' } }), 404);

    const other = await fresh();
    expectStatus(await other.api.call('createVrf', { body: { name: 'corp' } }), 201);
    const target = await createSubnet(other.api, '10.90.0.0/24');
    const rows = [
      { subnet: '10.90.0.0/24', vrf: '', start: '10.90.0.100', end: '10.90.0.199', role: 'reserved' },
      { subnet: '10.90.0.0/24', vrf: '', start: '10.90.0.150', end: '10.90.0.160', role: 'dhcp' },
      { subnet: '10.90.0.0/24', vrf: 'corp', start: '10.90.0.10', end: '10.90.0.19', role: 'dhcp' },
      { subnet: '10.90.0.0/24', start: '10.90.1.1', end: '10.90.1.2', role: 'dhcp' },
      { subnet: '10.90.0.0/24', start: '10.90.0.20', end: '10.90.0.29', role: 'pool' },
      { subnet: '10.90.0.0/24', start: '10.90.0.2', end: '10.90.0.9', role: 'static', description: 'routers' },
    ];
    const imported = expectStatus(await other.api.call('importRanges', { body: { ranges: rows } }), 200);
    expect(imported.results.map((r) => [r.status, r.start])).toEqual([
      ['created', '10.90.0.100'],
      ['error', '10.90.0.150'],
      ['error', '10.90.0.10'],
      ['error', '10.90.1.1'],
      ['error', '10.90.0.20'],
      ['created', '10.90.0.2'],
    ]);
    expect(imported.results.map((r) => r.error ?? '')).toEqual([
      '',
      expect.stringContaining('overlaps the range 10.90.0.100–10.90.0.199'),
      'subnet: no subnet 10.90.0.0/24 in VRF "corp"',
      'start: 10.90.1.1 is outside 10.90.0.0/24',
      expect.stringContaining('role'),
      '',
    ]);
    expect(imported.summary).toEqual({ created: 2, skipped: 0, errors: 4 });
    const again = expectStatus(await other.api.call('importRanges', { body: { ranges: rows.slice(0, 1) } }), 200);
    expect(again.summary).toEqual({ created: 0, skipped: 1, errors: 0 });
    expect(expectStatus(await list(other.api, target.id), 200).map((r) => [r.start, r.role, r.description])).toEqual([
      ['10.90.0.2', 'static', 'routers'],
      ['10.90.0.100', 'reserved', ''],
    ]);
    const entries = expectStatus(
      await other.api.call('listActivity', { query: { resource_type: 'range', action: 'import' } }),
      200,
    );
    expect(entries.entries).toHaveLength(2);
  });

  it('an import stops a subnet at 100 ranges: later rows are errors, earlier ones kept', async () => {
    const { api } = await fresh();
    await createSubnet(api, '10.91.0.0/22');
    const rows = Array.from({ length: RANGES_PER_SUBNET_MAX + 1 }, (_, i) => ({
      subnet: '10.91.0.0/22',
      start: `10.91.${Math.floor((i * 4) / 256)}.${(i * 4) % 256 || 1}`,
      end: `10.91.${Math.floor((i * 4 + 2) / 256)}.${(i * 4 + 2) % 256}`,
      role: 'other',
    }));
    const imported = expectStatus(await api.call('importRanges', { body: { ranges: rows } }), 200);
    expect(imported.summary).toEqual({ created: RANGES_PER_SUBNET_MAX, skipped: 0, errors: 1 });
    expect(imported.results.at(-1)?.error).toContain(`${RANGES_PER_SUBNET_MAX} ranges`);
  });
});
