/**
 * Typed custom fields (issue 24, part 2): definitions created, listed, read, changed and deleted with every status
 * their routes declare; each type's valid and invalid values on every write that takes `custom_fields` (a 400
 * naming `custom_fields.<name>`); required fields and defaults; the limits at their boundaries (50 definitions of
 * a kind, 100 choices, the name's 50 characters); stored values kept and readable whatever a definition says, and
 * the report of those a definition does not accept (its dry run changes nothing); import rows checked one by one.
 */
import { describe, expect, it } from 'vitest';
import { CUSTOM_FIELD_CHOICES_MAX, CUSTOM_FIELDS_PER_KIND_MAX } from '../../contract/custom-fields.contract';
import type { ApiClient } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer({}, false);
const fresh = () => t.server.newOrg({ plan: 'pro' });

const define = (api: ApiClient, body: Record<string, unknown>, query: Record<string, string> = {}) =>
  api.call('createCustomField', { body: { kind: 'subnet', type: 'text', ...body }, query });

let networks = 0;
const nextNetwork = () => {
  networks++;
  return `10.${networks >> 8}.${networks & 255}.0/24`;
};

describe('custom field definitions', () => {
  it('are created, listed by kind and name, read, changed and deleted; the stored values stay', async () => {
    const { api } = await fresh();
    const subnet = await createSubnet(api, nextNetwork(), { custom_fields: { rack_units: 'four', site: 'ams1' } });
    const rack = expectStatus(
      await define(api, { name: 'rack_units', type: 'integer', label: 'Rack units', default: 42 }),
      201,
    );
    expect(rack).toMatchObject({
      kind: 'subnet',
      name: 'rack_units',
      label: 'Rack units',
      description: '',
      type: 'integer',
      required: false,
      default: 42,
      invalid: { count: 1, examples: [{ resource_id: subnet.id, value: 'four' }] },
    });
    expect(rack).not.toHaveProperty('choices');
    const role = expectStatus(
      await define(api, { kind: 'address', name: 'role', type: 'select', choices: ['web', 'db'] }),
      201,
    );
    expect(role.invalid).toEqual({ count: 0, examples: [] });
    const list = expectStatus(await api.call('listCustomFields'), 200);
    expect(list.map((d) => `${d.kind}:${d.name}`)).toEqual(['address:role', 'subnet:rack_units']);
    expect(list[1]).not.toHaveProperty('invalid');
    expect(expectStatus(await api.call('listCustomFields', { query: { kind: 'address' } }), 200)).toHaveLength(1);
    expectStatus(await api.call('listCustomFields', { query: { kind: 'vlan' } }), 400);
    expect(expectStatus(await api.call('getCustomField', { params: { id: rack.id } }), 200)).toEqual(list[1]);

    // The stored value stays as it was, and a PATCH of other fields leaves it.
    const read = expectStatus(await api.call('getSubnet', { params: { id: subnet.id } }), 200);
    expect(read.custom_fields).toEqual({ rack_units: 'four', site: 'ams1' });
    expectStatus(await api.call('updateSubnet', { params: { id: subnet.id }, body: { name: 'kept' } }), 200);

    const changed = expectStatus(
      await api.call('updateCustomField', { params: { id: rack.id }, body: { type: 'text', default: null } }),
      200,
    );
    expect(changed).toMatchObject({ type: 'text', invalid: { count: 0, examples: [] } });
    expect(changed).not.toHaveProperty('default');
    expectStatus(await api.call('deleteCustomField', { params: { id: rack.id } }), 204);
    expectStatus(await api.call('deleteCustomField', { params: { id: rack.id } }), 404);
    expectStatus(await api.call('getCustomField', { params: { id: rack.id } }), 404);
    expectStatus(await api.call('updateCustomField', { params: { id: rack.id }, body: { label: 'x' } }), 404);
    expect(expectStatus(await api.call('getSubnet', { params: { id: subnet.id } }), 200).custom_fields).toEqual({
      rack_units: 'four',
      site: 'ams1',
    });
  });

  it('refuse a bad name, a duplicate, a select without choices, choices of another type, a default not of the type', async () => {
    const { api } = await fresh();
    expectStatus(await define(api, { name: 'site' }), 201);
    for (const [body, message] of [
      [{ name: 'Site' }, /^name: /],
      [{ name: '1site' }, /^name: /],
      [{ name: 'a'.repeat(51) }, /^name: /],
      [{ name: 'site' }, /^name: a custom field site of kind subnet already exists/],
      [{ name: 'colour', type: 'select' }, /^choices: a select needs its choices/],
      [{ name: 'colour', type: 'text', choices: ['red'] }, /^choices: only a select/],
      [{ name: 'colour', type: 'select', choices: ['red', 'red'] }, /^choices: must be distinct/],
      [{ name: 'colour', type: 'select', choices: [] }, /^choices: /],
      [{ name: 'colour', type: 'select', choices: ['red'], default: 'blue' }, /^default: must be one of "red"/],
      [{ name: 'units', type: 'integer', default: 1.5 }, /^default: must be an integer/],
      [{ name: 'units', type: 'integer', kind: 'vlan' }, /^kind: /],
      [{ name: 'units', type: 'float' }, /^type: /],
      [{ name: 'units', name2: 'x' }, /name2/],
    ] as const) {
      expect(expectStatus(await define(api, body), 400).error, JSON.stringify(body)).toMatch(message);
    }
    // The same name in the other kind is another field.
    expectStatus(await define(api, { name: 'site', kind: 'address' }), 201);
    const site = expectStatus(await api.call('listCustomFields', { query: { kind: 'subnet' } }), 200)[0]!;
    for (const body of [{ name: 'other' }, { kind: 'address' }, { type: 'select' }, { choices: ['a'] }]) {
      expectStatus(await api.call('updateCustomField', { params: { id: site.id }, body }), 400);
    }
  });

  it(`hold at most ${CUSTOM_FIELDS_PER_KIND_MAX} per kind and ${CUSTOM_FIELD_CHOICES_MAX} choices, names of 50 characters`, async () => {
    const { api } = await fresh();
    for (let i = 1; i < CUSTOM_FIELDS_PER_KIND_MAX; i++) expectStatus(await define(api, { name: `f${i}` }), 201);
    expectStatus(await define(api, { name: 'a'.repeat(50) }), 201);
    const over = expectStatus(await define(api, { name: 'one_more' }), 400);
    expect(over.error).toMatch(/^custom_fields: the organisation has 50 custom fields of kind subnet/);
    expectStatus(await define(api, { name: 'one_more', kind: 'address' }), 201);
    const choices = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);
    const select = { kind: 'address', type: 'select' };
    expectStatus(await define(api, { ...select, name: 'most', choices: choices(CUSTOM_FIELD_CHOICES_MAX) }), 201);
    const refused = expectStatus(
      await define(api, { ...select, name: 'too_many', choices: choices(CUSTOM_FIELD_CHOICES_MAX + 1) }),
      400,
    );
    expect(refused.error).toMatch(/^choices: /);
  });

  it('answer a dry run of a create or change as the real one, and change nothing', async () => {
    const { api } = await fresh();
    const subnet = await createSubnet(api, nextNetwork(), { custom_fields: { owner_team: 7 } });
    const dry = expectStatus(await define(api, { name: 'owner_team' }, { dry_run: 'true' }), 201);
    expect(dry.invalid).toEqual({ count: 1, examples: [{ resource_id: subnet.id, value: 7 }] });
    expect(expectStatus(await api.call('listCustomFields'), 200)).toEqual([]);
    const real = expectStatus(await define(api, { name: 'owner_team', type: 'integer' }), 201);
    const change = { params: { id: real.id }, body: { required: true } };
    const other = await createSubnet(api, nextNetwork());
    const report = expectStatus(await api.call('updateCustomField', { ...change, query: { dry_run: 'true' } }), 200);
    expect(report.invalid).toEqual({ count: 1, examples: [{ resource_id: other.id, value: null }] });
    expect(expectStatus(await api.call('getCustomField', { params: { id: real.id } }), 200).required).toBe(false);
  });

  it('are another organisation’s 404', async () => {
    const [a, b] = [await fresh(), await fresh()];
    const field = expectStatus(await define(a.api, { name: 'site' }), 201);
    expectStatus(await b.api.call('getCustomField', { params: { id: field.id } }), 404);
    expectStatus(await b.api.call('updateCustomField', { params: { id: field.id }, body: { label: 'x' } }), 404);
    expectStatus(await b.api.call('deleteCustomField', { params: { id: field.id } }), 404);
    expect(expectStatus(await b.api.call('listCustomFields'), 200)).toEqual([]);
    // Nor do b's writes know a's definitions.
    await createSubnet(b.api, nextNetwork(), { custom_fields: { site: 5 } });
  });
});

/** Valid and invalid values of each type. */
const VALUES: Record<string, { definition?: Record<string, unknown>; valid: unknown[]; invalid: unknown[] }> = {
  text: { valid: ['', 'R12', 'x'.repeat(1000)], invalid: [5, true, ['a'], { a: 1 }, 'x'.repeat(1001)] },
  integer: {
    valid: [0, -3, 42, Number.MAX_SAFE_INTEGER],
    invalid: [1.5, '4', true, Number.MAX_SAFE_INTEGER + 1, [1]],
  },
  boolean: { valid: [true, false], invalid: ['true', 0, 1] },
  date: {
    valid: ['2026-11-27', '2024-02-29', '0001-01-01'],
    invalid: ['2026-02-29', '2026-13-01', '27/11/2026', 20261127, '2026-1-1'],
  },
  url: {
    valid: ['https://example.com/rack?id=1', 'http://10.0.0.1:8080/'],
    invalid: ['ftp://example.com', 'example.com', 'javascript:alert(1)', 5],
  },
  ip: { valid: ['10.0.0.1', '2001:db8::1'], invalid: ['10.0.0.256', '10.0.0.0/24', 'host', 4] },
  select: { definition: { choices: ['web', 'db'] }, valid: ['web', 'db'], invalid: ['Web', 'cache', 1] },
};

describe('custom field values', () => {
  it.each(Object.entries(VALUES))(
    'of type %s are checked on subnet and address writes, naming the field',
    async (type, cases) => {
      const { api } = await fresh();
      for (const kind of ['subnet', 'address']) {
        expectStatus(await define(api, { kind, name: 'typed', type, ...cases.definition }), 201);
      }
      const home = await createSubnet(api, nextNetwork());
      const parent = await createSubnet(api, nextNetwork());
      const base = home.network.replace(/0\/24$/, '');
      let host = 100;
      const address = expectStatus(
        await api.call('createAddress', { params: { id: home.id }, body: { ip: `${base}${host++}` } }),
        201,
      );
      /** Every write that takes custom_fields, with them. */
      const writes = (custom_fields: Record<string, unknown>) => [
        () => api.call('createSubnet', { body: { network: nextNetwork(), custom_fields } }),
        () => api.call('updateSubnet', { params: { id: home.id }, body: { custom_fields } }),
        () => api.call('allocateSubnet', { params: { id: parent.id }, body: { prefix_length: 30, custom_fields } }),
        () => api.call('createAddress', { params: { id: home.id }, body: { ip: `${base}${host++}`, custom_fields } }),
        () => api.call('updateAddress', { params: { id: address.id }, body: { custom_fields } }),
        () => api.call('allocateAddress', { params: { id: home.id }, body: { custom_fields } }),
      ];
      for (const value of cases.valid) {
        for (const write of writes({ typed: value, free: [1] })) {
          const answer = await write();
          expect(answer.status, `${type} ${JSON.stringify(value)}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
        }
      }
      for (const value of cases.invalid) {
        for (const write of writes({ typed: value })) {
          const error = expectStatus(await write(), 400);
          expect(error.error, `${type} ${JSON.stringify(value)}`).toMatch(/^custom_fields\.typed: must /);
        }
      }
    },
  );

  it('give a required field its default on create, refuse one missing without a default, and its removal', async () => {
    const { api } = await fresh();
    expectStatus(
      await define(api, { kind: 'address', name: 'tier', type: 'integer', required: true, default: 3 }),
      201,
    );
    expectStatus(await define(api, { kind: 'address', name: 'note', default: 'n/a' }), 201);
    const home = await createSubnet(api, nextNetwork());
    const base = home.network.replace(/0\/24$/, '');
    const created = expectStatus(
      await api.call('createAddress', { params: { id: home.id }, body: { ip: `${base}5` } }),
      201,
    );
    expect(created.custom_fields).toEqual({ tier: 3, note: 'n/a' });
    const given = expectStatus(
      await api.call('createAddress', {
        params: { id: home.id },
        body: { ip: `${base}6`, custom_fields: { tier: 1, other: 'x' } },
      }),
      201,
    );
    expect(given.custom_fields).toEqual({ tier: 1, other: 'x', note: 'n/a' });
    const [allocated] = expectStatus(await api.call('allocateAddress', { params: { id: home.id }, body: {} }), 201);
    expect(allocated!.custom_fields).toEqual({ tier: 3, note: 'n/a' });
    for (const custom_fields of [{ note: 'x' }, { tier: null }]) {
      const error = expectStatus(
        await api.call('updateAddress', { params: { id: created.id }, body: { custom_fields } }),
        400,
      );
      expect(error.error).toBe('custom_fields.tier: is required; it cannot be removed');
    }
    expectStatus(await api.call('updateAddress', { params: { id: created.id }, body: { hostname: 'h' } }), 200);
    expectStatus(await define(api, { kind: 'subnet', name: 'site', required: true }), 201);
    const missing = expectStatus(await api.call('createSubnet', { body: { network: nextNetwork() } }), 400);
    expect(missing.error).toBe('custom_fields.site: is required');
    const withSite = await createSubnet(api, nextNetwork(), { custom_fields: { site: 'ams1' } });
    expect(withSite.custom_fields).toEqual({ site: 'ams1' });
  });

  it('are checked in import rows: a bad row is its own error, the others import with their defaults', async () => {
    const { api } = await fresh();
    expectStatus(await define(api, { name: 'units', type: 'integer', required: true }), 201);
    expectStatus(await define(api, { kind: 'address', name: 'up', type: 'boolean', default: true }), 201);
    const [a, b, c] = [nextNetwork(), nextNetwork(), nextNetwork()];
    const subnets = expectStatus(
      await api.call('importSubnets', {
        body: {
          subnets: [
            { network: a, custom_fields: { units: 4 } },
            { network: b, custom_fields: { units: 'four' } },
            { network: c },
          ],
        },
      }),
      200,
    );
    expect(subnets.results.map((r) => [r.status, r.error])).toEqual([
      ['created', undefined],
      ['error', 'custom_fields.units: must be an integer (a JSON number without a fraction, within ±2^53−1)'],
      ['error', 'custom_fields.units: is required'],
    ]);
    const base = a.replace(/0\/24$/, '');
    const addresses = expectStatus(
      await api.call('importAddresses', {
        body: {
          addresses: [
            { ip: `${base}1`, subnet: a },
            { ip: `${base}2`, subnet: a, custom_fields: { up: 'yes' } },
            { ip: `${base}3`, subnet: a, custom_fields: { up: false } },
          ],
        },
      }),
      200,
    );
    expect(addresses.results.map((r) => r.status)).toEqual(['created', 'error', 'created']);
    expect(addresses.results[1]!.error).toBe('custom_fields.up: must be true or false');
    const listed = expectStatus(
      await api.call('listSubnetAddresses', { params: { id: subnets.results[0]!.id! } }),
      200,
    );
    expect(listed.map((r) => r.custom_fields)).toEqual([{ up: true }, { up: false }]);
  });
});

describe('custom field values in the search', () => {
  it('find subnets and addresses whose text or select field equals the query, after the other matches', async () => {
    const { api } = await fresh();
    expectStatus(await define(api, { name: 'site', type: 'select', choices: ['ams-1', 'fra-1'] }), 201);
    expectStatus(await define(api, { kind: 'address', name: 'asset_tag', type: 'text' }), 201);
    expectStatus(await define(api, { kind: 'address', name: 'units', type: 'integer' }), 201);
    const named = await createSubnet(api, nextNetwork(), { name: 'ams-1 core' });
    const tagged = await createSubnet(api, nextNetwork(), { custom_fields: { site: 'ams-1' } });
    await createSubnet(api, nextNetwork(), { custom_fields: { site: 'fra-1', other: 'ams-1' } });
    const base = tagged.network.replace(/0\/24$/, '');
    const address = expectStatus(
      await api.call('createAddress', {
        params: { id: tagged.id },
        body: { ip: `${base}7`, custom_fields: { asset_tag: 'A-"42"\\' } },
      }),
      201,
    );
    const found = expectStatus(await api.call('searchIpam', { query: { q: 'ams-1' } }), 200);
    // The name's substring first, then the field's value; a key without a definition is not searched.
    expect(found.subnets.map((s) => s.id)).toEqual([named.id, tagged.id]);
    const byTag = expectStatus(await api.call('searchIpam', { query: { q: 'A-"42"\\' } }), 200);
    expect(byTag.addresses.map((a) => a.id)).toEqual([address.id]);
    expect(expectStatus(await api.call('searchIpam', { query: { q: 'a-"42"\\' } }), 200).addresses).toEqual([]);
  });
});
