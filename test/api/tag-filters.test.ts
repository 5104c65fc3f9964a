/**
 * `?tag=` and `?tag_match=` on the lists of the six tagged resources (issue 24, parts 1 and 3), compared with a
 * model that filters each unfiltered list over random organisations and random filters: any-of and all-of, names
 * repeated or separated by commas, names no resource carries; the subnet list whole and in pages, a subnet's
 * addresses in pages, with the other filters too. On both databases.
 */
import { describe, expect, it } from 'vitest';
import type { ApiResponse } from '../support/client';
import { subnetOf, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { type Random, randomFrom } from '../support/random';

const t = useTestServer({}, false);

const NAMES = ['red', 'green', 'blue', 'amber', 'grey', 'never-used'];

/** Some of the names (none, often), each once. */
const someTags = (random: Random) =>
  [...new Set(Array.from({ length: random.int(0, 3) }, () => random.pick(NAMES.slice(0, 5))))].filter(
    () => random.next() < 0.8,
  );

type Tagged = { id: string; tags?: string[]; status?: string };

async function randomOrg(seed: number) {
  const random = randomFrom(seed);
  const org = await t.server.newOrg({ plan: 'pro' });
  for (const name of NAMES) expectStatus(await org.api.call('createTag', { body: { name } }), 201);
  for (let i = 0; i < 8; i++) {
    expectStatus(await org.api.call('createFolder', { body: { name: `f${i}`, tags: someTags(random) } }), 201);
    expectStatus(await org.api.call('createLocation', { body: { name: `l${i}`, tags: someTags(random) } }), 201);
    expectStatus(await org.api.call('createVlan', { body: { vlan_number: 10 + i, tags: someTags(random) } }), 201);
    expectStatus(await org.api.call('createVrf', { body: { name: `v${i}`, tags: someTags(random) } }), 201);
  }
  for (let i = 0; i < 30; i++) {
    const body = { network: `10.80.${i}.0/${random.pick([24, 25, 26])}`, tags: someTags(random) };
    subnetOf(expectStatus(await org.api.call('createSubnet', { body }), 201));
  }
  const home = subnetOf(
    expectStatus(
      await org.api.call('createSubnet', { body: { network: '10.81.0.0/24', tags: someTags(random) } }),
      201,
    ),
  );
  for (let i = 1; i <= 60; i++) {
    const body = {
      ip: `10.81.0.${i}`,
      status: random.pick(['assigned', 'reserved', 'd-dhcp'] as const),
      ...(random.next() < 0.7 ? { tags: someTags(random) } : {}),
    };
    expectStatus(await org.api.call('createAddress', { params: { id: home.id }, body }), 201);
  }
  return { org, random, home };
}

type Query = Record<string, string | string[] | number>;

/** The model: what a list filtered by `query`'s tags holds, from the unfiltered list. */
function model<T extends Tagged>(all: T[], query: Query): T[] {
  const given = query.tag === undefined ? [] : [query.tag].flat().flatMap((text) => String(text).split(','));
  const names = given.map((name) => name.trim());
  const carries = (item: T, name: string) => (item.tags ?? []).includes(name);
  return all.filter(
    (item) =>
      (query.tag === undefined ||
        (query.tag_match === 'all' ? names.every((n) => carries(item, n)) : names.some((n) => carries(item, n)))) &&
      (query.status === undefined || item.status === query.status),
  );
}

/** A random tag filter: one to three names, repeated or separated by commas, any-of or all-of. */
function randomTagQuery(random: Random): Query {
  const names = Array.from({ length: random.int(1, 3) }, () => random.pick(NAMES));
  const query: Query = { tag: random.next() < 0.5 ? names : names.join(',') };
  if (random.next() < 0.6) query.tag_match = random.pick(['any', 'all']);
  return query;
}

/** Every item a cursor-paged list answers, following `Next-Cursor`. */
async function walk(call: (cursor: string | null) => Promise<ApiResponse>) {
  const seen: Tagged[] = [];
  let cursor: string | null = null;
  do {
    const answer = await call(cursor);
    expect(answer.status).toBe(200);
    seen.push(...(answer.body as Tagged[]));
    cursor = answer.headers.get('next-cursor');
  } while (cursor !== null);
  return seen;
}

describe('tag filters against the model', () => {
  it.each([1, 2, 3])(
    'seed %i: every tagged list, whole and in pages, lists what the model does',
    async (seed) => {
      const { org, random, home } = await randomOrg(seed);
      const lists = ['listFolders', 'listLocations', 'listVlans', 'listVrfs', 'listSubnets'] as const;
      const everything = new Map<string, Tagged[]>();
      for (const list of lists) everything.set(list, (await org.api.call(list)).body as Tagged[]);
      const addresses = (await org.api.call('listSubnetAddresses', { params: { id: home.id } })).body as Tagged[];
      expect(addresses).toHaveLength(60);
      expect(addresses.filter((a) => a.tags).length).toBeGreaterThan(10);
      for (let round = 0; round < 12; round++) {
        const query = randomTagQuery(random);
        for (const list of lists) {
          const expected = model(everything.get(list)!, query).map((item) => item.id);
          const answer = await org.api.call(list, { query });
          expect([list, query, answer.status]).toEqual([list, query, 200]);
          expect([list, query, (answer.body as Tagged[]).map((item) => item.id)]).toEqual([list, query, expected]);
        }
        const limit = random.int(1, 7);
        const subnetPages = await walk((cursor) =>
          org.api.call('listSubnets', { query: { ...query, limit, ...(cursor ? { cursor } : {}) } }),
        );
        const subnets = model(everything.get('listSubnets')!, query).map((s) => s.id);
        expect([query, subnetPages.map((s) => s.id)]).toEqual([query, subnets]);

        const withStatus = random.next() < 0.4 ? { ...query, status: random.pick(['assigned', 'reserved']) } : query;
        const addressPages = await walk((cursor) =>
          org.api.call('listSubnetAddresses', {
            params: { id: home.id },
            query: { ...withStatus, limit: random.int(1, 25), ...(cursor ? { cursor } : {}) },
          }),
        );
        const expected = model(addresses, withStatus).map((a) => a.id);
        expect([withStatus, addressPages.map((a) => a.id)]).toEqual([withStatus, expected]);
        const total = await org.api.call('listSubnetAddresses', { params: { id: home.id }, query: withStatus });
        expect(Number(total.headers.get('x-total-count'))).toBe(expected.length);
      }
    },
    120_000,
  );

  it('refuses an empty tag name, a name past its length, a bad tag_match and too many names (400 naming it)', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    const subnet = subnetOf(
      expectStatus(await org.api.call('createSubnet', { body: { network: '10.82.0.0/24' } }), 201),
    );
    const calls = [
      (query: Query) => org.api.call('listFolders', { query }),
      (query: Query) => org.api.call('listLocations', { query }),
      (query: Query) => org.api.call('listVlans', { query }),
      (query: Query) => org.api.call('listVrfs', { query }),
      (query: Query) => org.api.call('listSubnets', { query }),
      (query: Query) => org.api.call('listSubnetAddresses', { params: { id: subnet.id }, query }),
    ];
    for (const call of calls) {
      for (const [query, field] of [
        [{ tag: 'a,,b' }, 'tag'],
        [{ tag: 'x'.repeat(51) }, 'tag'],
        [{ tag: Array.from({ length: 21 }, (_, i) => `t${i}`) }, 'tag'],
        [{ tag: 'a', tag_match: 'some' }, 'tag_match'],
      ] as const) {
        const refused = await call(query as Query);
        expect([query, refused.status]).toEqual([query, 400]);
        const { error } = expectStatus(refused, 400 as never) as { error: string };
        expect([query, error]).toEqual([query, expect.stringContaining(field)]);
      }
      const passing = await call({ tag: Array.from({ length: 20 }, (_, i) => `t${i}`), tag_match: 'all' });
      expect(passing.status).toBe(200);
    }
  });
});
