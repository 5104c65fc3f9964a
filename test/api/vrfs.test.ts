import { type SQL, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const createVrf = async (body: Record<string, unknown>, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('createVrf', { body }), 201);
const getVrf = (id: string, api: ApiClient = t.org.api) => api.call('getVrf', { params: { id } });
const updateVrf = (id: string, body: Record<string, unknown>, api: ApiClient = t.org.api) =>
  api.call('updateVrf', { params: { id }, body });
const deleteVrf = (id: string, api: ApiClient = t.org.api) => api.call('deleteVrf', { params: { id } });
const listVrfs = async (api: ApiClient = t.org.api) => expectStatus(await api.call('listVrfs'), 200);
const query = async <T>(statement: SQL) =>
  ((await t.server.database.db.execute(statement)) as unknown as { rows: T[] }).rows;
const insertSubnet = (orgId: string, vrfId: string | null, network: string) =>
  query(sql`INSERT INTO subnets (org_id, vrf_id, network) VALUES (${orgId}, ${vrfId}, ${network})`);

/** Answers the 400 error for a create body, checking its status and schema. */
const refusedCreate = async (body: Record<string, unknown>) =>
  expectStatus(await t.org.api.call('createVrf', { body }), 400);

describe('VRFs', () => {
  it('creates a VRF with defaults for the optional fields', async () => {
    const vrf = await createVrf({ name: 'blue' });
    expect(vrf).toMatchObject({ name: 'blue', rd: '', description: '' });
  });

  it('trims the name on create', async () => {
    expect(await createVrf({ name: '  padded  ' })).toMatchObject({ name: 'padded' });
  });

  it('gets a VRF by id', async () => {
    const created = await createVrf({ name: 'get-me', rd: '65000:1', description: 'd' });
    expect(expectStatus(await getVrf(created.id), 200)).toEqual(created);
  });

  it('lists the organisation’s VRFs ordered by name', async () => {
    const own = await t.server.newOrg();
    for (const name of ['charlie', 'alpha', 'bravo']) await createVrf({ name }, own.api);
    expect((await listVrfs(own.api)).map((v) => v.name)).toEqual(['alpha', 'bravo', 'charlie']);
  });

  it('PATCH changes only the fields given', async () => {
    const created = await createVrf({ name: 'patch-me', rd: '65000:2', description: 'keep' });
    const updated = expectStatus(await updateVrf(created.id, { rd: '65000:3' }), 200);
    expect(updated).toEqual({ ...created, rd: '65000:3' });
    expect(expectStatus(await getVrf(created.id), 200)).toEqual(updated);
  });

  it('deletes a VRF (204) and it is gone (404)', async () => {
    const created = await createVrf({ name: 'delete-me' });
    expectStatus(await deleteVrf(created.id), 204);
    expectStatus(await getVrf(created.id), 404);
  });

  it('refuses a second VRF with the same name (400 duplicate)', async () => {
    await createVrf({ name: 'twice' });
    const error = await refusedCreate({ name: 'twice' });
    expect(error).toEqual({ code: 'duplicate', error: 'A VRF named "twice" already exists' });
  });

  it('refuses a PATCH to a name already used (400 duplicate)', async () => {
    await createVrf({ name: 'taken' });
    const other = await createVrf({ name: 'renamed' });
    const error = expectStatus(await updateVrf(other.id, { name: 'taken' }), 400);
    expect(error).toEqual({ code: 'duplicate', error: 'A VRF named "taken" already exists' });
  });

  it('names the missing field when name is absent', async () => {
    expect((await refusedCreate({ rd: '65000:4' })).error).toMatch(/^name: /);
  });

  it('refuses a blank name, naming the field', async () => {
    expect((await refusedCreate({ name: '   ' })).error).toMatch(/^name: /);
  });

  it('refuses an rd longer than 64 characters, naming the field', async () => {
    expect((await refusedCreate({ name: 'long-rd', rd: 'x'.repeat(65) })).error).toMatch(/^rd: /);
  });

  it('names an unknown field', async () => {
    expect((await refusedCreate({ name: 'x', nmae: 'y' })).error).toContain("'nmae'");
  });

  it('refuses a blank name on PATCH', async () => {
    const created = await createVrf({ name: 'no-blank' });
    const error = expectStatus(await updateVrf(created.id, { name: '  ' }), 400);
    expect(error.error).toMatch(/^name: /);
  });

  it('answers 404 for another organisation’s VRF, on every operation', async () => {
    const other = await t.server.newOrg();
    const theirs = await createVrf({ name: 'theirs' }, other.api);
    expectStatus(await getVrf(theirs.id), 404);
    expectStatus(await updateVrf(theirs.id, { name: 'mine' }), 404);
    expectStatus(await deleteVrf(theirs.id), 404);
    expect(expectStatus(await getVrf(theirs.id, other.api), 200)).toEqual(theirs);
  });

  it('never lists another organisation’s VRFs', async () => {
    const other = await t.server.newOrg();
    await createVrf({ name: 'secret' }, other.api);
    expect((await listVrfs()).map((v) => v.name)).not.toContain('secret');
  });

  it('lists each VRF with its subnet count, 0 included', async () => {
    const own = await t.server.newOrg();
    const used = await createVrf({ name: 'used' }, own.api);
    await createVrf({ name: 'unused' }, own.api);
    await insertSubnet(own.orgId, used.id, '10.1.0.0/24');
    await insertSubnet(own.orgId, used.id, '10.2.0.0/24');
    await insertSubnet(own.orgId, null, '10.1.0.0/24');
    const list = await listVrfs(own.api);
    expect(list.map((v) => [v.name, v.subnet_count])).toEqual([
      ['unused', 0],
      ['used', 2],
    ]);
  });
});

describe('VRF in use', () => {
  it('refuses to delete a VRF a subnet uses (400 in_use), then deletes it once the subnet is gone', async () => {
    const own = await t.server.newOrg();
    const vrf = await createVrf({ name: 'busy' }, own.api);
    await insertSubnet(own.orgId, vrf.id, '10.5.0.0/16');
    const error = expectStatus(await deleteVrf(vrf.id, own.api), 400);
    expect(error.code).toBe('in_use');
    expect(expectStatus(await getVrf(vrf.id, own.api), 200)).toEqual(vrf);
    await query(sql`DELETE FROM subnets WHERE org_id = ${own.orgId} AND vrf_id = ${vrf.id}`);
    expectStatus(await deleteVrf(vrf.id, own.api), 204);
    expectStatus(await getVrf(vrf.id, own.api), 404);
  });
});

describe('VRF plan limit', () => {
  it('allows 5 VRFs on the free plan through a session and refuses the sixth (402)', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    for (let i = 1; i <= 5; i++) await createVrf({ name: `vrf${i}` }, free.web);
    const error = expectStatus(await free.web.call('createVrf', { body: { name: 'vrf6' } }), 402);
    expect(error.code).toBe('plan_limit');
    expect(error.error).toContain('5 VRFs');
  });

  it('honours an enterprise override at its boundary', async () => {
    const enterprise = await t.server.newOrg({ plan: 'enterprise', limits: { vrfs: 2 } });
    await createVrf({ name: 'one' }, enterprise.api);
    await createVrf({ name: 'two' }, enterprise.api);
    const error = expectStatus(await enterprise.api.call('createVrf', { body: { name: 'three' } }), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('2 VRFs') });
  });

  it.each(['pro', 'teams'] as const)('sets no VRF limit on the %s plan: a sixth VRF is created', async (plan) => {
    const org = await t.server.newOrg({ plan });
    for (let i = 1; i <= 6; i++) await createVrf({ name: `vrf${i}` }, org.api);
    expect(expectStatus(await org.api.call('listVrfs'), 200)).toHaveLength(6);
  });
});
