/**
 * Filters of the subnet list (issue 24, part 3): VRF, VLAN, location, pool flag, containing or within a CIDR, and
 * utilization above or below a threshold, compared with a model that filters the whole unfiltered list over random
 * organisations and random filters, the whole list and its pages alike, on both databases.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../support/client';
import { subnetOf, useTestServer } from '../support/factories';
import { expectStatus, type ResponseBody } from '../support/observed';
import { type Random, randomFrom } from '../support/random';

const t = useTestServer({}, false);

type Subnet = ResponseBody<'listSubnets', 200>[number];

// The model's own IP arithmetic: an address or block as (family, first, last) in bigints.
function ipValue(ip: string): [4 | 6, bigint] {
  if (!ip.includes(':')) return [4, ip.split('.').reduce((n, p) => n * 256n + BigInt(p), 0n)];
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return [6, groups.reduce((n, g) => n * 65536n + BigInt(`0x${g}`), 0n)];
}
function block(text: string) {
  const [ip = '', prefix] = text.split('/');
  const [family, value] = ipValue(ip);
  const bits = family === 4 ? 32 : 128;
  const size = 1n << BigInt(bits - Number(prefix ?? bits));
  return { family, first: value, last: value + size - 1n };
}
const inside = (inner: string, outer: string) => {
  const a = block(inner);
  const b = block(outer);
  return a.family === b.family && a.first >= b.first && a.last <= b.last;
};

const v4 = (random: Random) => {
  const prefix = random.int(20, 29);
  const size = 2 ** (32 - prefix);
  const n = (10 << 24) | (50 << 16) | (random.int(0, 2 ** 16 / size - 1) * size);
  return `${[24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.')}/${prefix}`;
};
const v6 = (random: Random) => `2001:db8:50:${random.int(0, 15).toString(16)}::/64`;

/** A random organisation: VRFs, VLANs, locations, nested subnets of both families, some addresses. */
async function randomOrg(seed: number) {
  const random = randomFrom(seed);
  const org = await t.server.newOrg({ plan: 'pro' });
  const ok = async (answer: Promise<ApiResponse>, status: number) => {
    const got = await answer;
    expect(got.status).toBe(status);
    return got.body as { id: string };
  };
  const vrfs = [
    (await ok(org.api.call('createVrf', { body: { name: 'red' } }), 201)).id,
    (await ok(org.api.call('createVrf', { body: { name: 'blue' } }), 201)).id,
  ];
  const vlans = [
    (await ok(org.api.call('createVlan', { body: { vlan_number: 10, name: 'ten' } }), 201)).id,
    (await ok(org.api.call('createVlan', { body: { vlan_number: 20, name: 'twenty' } }), 201)).id,
  ];
  const locations = [
    (await ok(org.api.call('createLocation', { body: { name: 'north' } }), 201)).id,
    (await ok(org.api.call('createLocation', { body: { name: 'south' } }), 201)).id,
  ];
  for (let i = 0; i < 40; i++) {
    const body = {
      network: random.next() < 0.85 ? v4(random) : v6(random),
      vrf_id: random.pick([null, null, ...vrfs]),
      vlan_id: random.pick([null, ...vlans]),
      location_id: random.pick([null, ...locations]),
      is_pool: random.next() < 0.2,
      tracked: random.next() < 0.85,
    };
    const made = await org.api.call('createSubnet', { body });
    if (made.status !== 201) continue;
    const subnet = subnetOf(expectStatus(made, 201));
    const { first, last, family } = block(subnet.network);
    if (family !== 4 || last - first > 64n || random.next() < 0.3) continue;
    const count = random.int(1, Number(last - first) - 1);
    const ips = Array.from({ length: count }, (_, k) => {
      const n = Number(first) + 1 + k;
      return [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');
    });
    await org.api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips } });
  }
  return { org, random, vrfs, vlans, locations };
}

type Query = Record<string, string | number>;

/** The values of a filter that takes several separated by commas. */
const anyOf = (value: string | number) => String(value).split(',');

/** The model: the whole unfiltered list, filtered as the query asks. */
function model(all: Subnet[], q: Query) {
  return all.filter(
    (s) =>
      (q.vrf_id === undefined || anyOf(q.vrf_id).includes(s.vrf_id ?? 'global')) &&
      (q.vlan_id === undefined || anyOf(q.vlan_id).includes(s.vlan_id ?? '')) &&
      (q.location_id === undefined || anyOf(q.location_id).includes(s.location_id ?? '')) &&
      (q.is_pool === undefined || String(s.is_pool) === q.is_pool) &&
      (q.contains === undefined || inside(String(q.contains), s.network)) &&
      (q.within === undefined || inside(s.network, String(q.within))) &&
      (q.utilization_above === undefined || (s.tracked && s.utilization > Number(q.utilization_above))) &&
      (q.utilization_below === undefined || (s.tracked && s.utilization < Number(q.utilization_below))),
  );
}

/** Every subnet the query lists, in pages of `limit` following the cursors. */
async function walk(api: ApiClient, query: Query, limit: number) {
  const seen: Subnet[] = [];
  let cursor: string | null = null;
  do {
    const answer: ApiResponse = await api.call('listSubnets', {
      query: { ...query, limit, ...(cursor ? { cursor } : {}) },
    });
    seen.push(...(answer.body as Subnet[]));
    expect(answer.status).toBe(200);
    cursor = answer.headers.get('next-cursor');
  } while (cursor !== null);
  return seen;
}

describe('filters of the subnet list against the model', () => {
  it.each([1, 2, 3])(
    'seed %i: the whole list and its pages list what the model does',
    async (seed) => {
      const { org, random, vrfs, vlans, locations } = await randomOrg(seed);
      const all = expectStatus(await org.api.call('listSubnets', {}), 200);
      expect(all.length).toBeGreaterThan(20);
      for (let round = 0; round < 25; round++) {
        const query: Query = {};
        const maybe = (key: string, value: () => string | number) => {
          if (random.next() < 0.3) query[key] = value();
        };
        /** One value, or two separated by a comma. */
        const oneOrTwo = (values: string[]) =>
          [...new Set([random.pick(values), ...(random.next() < 0.4 ? [random.pick(values)] : [])])].join(',');
        maybe('vrf_id', () => oneOrTwo(['global', ...vrfs]));
        maybe('vlan_id', () => oneOrTwo(vlans));
        maybe('location_id', () => oneOrTwo(locations));
        maybe('is_pool', () => random.pick(['true', 'false']));
        maybe('contains', () => {
          const s = random.pick(all);
          return random.next() < 0.5 ? s.network : (s.network.split('/')[0] ?? '');
        });
        maybe('within', () =>
          random.pick([
            '10.50.0.0/16',
            '10.50.128.0/17',
            '10.0.0.0/8',
            '2001:db8:50::/48',
            v4(random),
            random.pick(all).network,
          ]),
        );
        maybe('utilization_above', () => random.pick([0, 0.1, 0.5]));
        maybe('utilization_below', () => random.pick([0.05, 0.5, 1]));
        const expected = model(all, query).map((s) => s.id);
        const whole = expectStatus(await org.api.call('listSubnets', { query }), 200);
        expect([query, whole.map((s) => s.id)]).toEqual([query, expected]);
        const paged = await walk(org.api, query, random.int(1, 9));
        expect([query, paged.map((s) => s.id)]).toEqual([query, expected]);
      }
    },
    120_000,
  );

  it('refuses a malformed CIDR, host bits, and a threshold outside 0 to 1, naming the parameter (400)', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    for (const [query, field] of [
      [{ contains: 'nonsense' }, 'contains'],
      [{ within: '10.0.0.1/8' }, 'within'],
      [{ within: '10.0.0.1' }, 'within'],
      [{ utilization_above: 1.5 }, 'utilization_above'],
      [{ utilization_below: -0.1 }, 'utilization_below'],
      [{ vrf_id: 'nowhere' }, 'vrf_id'],
      [{ vlan_id: '00000000-0000-4000-8000-000000000000,global' }, 'vlan_id'],
      [{ is_pool: 'yes' }, 'is_pool'],
    ] as const) {
      const refused = expectStatus(await org.api.call('listSubnets', { query }), 400);
      expect([field, refused.error]).toEqual([field, expect.stringContaining(field)]);
    }
    for (const query of [{ utilization_above: 0 }, { utilization_below: 1 }, { contains: '10.0.0.1' }] as Query[]) {
      expectStatus(await org.api.call('listSubnets', { query }), 200);
    }
  });
});
