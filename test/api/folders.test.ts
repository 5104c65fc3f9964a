import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const createFolder = async (body: Record<string, unknown>, api = t.org.api) =>
  expectStatus(await api.call('createFolder', { body }), 201);

describe('folders', () => {
  it('creates a folder with defaults for the optional fields', async () => {
    const folder = await createFolder({ name: 'Datacenter A' });
    expect(folder).toMatchObject({ name: 'Datacenter A', description: '', sort_order: 0 });
  });

  it('gets a folder by id', async () => {
    const created = await createFolder({ name: 'get-me', description: 'd', sort_order: 3 });
    const folder = expectStatus(await t.org.api.call('getFolder', { params: { id: created.id } }), 200);
    expect(folder).toEqual(created);
  });

  it('lists the organisation’s folders ordered by sort_order then name', async () => {
    const own = await t.server.newOrg();
    await createFolder({ name: 'b', sort_order: 1 }, own.api);
    await createFolder({ name: 'a', sort_order: 1 }, own.api);
    await createFolder({ name: 'z', sort_order: 0 }, own.api);
    const list = expectStatus(await own.api.call('listFolders'), 200);
    expect(list.map((f) => f.name)).toEqual(['z', 'a', 'b']);
  });

  it('PATCH changes only the fields given', async () => {
    const created = await createFolder({ name: 'patch-me', description: 'keep', sort_order: 5 });
    const updated = expectStatus(
      await t.org.api.call('updateFolder', { params: { id: created.id }, body: { sort_order: 9 } }),
      200,
    );
    expect(updated).toEqual({ ...created, sort_order: 9 });
  });

  it('deletes a folder (204) and it is gone (404)', async () => {
    const created = await createFolder({ name: 'delete-me' });
    expectStatus(await t.org.api.call('deleteFolder', { params: { id: created.id } }), 204);
    expectStatus(await t.org.api.call('getFolder', { params: { id: created.id } }), 404);
  });

  it('deleting a folder keeps its subnets, unfoldered', async () => {
    const folder = await createFolder({ name: 'with-subnets' });
    const db = t.server.database.db;
    await db.execute(
      sql`INSERT INTO subnets (org_id, folder_id, network) VALUES (${t.org.orgId}, ${folder.id}, '10.9.0.0/24')`,
    );
    expectStatus(await t.org.api.call('deleteFolder', { params: { id: folder.id } }), 204);
    const rows = (await db.execute(
      sql`SELECT folder_id FROM subnets WHERE org_id = ${t.org.orgId} AND network = '10.9.0.0/24'`,
    )) as unknown as { rows: { folder_id: string | null }[] };
    expect(rows.rows).toEqual([{ folder_id: null }]);
  });

  it('refuses a second folder with the same name (400 duplicate)', async () => {
    await createFolder({ name: 'twice' });
    const error = expectStatus(await t.org.api.call('createFolder', { body: { name: 'twice' } }), 400);
    expect(error).toEqual({ code: 'duplicate', error: 'A folder named "twice" already exists' });
  });

  it('names the missing field when name is absent', async () => {
    const error = expectStatus(await t.org.api.call('createFolder', { body: { description: 'x' } }), 400);
    expect(error.error).toMatch(/^name: /);
  });

  it('names an unknown field', async () => {
    const error = expectStatus(await t.org.api.call('createFolder', { body: { name: 'x', nmae: 'y' } }), 400);
    expect(error.error).toContain("'nmae'");
  });

  it('refuses an empty name on PATCH', async () => {
    const created = await createFolder({ name: 'no-empty' });
    const error = expectStatus(
      await t.org.api.call('updateFolder', { params: { id: created.id }, body: { name: '  ' } }),
      400,
    );
    expect(error.error).toMatch(/^name: /);
  });

  it('answers 404 for another organisation’s folder, on every operation', async () => {
    const other = await t.server.newOrg();
    const theirs = await createFolder({ name: 'theirs' }, other.api);
    const params = { id: theirs.id };
    expectStatus(await t.org.api.call('getFolder', { params }), 404);
    expectStatus(await t.org.api.call('updateFolder', { params, body: { name: 'mine' } }), 404);
    expectStatus(await t.org.api.call('deleteFolder', { params }), 404);
    expectStatus(await other.api.call('getFolder', { params }), 200);
  });

  it('never lists another organisation’s folders', async () => {
    const other = await t.server.newOrg();
    await createFolder({ name: 'secret' }, other.api);
    const list = expectStatus(await t.org.api.call('listFolders'), 200);
    expect(list.map((f) => f.name)).not.toContain('secret');
  });
});

describe('folder plan limit', () => {
  it('allows 5 folders on the free plan through a session and refuses the sixth (402)', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    for (let i = 1; i <= 5; i++) await createFolder({ name: `f${i}` }, free.web);
    const error = expectStatus(await free.web.call('createFolder', { body: { name: 'f6' } }), 402);
    expect(error.code).toBe('plan_limit');
    expect(error.error).toContain('5 folders');
  });

  it('honours an enterprise override at its boundary', async () => {
    const enterprise = await t.server.newOrg({ plan: 'enterprise', limits: { folders: 2 } });
    await createFolder({ name: 'one' }, enterprise.api);
    await createFolder({ name: 'two' }, enterprise.api);
    const error = expectStatus(await enterprise.api.call('createFolder', { body: { name: 'three' } }), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('2 folders') });
  });

  it.each(['pro', 'teams'] as const)('sets no folder limit on the %s plan: a sixth folder is created', async (plan) => {
    const org = await t.server.newOrg({ plan });
    for (let i = 1; i <= 6; i++) await createFolder({ name: `f${i}` }, org.api);
    expect(expectStatus(await org.api.call('listFolders'), 200)).toHaveLength(6);
  });
});
