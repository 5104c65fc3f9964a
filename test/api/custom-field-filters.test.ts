/**
 * `cf_` filters of the subnet list (whole and in pages) and of a subnet's address list (first page, total, walk by
 * cursor), compared with a brute-force model over random records whose values were stored before the definitions
 * existed, many of another type than the field's (a string where an integer is defined, a date that does not
 * exist, an array …): equality typed by the definition, ranges of integers and dates, which only values of the
 * field's type pass. And the 400s naming the parameter.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { type Random, randomFrom } from '../support/random';

const t = useTestServer({}, false);

type Query = Record<string, string | number>;
type Fields = Record<string, unknown> | undefined;

/** Values stored before the definitions: of the field's type and not. */
const STORED: Record<string, unknown[]> = {
  units: [1, 2, 5, 10, -3, 0, 4.5, '4', '10', true, [5], { n: 1 }],
  up: [true, false, 'true', 1, null],
  since: ['2024-01-01', '2024-06-30', '2025-02-28', '2023-12-31', '2024-13-01', '2024-1-1', 20240101, '2024-06-30x'],
  site: ['ams1', 'fra1', 'lon1', 'AMS1', 3],
  note: ['a', 'b', '', 5, ['a']],
  free: ['x', 1],
};

const DEFINITIONS = [
  { name: 'units', type: 'integer' },
  { name: 'up', type: 'boolean' },
  { name: 'since', type: 'date' },
  { name: 'site', type: 'select', choices: ['ams1', 'fra1', 'lon1', 'par1'] },
  { name: 'note', type: 'text' },
];

/** Filter values a query may use (valid for the field's type). */
const EQUALS: Record<string, string[]> = {
  units: ['1', '5', '10', '-3', '0', '4'],
  up: ['true', 'false'],
  since: ['2024-01-01', '2024-06-30', '2025-02-28'],
  site: ['ams1', 'fra1', 'par1'],
  note: ['a', 'b', ''],
};
const BOUNDS: Record<string, string[]> = {
  units: ['-5', '0', '1', '4', '5', '11'],
  since: ['2023-12-31', '2024-01-01', '2024-06-30', '2024-12-31', '2025-12-31'],
};

/** A random set of custom fields, each key present or not. */
function randomFields(random: Random): Fields {
  const fields: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(STORED)) if (random.next() < 0.6) fields[name] = random.pick(values);
  return Object.keys(fields).length > 0 || random.next() < 0.5 ? fields : undefined;
}

function randomQuery(random: Random): Query {
  const query: Query = {};
  for (const [name, values] of Object.entries(EQUALS))
    if (random.next() < 0.2) query[`cf_${name}`] = random.pick(values);
  for (const [name, values] of Object.entries(BOUNDS)) {
    for (const op of ['gte', 'lte', 'gt', 'lt'])
      if (random.next() < 0.15) query[`cf_${name}__${op}`] = random.pick(values);
  }
  if (Object.keys(query).length === 0) query.cf_units__gte = random.pick(BOUNDS.units!);
  return query;
}

/** The model: what a record's stored fields must hold to pass the query. */
function passes(fields: Fields, query: Query): boolean {
  return Object.entries(query).every(([key, text]) => {
    if (!key.startsWith('cf_')) return true;
    const [name = '', op] = key.slice(3).split('__');
    const stored = fields?.[name];
    const wanted = String(text);
    if (op === undefined) {
      if (name === 'units') return stored === Number(wanted);
      if (name === 'up') return stored === (wanted === 'true');
      return stored === wanted;
    }
    let value: number | string;
    let bound: number | string;
    if (name === 'units') {
      if (typeof stored !== 'number' || !Number.isInteger(stored)) return false;
      [value, bound] = [stored, Number(wanted)];
    } else {
      if (typeof stored !== 'string' || !/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(stored)) return false;
      [value, bound] = [stored, wanted];
    }
    return op === 'gte' ? value >= bound : op === 'lte' ? value <= bound : op === 'gt' ? value > bound : value < bound;
  });
}

async function defineAll(api: ApiClient, kind: string) {
  for (const definition of DEFINITIONS) {
    expectStatus(await api.call('createCustomField', { body: { kind, ...definition } }), 201);
  }
}

describe('cf_ filters against the model', () => {
  it.each([1, 2, 3])(
    'seed %i: the subnet list, whole and walked in pages, lists what the model does',
    async (seed) => {
      const random = randomFrom(seed);
      const { api } = await t.server.newOrg({ plan: 'pro' });
      for (let i = 0; i < 40; i++) {
        const custom_fields = randomFields(random);
        await createSubnet(api, `10.${100 + seed}.${i}.0/24`, custom_fields ? { custom_fields } : {});
      }
      await defineAll(api, 'subnet');
      const all = expectStatus(await api.call('listSubnets'), 200);
      let found = 0;
      for (let round = 0; round < 25; round++) {
        const query = randomQuery(random);
        const expected = all.filter((s) => passes(s.custom_fields, query)).map((s) => s.network);
        if (expected.length > 0) found++;
        const whole = expectStatus(await api.call('listSubnets', { query }), 200);
        expect([query, whole.map((s) => s.network)]).toEqual([query, expected]);
        const limit = random.int(1, 9);
        const walked: string[] = [];
        let cursor: string | null = null;
        do {
          const page: ApiResponse<'listSubnets'> = await api.call('listSubnets', {
            query: { ...query, limit, ...(cursor ? { cursor } : {}) },
          });
          walked.push(...expectStatus(page, 200).map((s) => s.network));
          cursor = page.headers.get('next-cursor');
        } while (cursor !== null);
        expect([query, walked]).toEqual([query, expected]);
      }
      // The queries are not all empty-handed.
      expect(found).toBeGreaterThan(5);
    },
    120_000,
  );

  it.each([1, 2, 3])(
    'seed %i: a subnet’s address list, its total and a walk by cursor list what the model does',
    async (seed) => {
      const random = randomFrom(seed + 10);
      const { api } = await t.server.newOrg({ plan: 'pro' });
      const subnet = await createSubnet(api, `10.110.${seed}.0/24`);
      for (let host = 1; host <= 50; host++) {
        const custom_fields = randomFields(random);
        const body = { ip: `10.110.${seed}.${host}`, ...(custom_fields ? { custom_fields } : {}) };
        expectStatus(await api.call('createAddress', { params: { id: subnet.id }, body }), 201);
      }
      await defineAll(api, 'address');
      const list = (query: Query) => api.call('listSubnetAddresses', { params: { id: subnet.id }, query });
      const all = expectStatus(await list({}), 200);
      let found = 0;
      for (let round = 0; round < 25; round++) {
        const query = randomQuery(random);
        const expected = all.filter((a) => passes(a.custom_fields, query)).map((a) => a.ip);
        if (expected.length > 0) found++;
        const first = await list(query);
        expect([query, expectStatus(first, 200).map((a) => a.ip)]).toEqual([query, expected]);
        expect(first.headers.get('x-total-count')).toBe(String(expected.length));
        const limit = random.int(1, 7);
        const walked: string[] = [];
        let cursor: string | null = null;
        do {
          const page: ApiResponse<'listSubnetAddresses'> = await list({
            ...query,
            limit,
            ...(cursor ? { cursor } : {}),
          });
          walked.push(...expectStatus(page, 200).map((a) => a.ip));
          cursor = page.headers.get('next-cursor');
        } while (cursor !== null);
        expect([query, walked]).toEqual([query, expected]);
      }
      expect(found).toBeGreaterThan(5);
    },
    120_000,
  );

  it('refuses a field of no definition, a value not of the type, a range on other types and unknown parameters (400 naming it)', async () => {
    const { api } = await t.server.newOrg({ plan: 'pro' });
    const subnet = await createSubnet(api, '10.120.0.0/24');
    await defineAll(api, 'subnet');
    await defineAll(api, 'address');
    const cases: [Query, string][] = [
      [{ cf_rack: '1' }, 'cf_rack: no custom field rack is defined for kind'],
      [{ cf_units: 'four' }, 'cf_units: must be an integer'],
      [{ cf_units: '1.5' }, 'cf_units: must be an integer'],
      [{ cf_units__gte: '99999999999999999' }, 'cf_units__gte: must be an integer'],
      [{ cf_up: 'yes' }, 'cf_up: must be true or false'],
      [{ cf_since__lt: '2024-02-30' }, 'cf_since__lt: must be a date'],
      [{ cf_site: 'mad1' }, 'cf_site: must be one of'],
      [{ cf_note__gte: 'a' }, 'cf_note__gte: ranges are for integer and date fields'],
      [{ cf_units__ne: '1' }, 'cf_units__ne: '],
      [{ cf_Units: '1' }, 'cf_Units: not a parameter of this list'],
      [{ colour: 'red' }, 'colour: not a parameter of this list'],
    ];
    for (const [query, message] of cases) {
      for (const answer of [
        await api.call('listSubnets', { query }),
        await api.call('listSubnets', { query: { ...query, limit: 5 } }),
        await api.call('listSubnetAddresses', { params: { id: subnet.id }, query }),
      ]) {
        const refused = expectStatus(answer, 400);
        expect([query, refused.error]).toEqual([query, expect.stringContaining(message)]);
      }
    }
    // An address list of another organisation's subnet is a 404 whatever its filters.
    const other = await t.server.newOrg({ plan: 'pro' });
    await defineAll(other.api, 'address');
    const missing = other.api.call('listSubnetAddresses', { params: { id: subnet.id }, query: { cf_units: '1' } });
    expectStatus(await missing, 404);
  });
});
