import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const createVlan = async (body: Record<string, unknown>, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('createVlan', { body }), 201);
const createLocation = async (name: string, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('createLocation', { body: { name } }), 201);
const getVlan = (id: string, api: ApiClient = t.org.api) => api.call('getVlan', { params: { id } });
const updateVlan = (id: string, body: Record<string, unknown>, api: ApiClient = t.org.api) =>
  api.call('updateVlan', { params: { id }, body });
const listVlans = async (api: ApiClient = t.org.api) => expectStatus(await api.call('listVlans'), 200);
const query = async <T>(statement: SQL) =>
  ((await t.server.database.db.execute(statement)) as unknown as { rows: T[] }).rows;
const insertSubnet = (orgId: string, vlanId: string | null, network: string) =>
  query(sql`INSERT INTO subnets (org_id, vlan_id, network) VALUES (${orgId}, ${vlanId}, ${network})`);

/** Answers the 400 error for a create body, checking its status and schema. */
const refusedCreate = async (body: Record<string, unknown>) =>
  expectStatus(await t.org.api.call('createVlan', { body }), 400);

describe('VLANs', () => {
  it('creates a VLAN with defaults for the optional fields', async () => {
    const vlan = await createVlan({ vlan_number: 100 });
    expect(vlan).toMatchObject({ vlan_number: 100, name: '', description: '', location_id: null });
  });

  it('gets a VLAN by id', async () => {
    const created = await createVlan({ vlan_number: 101, name: 'servers', description: 'd' });
    expect(expectStatus(await getVlan(created.id), 200)).toEqual(created);
  });

  it('lists the organisation’s VLANs ordered by number', async () => {
    const own = await t.server.newOrg();
    for (const n of [300, 5, 42]) await createVlan({ vlan_number: n }, own.api);
    expect((await listVlans(own.api)).map((v) => v.vlan_number)).toEqual([5, 42, 300]);
  });

  it('PATCH changes only the fields given', async () => {
    const created = await createVlan({ vlan_number: 102, name: 'keep', description: 'keep too' });
    const updated = expectStatus(await updateVlan(created.id, { vlan_number: 103 }), 200);
    expect(updated).toEqual({ ...created, vlan_number: 103 });
    expect(expectStatus(await getVlan(created.id), 200)).toEqual(updated);
  });

  it('deletes a VLAN (204) and it is gone (404)', async () => {
    const created = await createVlan({ vlan_number: 104 });
    expectStatus(await t.org.api.call('deleteVlan', { params: { id: created.id } }), 204);
    expectStatus(await getVlan(created.id), 404);
  });

  it('deleting a VLAN keeps its subnets, without a VLAN', async () => {
    const own = await t.server.newOrg();
    const vlan = await createVlan({ vlan_number: 7 }, own.api);
    await insertSubnet(own.orgId, vlan.id, '10.7.0.0/24');
    expectStatus(await own.api.call('deleteVlan', { params: { id: vlan.id } }), 204);
    const rows = await query(sql`SELECT vlan_id FROM subnets WHERE org_id = ${own.orgId}`);
    expect(rows).toEqual([{ vlan_id: null }]);
  });

  it('refuses a second VLAN with the same number (400 duplicate)', async () => {
    await createVlan({ vlan_number: 105 });
    const error = await refusedCreate({ vlan_number: 105 });
    expect(error).toEqual({ code: 'duplicate', error: 'VLAN 105 already exists in this organisation' });
  });

  it('refuses a PATCH to a number already used (400 duplicate)', async () => {
    await createVlan({ vlan_number: 106 });
    const other = await createVlan({ vlan_number: 107 });
    const error = expectStatus(await updateVlan(other.id, { vlan_number: 106 }), 400);
    expect(error.code).toBe('duplicate');
  });

  it.each([0, 4095])('refuses vlan_number %i, naming the field', async (vlan_number) => {
    const error = await refusedCreate({ vlan_number });
    expect(error).toMatchObject({ code: 'validation', error: expect.stringMatching(/^vlan_number: /) });
  });

  it.each([1, 4094])('accepts vlan_number %i at the boundary', async (vlan_number) => {
    const own = await t.server.newOrg();
    expect(await createVlan({ vlan_number }, own.api)).toMatchObject({ vlan_number });
  });

  it('refuses a PATCH to vlan_number 4095, naming the field', async () => {
    const created = await createVlan({ vlan_number: 108 });
    const error = expectStatus(await updateVlan(created.id, { vlan_number: 4095 }), 400);
    expect(error.error).toMatch(/^vlan_number: /);
  });

  it('names the missing field when vlan_number is absent', async () => {
    expect((await refusedCreate({ name: 'no number' })).error).toMatch(/^vlan_number: /);
  });

  it('names an unknown field', async () => {
    expect((await refusedCreate({ vlan_number: 109, nmae: 'y' })).error).toContain("'nmae'");
  });

  it('answers 400 naming the id for a malformed id', async () => {
    const error = expectStatus(await getVlan('not-a-uuid'), 400);
    expect(error.error).toMatch(/^id: /);
  });

  it('answers 404 for another organisation’s VLAN, on every operation', async () => {
    const other = await t.server.newOrg();
    const theirs = await createVlan({ vlan_number: 110 }, other.api);
    const params = { id: theirs.id };
    expectStatus(await t.org.api.call('getVlan', { params }), 404);
    expectStatus(await t.org.api.call('updateVlan', { params, body: { name: 'mine' } }), 404);
    expectStatus(await t.org.api.call('deleteVlan', { params }), 404);
    expect(expectStatus(await getVlan(theirs.id, other.api), 200)).toEqual(theirs);
  });

  it('never lists another organisation’s VLANs', async () => {
    const other = await t.server.newOrg();
    await createVlan({ vlan_number: 4000 }, other.api);
    expect((await listVlans()).map((v) => v.vlan_number)).not.toContain(4000);
  });

  it('lists each VLAN with its subnet count, 0 included', async () => {
    const own = await t.server.newOrg();
    const used = await createVlan({ vlan_number: 10 }, own.api);
    await createVlan({ vlan_number: 20 }, own.api);
    await insertSubnet(own.orgId, used.id, '10.1.0.0/24');
    await insertSubnet(own.orgId, used.id, '10.2.0.0/24');
    await insertSubnet(own.orgId, null, '10.3.0.0/24');
    const list = await listVlans(own.api);
    expect(list.map((v) => [v.vlan_number, v.subnet_count])).toEqual([
      [10, 2],
      [20, 0],
    ]);
  });
});

describe('VLAN location', () => {
  it('accepts a location of the caller’s organisation', async () => {
    const location = await createLocation('vlan-site');
    const vlan = await createVlan({ vlan_number: 200, location_id: location.id });
    expect(vlan.location_id).toBe(location.id);
    expect(expectStatus(await getVlan(vlan.id), 200)).toEqual(vlan);
  });

  it('refuses an unknown location_id, naming the field', async () => {
    const error = await refusedCreate({ vlan_number: 201, location_id: randomUUID() });
    expect(error.error).toMatch(/^location_id: /);
  });

  it('refuses another organisation’s location, naming the field', async () => {
    const other = await t.server.newOrg();
    const theirs = await createLocation('their-site', other.api);
    const error = await refusedCreate({ vlan_number: 202, location_id: theirs.id });
    expect(error.error).toMatch(/^location_id: /);
  });

  it('refuses another organisation’s location on PATCH, naming the field', async () => {
    const other = await t.server.newOrg();
    const theirs = await createLocation('their-site', other.api);
    const created = await createVlan({ vlan_number: 203 });
    const error = expectStatus(await updateVlan(created.id, { location_id: theirs.id }), 400);
    expect(error.error).toMatch(/^location_id: /);
    expect(expectStatus(await getVlan(created.id), 200)).toEqual(created);
  });

  it('PATCH location_id null clears the location', async () => {
    const location = await createLocation('cleared-site');
    const created = await createVlan({ vlan_number: 204, name: 'n', location_id: location.id });
    const updated = expectStatus(await updateVlan(created.id, { location_id: null }), 200);
    expect(updated).toEqual({ ...created, location_id: null });
  });
});

describe('VLAN plan limit', () => {
  it('allows 10 VLANs on the free plan through a session and refuses the eleventh (402)', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    for (let n = 1; n <= 10; n++) await createVlan({ vlan_number: n }, free.web);
    const error = expectStatus(await free.web.call('createVlan', { body: { vlan_number: 11 } }), 402);
    expect(error.code).toBe('plan_limit');
    expect(error.error).toContain('10 VLANs');
  });

  it('honours an enterprise override at its boundary', async () => {
    const enterprise = await t.server.newOrg({ plan: 'enterprise', limits: { vlans: 2 } });
    await createVlan({ vlan_number: 1 }, enterprise.api);
    await createVlan({ vlan_number: 2 }, enterprise.api);
    const error = expectStatus(await enterprise.api.call('createVlan', { body: { vlan_number: 3 } }), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('2 VLANs') });
  });

  it.each(['pro', 'teams'] as const)('sets no VLAN limit on the %s plan: an eleventh VLAN is created', async (plan) => {
    const org = await t.server.newOrg({ plan });
    for (let n = 1; n <= 11; n++) await createVlan({ vlan_number: n }, org.api);
    expect(await listVlans(org.api)).toHaveLength(11);
  });
});
