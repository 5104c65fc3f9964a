/** Batch create, update and delete of addresses, and the plan's address limit. */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { addressHelpers, type Body } from '../support/address-helpers';
import type { ApiClient } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const { createSubnet, fresh, create, created, batched, batchRefused, list, getAddress, range, populated } =
  addressHelpers(t);

describe('batch-create addresses', () => {
  it('creates with status reserved by default and answers the count', async () => {
    const { subnet, api } = await fresh();
    const result = await batched(subnet.id, ['10.0.0.1', '10.0.0.2'], api);
    expect(result).toEqual({ created: 2 });
    const items = (await list(subnet.id, api)).items.map((a) => `${a.ip} ${a.status}`);
    expect(items).toEqual(['10.0.0.1 reserved', '10.0.0.2 reserved']);
  });

  it('creates with the given status', async () => {
    const { subnet, api } = await fresh();
    await batched(subnet.id, ['10.0.0.1'], api, { status: 'd-dhcp' });
    expect((await list(subnet.id, api)).items[0]?.status).toBe('d-dhcp');
  });

  it('accepts 500 ips and refuses 501, naming ips', async () => {
    const { subnet, api } = await fresh('10.0.0.0/22');
    const ips = range('10.0.0.1', 501);
    const error = await batchRefused(subnet.id, ips, api, 400);
    expect(error.error).toMatch(/^ips: /);
    expect(await batched(subnet.id, ips.slice(0, 500), api)).toEqual({ created: 500 });
  });

  it.each([
    ['outside the subnet', '10.0.1.1', /10\.0\.1\.1 is outside/],
    ['the network address', '10.0.0.0', /10\.0\.0\.0 is the network/],
    ['not an ip', '10.0.0.999', /^ips\.1: /],
    ['of the other family', '2001:db8::1', /2001:db8::1/],
  ])('refuses the whole batch when one ip is %s, naming it', async (_, bad, message) => {
    const { subnet, api } = await fresh();
    const error = await batchRefused(subnet.id, ['10.0.0.1', bad, '10.0.0.2'], api, 400);
    expect(error.error).toMatch(message);
    expect((await list(subnet.id, api)).total).toBe('0');
  });

  it('refuses the whole batch when one ip lies in a child subnet, naming the child', async () => {
    const { subnet, api } = await fresh('10.0.0.0/16');
    await createSubnet('10.0.9.0/24', api);
    const error = await batchRefused(subnet.id, ['10.0.1.1', '10.0.9.1'], api, 400);
    expect(error.error).toContain('10.0.9.0/24');
    expect((await list(subnet.id, api)).total).toBe('0');
  });

  it('skips ips already assigned and leaves them unchanged', async () => {
    const { subnet, api } = await fresh();
    const existing = await created(subnet.id, { ip: '10.0.0.5', owner: 'kept' }, api);
    const result = await batched(subnet.id, ['10.0.0.5', '10.0.0.6', '10.0.0.7'], api);
    expect(result).toEqual({ created: 2 });
    expect(expectStatus(await getAddress(existing.id, api), 200)).toEqual(existing);
  });

  it('counts an ip given twice in one request (in any spelling) once', async () => {
    const { subnet, api } = await fresh('2001:db8::/64');
    const ips = ['2001:db8::5', '2001:DB8:0::5', '2001:db8::5', '2001:db8::6'];
    expect(await batched(subnet.id, ips, api)).toEqual({ created: 2 });
    expect((await list(subnet.id, api)).total).toBe('2');
  });
});

describe('batch-update and batch-delete addresses', () => {
  const seed = async () => {
    const { subnet, api } = await fresh();
    await batched(subnet.id, range('10.0.0.1', 3), api);
    return { subnet, api, ids: (await list(subnet.id, api)).items.map((a) => a.id) };
  };
  const batchUpdate = (body: Body, api: ApiClient) => api.call('batchUpdateAddresses', { body });
  const batchDelete = (ids: string[], api: ApiClient) => api.call('batchDeleteAddresses', { body: { ids } });

  it('batch-update sets status and owner on the given ids only', async () => {
    const { subnet, api, ids } = await seed();
    const result = expectStatus(await batchUpdate({ ids: ids.slice(0, 2), status: 'gateway', owner: 'ops' }, api), 200);
    expect(result).toEqual({ updated: 2 });
    const items = (await list(subnet.id, api)).items.map((a) => `${a.status}/${a.owner}`);
    expect(items).toEqual(['gateway/ops', 'gateway/ops', 'reserved/']);
  });

  it('batch-update changes only the given field', async () => {
    const { subnet, api, ids } = await seed();
    expectStatus(await batchUpdate({ ids, owner: 'only-owner' }, api), 200);
    const pairs = (await list(subnet.id, api)).items.map((a) => [a.status, a.owner]);
    expect(pairs).toEqual(Array(3).fill(['reserved', 'only-owner']));
  });

  it('batch-update refuses a body with neither status nor owner', async () => {
    const { api, ids } = await seed();
    expect(expectStatus(await batchUpdate({ ids }, api), 400).error).toMatch(/status/);
  });

  it('batch-update accepts 500 ids and refuses 501, naming ids', async () => {
    const own = await t.server.newOrg();
    const { ids } = await populated(500, own.api);
    const error = expectStatus(await batchUpdate({ ids: [...ids, randomUUID()], owner: 'x' }, own.api), 400);
    expect(error.error).toMatch(/^ids: /);
    expect(expectStatus(await batchUpdate({ ids, owner: 'x' }, own.api), 200)).toEqual({ updated: 500 });
  });

  it('batch-update neither changes nor counts another organisation’s ids', async () => {
    const mine = await seed();
    const theirs = await seed();
    const result = expectStatus(await batchUpdate({ ids: [...mine.ids, ...theirs.ids], owner: 'me' }, mine.api), 200);
    expect(result).toEqual({ updated: 3 });
    expect((await list(theirs.subnet.id, theirs.api)).items.map((a) => a.owner)).toEqual(['', '', '']);
  });

  it('batch-delete deletes the given ids and answers the count', async () => {
    const { subnet, api, ids } = await seed();
    expect(expectStatus(await batchDelete(ids.slice(1), api), 200)).toEqual({ deleted: 2 });
    expect((await list(subnet.id, api)).items.map((a) => a.id)).toEqual([ids[0]]);
  });

  it('batch-delete accepts 500 ids and refuses 501, naming ids', async () => {
    const own = await t.server.newOrg();
    const { subnet, ids } = await populated(500, own.api);
    expect(expectStatus(await batchDelete([...ids, randomUUID()], own.api), 400).error).toMatch(/^ids: /);
    expect(expectStatus(await batchDelete(ids, own.api), 200)).toEqual({ deleted: 500 });
    expect((await list(subnet.id, own.api)).total).toBe('0');
  });

  it('batch-delete neither deletes nor counts another organisation’s ids', async () => {
    const mine = await seed();
    const theirs = await seed();
    expect(
      expectStatus(await batchDelete([...theirs.ids, defined(mine.ids[0], 'an id of mine')], mine.api), 200),
    ).toEqual({ deleted: 1 });
    expect((await list(theirs.subnet.id, theirs.api)).total).toBe('3');
  });
});

describe('address plan limits', () => {
  const enterpriseOf3 = () => fresh('10.0.0.0/24', { plan: 'enterprise', limits: { addresses: 3 } });

  it('allows 1,500 addresses on the free plan through a session and refuses one more (402)', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    const { subnet } = await populated(1500, free.web);
    expect((await list(subnet.id, free.web)).total).toBe('1500');
    const error = expectStatus(await create(subnet.id, { ip: '10.0.6.1' }, free.web), 402);
    expect(error.code).toBe('plan_limit');
    expect(error.error).toContain('1500 IP addresses');
  });

  it('refuses a free-plan batch that would cross 1,500 and creates nothing', async () => {
    const free = await t.server.newOrg({ plan: 'free' });
    const { subnet } = await populated(1499, free.web);
    expect((await batchRefused(subnet.id, ['10.0.6.1', '10.0.6.2'], free.web, 402)).code).toBe('plan_limit');
    expect((await list(subnet.id, free.web)).total).toBe('1499');
  });

  it.each([
    ['pro', 5000],
    ['teams', 10_000],
  ] as const)('allows the %s plan %i addresses and refuses one more (402)', async (plan, limit) => {
    const own = await t.server.newOrg({ plan });
    const subnet = await createSubnet('10.0.0.0/18', own.api);
    // All but the last seeded in SQL (10.0.0.1 onwards), the last one and the one too many through HTTP.
    await t.server.database.db.execute(sql`
      INSERT INTO addresses (org_id, subnet_id, ip)
      SELECT ${own.orgId}, ${subnet.id}, '10.0.0.0'::inet + g FROM generate_series(1, ${limit - 1}) g`);
    const [last, tooMany] = range('10.0.0.1', limit + 1).slice(-2);
    await created(subnet.id, { ip: last }, own.api);
    const error = expectStatus(await create(subnet.id, { ip: tooMany }, own.api), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining(`${limit} IP addresses`) });
    expect((await list(subnet.id, own.api)).total).toBe(String(limit));
  });

  it('honours an enterprise override at its boundary', async () => {
    const { subnet, api } = await enterpriseOf3();
    for (const ip of range('10.0.0.1', 3)) await created(subnet.id, { ip }, api);
    const error = expectStatus(await create(subnet.id, { ip: '10.0.0.4' }, api), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('3 IP addresses') });
  });

  it('refuses an enterprise batch of 2 when 2 of 3 exist and creates nothing', async () => {
    const { subnet, api } = await enterpriseOf3();
    await batched(subnet.id, ['10.0.0.1', '10.0.0.2'], api);
    const error = await batchRefused(subnet.id, ['10.0.0.3', '10.0.0.4'], api, 402);
    expect(error.error).toContain('3 IP addresses');
    expect((await list(subnet.id, api)).total).toBe('2');
  });

  it('at the limit, a batch of only already-assigned ips is not refused', async () => {
    const { subnet, api } = await enterpriseOf3();
    await batched(subnet.id, range('10.0.0.1', 3), api);
    expect(await batched(subnet.id, ['10.0.0.2'], api)).toEqual({ created: 0 });
  });
});
