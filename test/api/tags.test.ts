/**
 * Tags (issue 24, part 1): the /tags routes, tags carried by subnets, addresses, VLANs, VRFs, locations and
 * folders, their limits at the boundaries, renames and deletes reaching every resource, and imports and exports.
 * The `?tag=` filters are compared with a model in tag-filters.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { TAG_NAME_MAX, TAGS_PER_RESOURCE_MAX } from '../../contract/tags.contract';
import { PLAN_LIMITS } from '../../server/modules/plans/limits';
import type { ApiClient } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer({}, { plan: 'pro' });

const tagNamed = async (api: ApiClient, name: string, extra: Record<string, unknown> = {}) =>
  expectStatus(await api.call('createTag', { body: { name, ...extra } }), 201);

/** The six tagged resources: how to create one with a body's extra fields, and the routes that read and change it. */
function taggables(api: ApiClient) {
  let n = 0;
  /** A new subnet, and an address inside it. */
  const subnetFor = async () => {
    const subnet = await createSubnet(api, `10.${60 + (n++ % 100)}.0.0/24`);
    return { id: subnet.id, ip: subnet.network.replace(/0\/24$/, '5') };
  };
  return {
    folder: {
      create: async (extra: object) =>
        api.call('createFolder', { body: { name: `folder-${n++}`, ...extra } }) as Promise<{
          status: number;
          body: unknown;
        }>,
      get: 'getFolder',
      update: 'updateFolder',
      list: 'listFolders',
    },
    location: {
      create: async (extra: object) => api.call('createLocation', { body: { name: `site-${n++}`, ...extra } }),
      get: 'getLocation',
      update: 'updateLocation',
      list: 'listLocations',
    },
    vlan: {
      create: async (extra: object) => api.call('createVlan', { body: { vlan_number: 100 + n++, ...extra } }),
      get: 'getVlan',
      update: 'updateVlan',
      list: 'listVlans',
    },
    vrf: {
      create: async (extra: object) => api.call('createVrf', { body: { name: `vrf-${n++}`, ...extra } }),
      get: 'getVrf',
      update: 'updateVrf',
      list: 'listVrfs',
    },
    subnet: {
      create: async (extra: object) =>
        api.call('createSubnet', { body: { network: `10.${60 + (n++ % 100)}.${n % 250}.0/24`, ...extra } }),
      get: 'getSubnet',
      update: 'updateSubnet',
      list: 'listSubnets',
    },
    address: {
      create: async (extra: object) => {
        const { id, ip } = await subnetFor();
        return api.call('createAddress', { params: { id }, body: { ip, ...extra } });
      },
      get: 'getAddress',
      update: 'updateAddress',
      list: null,
    },
  } as const;
}

describe('the tag routes', () => {
  it('creates a tag with a default colour, lower-cases a given one, and lists them by name', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    const plain = await tagNamed(org.api, 'zeta');
    expect(plain).toMatchObject({ name: 'zeta', colour: '#9e9e9e', description: '' });
    const coloured = await tagNamed(org.api, 'alpha', { colour: '#2E7D32', description: 'green' });
    expect(coloured).toMatchObject({ colour: '#2e7d32', description: 'green' });
    const listed = expectStatus(await org.api.call('listTags'), 200);
    expect(listed.map((tag) => tag.name)).toEqual(['alpha', 'zeta']);
    expect(expectStatus(await org.api.call('getTag', { params: { id: plain.id } }), 200)).toEqual(plain);
  });

  it('refuses a duplicate name, a comma, a bad colour, and a name past its length (400 naming the field)', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    await tagNamed(org.api, 'prod');
    for (const [body, field] of [
      [{ name: 'prod' }, 'name'],
      [{ name: 'a,b' }, 'name'],
      [{ name: '   ' }, 'name'],
      [{ name: 'x'.repeat(TAG_NAME_MAX + 1) }, 'name'],
      [{ name: 'ok', colour: 'green' }, 'colour'],
      [{ name: 'ok', colour: '#12345' }, 'colour'],
    ] as const) {
      const refused = expectStatus(await org.api.call('createTag', { body }), 400);
      expect([body, refused.error]).toEqual([body, expect.stringContaining(field)]);
    }
    expect((await tagNamed(org.api, 'x'.repeat(TAG_NAME_MAX))).name).toHaveLength(TAG_NAME_MAX);
  });

  it('holds the free plan to its tag limit: the last one passes, one more is a 402', async () => {
    const org = await t.server.newOrg({ plan: 'free' });
    const limit = PLAN_LIMITS.free.tags ?? 0;
    expect(limit).toBeGreaterThan(0);
    for (let i = 0; i < limit; i++) await tagNamed(org.web, `t${i}`);
    const refused = expectStatus(await org.web.call('createTag', { body: { name: 'one-more' } }), 402);
    expect(refused.error).toContain(`${limit} tags`);
  });

  it.each(['pro', 'teams'] as const)('sets no tag limit on the %s plan: a 21st tag is created', async (plan) => {
    const org = await t.server.newOrg({ plan });
    for (let i = 0; i <= (PLAN_LIMITS.free.tags ?? 0); i++) await tagNamed(org.api, `t${i}`);
    expect(expectStatus(await org.api.call('listTags'), 200)).toHaveLength((PLAN_LIMITS.free.tags ?? 0) + 1);
  });

  it('honours an enterprise override at its boundary', async () => {
    const org = await t.server.newOrg({ plan: 'enterprise', limits: { tags: 3 } });
    for (const name of ['a', 'b', 'c']) await tagNamed(org.api, name);
    const refused = expectStatus(await org.api.call('createTag', { body: { name: 'd' } }), 402);
    expect(refused.error).toContain("organisation's custom limit");
  });

  it('answers 404 for an unknown id, 304 for a current version, and 412 for a stale If-Match', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    const tag = await tagNamed(org.api, 'versioned');
    const missing = { id: '00000000-0000-4000-8000-000000000000' };
    expectStatus(await org.api.call('getTag', { params: missing }), 404);
    expectStatus(await org.api.call('updateTag', { params: missing, body: { colour: '#000000' } }), 404);
    expectStatus(await org.api.call('deleteTag', { params: missing }), 404);
    const read = await org.api.call('getTag', { params: { id: tag.id } });
    const etag = read.headers.get('etag') ?? '';
    expectStatus(await org.api.call('getTag', { params: { id: tag.id }, headers: { 'if-none-match': etag } }), 304);
    expectStatus(
      await org.api.call('updateTag', {
        params: { id: tag.id },
        body: { description: 'x' },
        headers: { 'if-match': etag },
      }),
      200,
    );
    expectStatus(
      await org.api.call('updateTag', {
        params: { id: tag.id },
        body: { description: 'y' },
        headers: { 'if-match': etag },
      }),
      412,
    );
    expectStatus(await org.api.call('deleteTag', { params: { id: tag.id }, headers: { 'if-match': etag } }), 412);
    expectStatus(await org.api.call('deleteTag', { params: { id: tag.id } }), 204);
    expectStatus(await org.api.call('getTag', { params: { id: tag.id } }), 404);
  });
});

describe('tags on the six resources', () => {
  it.each(['folder', 'location', 'vlan', 'vrf', 'subnet', 'address'] as const)(
    'a %s carries the tags it is given on create and update, omits them when it has none, and refuses unknown ones',
    async (kind) => {
      const org = await t.server.newOrg({ plan: 'pro' });
      await tagNamed(org.api, 'prod');
      await tagNamed(org.api, 'dmz');
      const resource = taggables(org.api)[kind];
      const bodyOf = (answer: { body: unknown }) => {
        const body = answer.body as { id: string; tags?: string[]; subnet?: { id: string; tags?: string[] } };
        return body.subnet ?? body;
      };
      const untagged = await resource.create({});
      expect(untagged.status).toBe(201);
      expect(bodyOf(untagged)).not.toHaveProperty('tags');
      const made = await resource.create({ tags: ['prod', 'dmz'] });
      expect(made.status).toBe(201);
      const { id, tags } = bodyOf(made);
      expect(tags).toEqual(['prod', 'dmz']);
      const read = await org.api.call(resource.get, { params: { id } });
      expect((read.body as { tags?: string[] }).tags).toEqual(['prod', 'dmz']);

      const changed = await org.api.call(resource.update, { params: { id }, body: { tags: ['dmz'] } });
      expect(changed.status).toBe(200);
      expect(bodyOf(changed).tags).toEqual(['dmz']);
      const cleared = await org.api.call(resource.update, { params: { id }, body: { tags: [] } });
      expect(bodyOf(cleared)).not.toHaveProperty('tags');

      for (const body of [{ tags: ['nope'] }, { tags: ['prod', 'prod'] }]) {
        const refused = await org.api.call(resource.update, { params: { id }, body });
        expect([body, refused.status, (refused.body as { error: string }).error]).toEqual([
          body,
          400,
          expect.stringContaining('tags'),
        ]);
      }
      const unknown = await resource.create({ tags: ['prod', 'nope'] });
      expect(unknown.status).toBe(400);
      expect((unknown.body as { error: string }).error).toBe('tags: the organisation has no tag named "nope"');
    },
  );

  it('keeps names that mean something in an array literal as they are: NULL, quotes, braces, backslashes', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    const names = ['NULL', 'a "quoted" tag', '{braced}', 'back\\slash', '  ', 'é ü'].filter((n) => n.trim() !== '');
    for (const name of names) await tagNamed(org.api, name);
    const folder = expectStatus(await org.api.call('createFolder', { body: { name: 'odd', tags: names } }), 201);
    expect(folder.tags).toEqual(names);
    const subnet = await createSubnet(org.api, '10.77.0.0/24', { tags: names });
    expect(subnet.tags).toEqual(names);
    for (const name of names) {
      const listed = expectStatus(await org.api.call('listFolders', { query: { tag: name } }), 200);
      expect([name, listed.map((f) => f.id)]).toEqual([name, [folder.id]]);
    }
  });

  it('a resource carries at most 20 tags: that many pass, one more is a 400', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    const names = Array.from({ length: TAGS_PER_RESOURCE_MAX + 1 }, (_, i) => `t${i}`);
    for (const name of names) await tagNamed(org.api, name);
    const subnet = await createSubnet(org.api, '10.70.0.0/24', { tags: names.slice(0, TAGS_PER_RESOURCE_MAX) });
    expect(subnet.tags).toHaveLength(TAGS_PER_RESOURCE_MAX);
    const refused = expectStatus(
      await org.api.call('updateSubnet', { params: { id: subnet.id }, body: { tags: names } }),
      400,
    );
    expect(refused.error).toContain('tags');
  });

  it('an allocated address carries the tags given, and an unknown one refuses the allocation', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    await tagNamed(org.api, 'k8s');
    const subnet = await createSubnet(org.api, '10.71.0.0/29');
    const allocated = expectStatus(
      await org.api.call('allocateAddress', { params: { id: subnet.id }, body: { count: 2, tags: ['k8s'] } }),
      201,
    );
    expect(allocated.map((a) => a.tags)).toEqual([['k8s'], ['k8s']]);
    const refused = expectStatus(
      await org.api.call('allocateAddress', { params: { id: subnet.id }, body: { tags: ['gone'] } }),
      400,
    );
    expect(refused.error).toContain('"gone"');
  });

  it('a rename reaches every resource carrying the tag, and is logged once, as the tag’s update', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    const tag = await tagNamed(org.api, 'old');
    await tagNamed(org.api, 'kept');
    const api = taggables(org.api);
    const ids: [string, string][] = [];
    for (const kind of ['folder', 'location', 'vlan', 'vrf', 'subnet', 'address'] as const) {
      const made = await api[kind].create({ tags: ['kept', 'old'] });
      const body = made.body as { id: string; subnet?: { id: string } };
      ids.push([api[kind].get, body.subnet?.id ?? body.id]);
    }
    const untouched = await createSubnet(org.api, '10.72.0.0/24', { tags: ['kept'] });
    expectStatus(await org.api.call('updateTag', { params: { id: tag.id }, body: { name: 'new' } }), 200);
    for (const [get, id] of ids) {
      const read = (await org.api.call(get as 'getFolder', { params: { id } })).body as { tags?: string[] };
      expect([get, read.tags]).toEqual([get, ['kept', 'new']]);
    }
    expect(expectStatus(await org.api.call('getSubnet', { params: { id: untouched.id } }), 200).tags).toEqual(['kept']);
    const entries = expectStatus(await org.api.call('listActivity', { query: { resource_type: 'tag' } }), 200);
    expect(entries.entries.filter((e) => e.action === 'update')).toHaveLength(1);
    expect(entries.entries.find((e) => e.action === 'update')?.changes).toEqual({ name: ['old', 'new'] });
    const refused = expectStatus(
      await org.api.call('updateTag', { params: { id: tag.id }, body: { name: 'kept' } }),
      400,
    );
    expect(refused.error).toContain('already exists');
  });

  it('a delete takes the tag off every resource carrying it', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    const tag = await tagNamed(org.api, 'doomed');
    await tagNamed(org.api, 'stays');
    const subnet = await createSubnet(org.api, '10.73.0.0/24', { tags: ['doomed', 'stays'] });
    const vlan = expectStatus(await org.api.call('createVlan', { body: { vlan_number: 7, tags: ['doomed'] } }), 201);
    expectStatus(await org.api.call('deleteTag', { params: { id: tag.id } }), 204);
    expect(expectStatus(await org.api.call('getSubnet', { params: { id: subnet.id } }), 200).tags).toEqual(['stays']);
    expect(expectStatus(await org.api.call('getVlan', { params: { id: vlan.id } }), 200)).not.toHaveProperty('tags');
    const refused = expectStatus(
      await org.api.call('updateSubnet', { params: { id: subnet.id }, body: { tags: ['doomed'] } }),
      400,
    );
    expect(refused.error).toContain('"doomed"');
  });

  it('tagging while the tag is renamed or deleted never answers 5xx and never leaves a name without its tag', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    const subnets = [];
    for (let i = 0; i < 8; i++) subnets.push(await createSubnet(org.api, `10.74.${i}.0/24`));
    for (let round = 0; round < 4; round++) {
      const tag = await tagNamed(org.api, `racy-${round}`);
      const writes = subnets.map((s) =>
        org.api.call('updateSubnet', { params: { id: s.id }, body: { tags: [tag.name] } }),
      );
      const change =
        round % 2 === 0
          ? org.api.call('deleteTag', { params: { id: tag.id } })
          : org.api.call('updateTag', { params: { id: tag.id }, body: { name: `renamed-${round}` } });
      const answers = await Promise.all([...writes, change]);
      for (const answer of answers) expect([200, 204, 400]).toContain(answer.status);
      const names = new Set(expectStatus(await org.api.call('listTags'), 200).map((tag) => tag.name));
      for (const s of expectStatus(await org.api.call('listSubnets'), 200)) {
        for (const name of s.tags ?? []) expect([name, names.has(name)]).toEqual([name, true]);
      }
    }
  });
});

describe('tags in imports and exports', () => {
  it('an import creates the tags its rows name, and the export writes them back', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    const imported = expectStatus(
      await org.api.call('importSubnets', {
        body: {
          subnets: [
            { network: '10.75.0.0/24', tags: ['lab', 'v4'] },
            { network: '10.75.1.0/24', tags: ['lab'] },
          ],
        },
      }),
      200,
    );
    expect(imported.summary).toEqual({ created: 2, skipped: 0, errors: 0 });
    expect(expectStatus(await org.api.call('listTags'), 200).map((tag) => tag.name)).toEqual(['lab', 'v4']);
    const addresses = expectStatus(
      await org.api.call('importAddresses', {
        body: { addresses: [{ ip: '10.75.0.9', subnet: '10.75.0.0/24', tags: ['printer'] }] },
      }),
      200,
    );
    expect(addresses.summary.created).toBe(1);
    const subnetCsv = await org.api.call('exportSubnets');
    const [header, first] = subnetCsv.text.trim().split('\r\n');
    expect(header?.split(',').slice(-2)).toEqual(['tags', 'custom_fields']);
    expect(first).toMatch(/,"lab,v4",$/);
    const addressCsv = await org.api.call('exportAddresses');
    expect(addressCsv.text.trim().split('\r\n')[1]).toMatch(/,printer,$/);
  });

  it('a row whose tag would pass the plan’s tag limit is an error, and the other rows import', async () => {
    const org = await t.server.newOrg({ plan: 'free', limits: { tags: 1 } });
    const imported = expectStatus(
      await org.web.call('importSubnets', {
        body: {
          subnets: [
            { network: '10.76.0.0/24', tags: ['one'] },
            { network: '10.76.1.0/24', tags: ['two'] },
          ],
        },
      }),
      200,
    );
    expect(imported.summary).toEqual({ created: 1, skipped: 0, errors: 1 });
    expect(imported.results[1]?.error).toContain('tags: Plan limit reached: 1 tags');
  });
});
