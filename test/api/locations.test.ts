import { type SQL, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const createLocation = async (body: Record<string, unknown>, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('createLocation', { body }), 201);
const createVlan = async (body: Record<string, unknown>, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('createVlan', { body }), 201);
const getLocation = (id: string, api: ApiClient = t.org.api) => api.call('getLocation', { params: { id } });
const updateLocation = (id: string, body: Record<string, unknown>, api: ApiClient = t.org.api) =>
  api.call('updateLocation', { params: { id }, body });
const deleteLocation = (id: string, api: ApiClient = t.org.api) => api.call('deleteLocation', { params: { id } });
const listLocations = async (api: ApiClient = t.org.api) => expectStatus(await api.call('listLocations'), 200);
const query = async <T>(statement: SQL) =>
  ((await t.server.database.db.execute(statement)) as unknown as { rows: T[] }).rows;
const insertSubnet = (orgId: string, locationId: string | null, network: string) =>
  query(sql`INSERT INTO subnets (org_id, location_id, network) VALUES (${orgId}, ${locationId}, ${network})`);

/** Answers the 400 error for a create body, checking its status and schema. */
const refusedCreate = async (body: Record<string, unknown>) =>
  expectStatus(await t.org.api.call('createLocation', { body }), 400);

describe('locations', () => {
  it('creates a location with defaults for the optional fields', async () => {
    const location = await createLocation({ name: 'Frankfurt DC1' });
    expect(location).toMatchObject({ name: 'Frankfurt DC1', address: '' });
  });

  it('gets a location by id', async () => {
    const created = await createLocation({ name: 'get-me', address: 'Street 1' });
    expect(expectStatus(await getLocation(created.id), 200)).toEqual(created);
  });

  it('lists the organisation’s locations ordered by name', async () => {
    const own = await t.server.newOrg();
    for (const name of ['Oslo', 'Berlin', 'Madrid']) await createLocation({ name }, own.api);
    expect((await listLocations(own.api)).map((l) => l.name)).toEqual(['Berlin', 'Madrid', 'Oslo']);
  });

  it('PATCH changes only the fields given', async () => {
    const created = await createLocation({ name: 'patch-me', address: 'old' });
    const updated = expectStatus(await updateLocation(created.id, { address: 'Building 2' }), 200);
    expect(updated).toEqual({ ...created, address: 'Building 2' });
    expect(expectStatus(await getLocation(created.id), 200)).toEqual(updated);
  });

  it('deletes a location (204) and it is gone (404)', async () => {
    const created = await createLocation({ name: 'delete-me' });
    expectStatus(await deleteLocation(created.id), 204);
    expectStatus(await getLocation(created.id), 404);
  });

  it('refuses a second location with the same name (400 duplicate)', async () => {
    await createLocation({ name: 'twice' });
    const error = await refusedCreate({ name: 'twice' });
    expect(error).toEqual({ code: 'duplicate', error: 'A location named "twice" already exists' });
  });

  it('refuses a PATCH to a name already used (400 duplicate)', async () => {
    await createLocation({ name: 'taken' });
    const other = await createLocation({ name: 'renamed' });
    const error = expectStatus(await updateLocation(other.id, { name: 'taken' }), 400);
    expect(error.code).toBe('duplicate');
  });

  it('names the missing field when name is absent', async () => {
    expect((await refusedCreate({ address: 'nowhere' })).error).toMatch(/^name: /);
  });

  it('refuses an address longer than 500 characters, naming the field', async () => {
    expect((await refusedCreate({ name: 'long', address: 'x'.repeat(501) })).error).toMatch(/^address: /);
  });

  it('names an unknown field', async () => {
    expect((await refusedCreate({ name: 'x', nmae: 'y' })).error).toContain("'nmae'");
  });

  it('refuses a blank name on PATCH', async () => {
    const created = await createLocation({ name: 'no-blank' });
    const error = expectStatus(await updateLocation(created.id, { name: '  ' }), 400);
    expect(error.error).toMatch(/^name: /);
  });

  it('answers 404 for another organisation’s location, on every operation', async () => {
    const other = await t.server.newOrg();
    const theirs = await createLocation({ name: 'theirs' }, other.api);
    expectStatus(await getLocation(theirs.id), 404);
    expectStatus(await updateLocation(theirs.id, { name: 'mine' }), 404);
    expectStatus(await deleteLocation(theirs.id), 404);
    expect(expectStatus(await getLocation(theirs.id, other.api), 200)).toEqual(theirs);
  });

  it('never lists another organisation’s locations', async () => {
    const other = await t.server.newOrg();
    await createLocation({ name: 'secret' }, other.api);
    expect((await listLocations()).map((l) => l.name)).not.toContain('secret');
  });

  it('lists each location with its subnet and VLAN counts, 0 included', async () => {
    const own = await t.server.newOrg();
    const busy = await createLocation({ name: 'busy' }, own.api);
    const vlansOnly = await createLocation({ name: 'vlans-only' }, own.api);
    await createLocation({ name: 'empty' }, own.api);
    await insertSubnet(own.orgId, busy.id, '10.1.0.0/24');
    await insertSubnet(own.orgId, busy.id, '10.2.0.0/24');
    await insertSubnet(own.orgId, null, '10.3.0.0/24');
    await createVlan({ vlan_number: 10, location_id: busy.id }, own.api);
    await createVlan({ vlan_number: 20, location_id: vlansOnly.id }, own.api);
    await createVlan({ vlan_number: 30, location_id: vlansOnly.id }, own.api);
    await createVlan({ vlan_number: 40 }, own.api);
    const list = await listLocations(own.api);
    expect(list.map((l) => [l.name, l.subnet_count, l.vlan_count])).toEqual([
      ['busy', 2, 1],
      ['empty', 0, 0],
      ['vlans-only', 0, 2],
    ]);
  });

  it('deleting a location keeps its VLANs and subnets, without a location', async () => {
    const own = await t.server.newOrg();
    const location = await createLocation({ name: 'closing' }, own.api);
    const vlan = await createVlan({ vlan_number: 99, name: 'kept', location_id: location.id }, own.api);
    await insertSubnet(own.orgId, location.id, '10.9.0.0/24');
    expectStatus(await deleteLocation(location.id, own.api), 204);
    const after = expectStatus(await own.api.call('getVlan', { params: { id: vlan.id } }), 200);
    expect(after).toEqual({ ...vlan, location_id: null });
    const rows = await query(sql`SELECT location_id FROM subnets WHERE org_id = ${own.orgId}`);
    expect(rows).toEqual([{ location_id: null }]);
  });
});

describe('location plan limit', () => {
  it('allows 5 locations on the free plan through a session and refuses the sixth (402)', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    for (let i = 1; i <= 5; i++) await createLocation({ name: `site${i}` }, free.web);
    const error = expectStatus(await free.web.call('createLocation', { body: { name: 'site6' } }), 402);
    expect(error.code).toBe('plan_limit');
    expect(error.error).toContain('5 locations');
  });

  it('honours an enterprise override at its boundary', async () => {
    const enterprise = await t.server.newOrg({ plan: 'enterprise', limits: { locations: 2 } });
    await createLocation({ name: 'one' }, enterprise.api);
    await createLocation({ name: 'two' }, enterprise.api);
    const error = expectStatus(await enterprise.api.call('createLocation', { body: { name: 'three' } }), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('2 locations') });
  });

  it.each(['pro', 'teams'] as const)(
    'sets no location limit on the %s plan: a sixth location is created',
    async (plan) => {
      const org = await t.server.newOrg({ plan });
      for (let i = 1; i <= 6; i++) await createLocation({ name: `site${i}` }, org.api);
      expect(expectStatus(await org.api.call('listLocations'), 200)).toHaveLength(6);
    },
  );
});
