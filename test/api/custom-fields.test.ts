/**
 * The bounds of `custom_fields` (depth, size as JSON, top-level keys), each at its boundary, on the PATCH of a
 * subnet and of an address and in both imports (a row over a bound is its own error row); and values far too
 * deep for a recursive walk (or JSON.stringify) answered 400, not a stack overflow.
 */
import { describe, expect, it } from 'vitest';
import {
  CUSTOM_FIELDS_MAX_BYTES,
  CUSTOM_FIELDS_MAX_DEPTH,
  CUSTOM_FIELDS_MAX_KEYS,
} from '../../contract/common/schemas';
import type { ApiClient } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

/** JSON text of custom_fields nesting objects `depth` levels deep (the object itself is the first). */
const nestedText = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** custom_fields whose JSON is exactly `bytes` long: {"k":"xx…"}. */
const ofBytes = (bytes: number) => ({ k: 'x'.repeat(bytes - '{"k":""}'.length) });
const withKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));

let subnets = 0;
/** A new subnet (a /24 of its own) and an address in it, to patch. */
async function targets(api: ApiClient) {
  subnets++;
  const subnet = await createSubnet(api, `10.${subnets >> 8}.${subnets & 255}.0/24`);
  const ip = `10.${subnets >> 8}.${subnets & 255}.9`;
  const address = expectStatus(await api.call('createAddress', { params: { id: subnet.id }, body: { ip } }), 201);
  return { subnet, address };
}

type Patch = 'updateSubnet' | 'updateAddress';
const PATCHES: Patch[] = ['updateSubnet', 'updateAddress'];

/** PATCHes custom_fields given as JSON text (too deep for JSON.stringify) on the subnet or the address. */
async function patch(operation: Patch, fieldsJson: string) {
  const { subnet, address } = await targets(t.org.api);
  const id = operation === 'updateSubnet' ? subnet.id : address.id;
  return t.org.api.call(operation, {
    params: { id },
    rawBody: `{"custom_fields":${fieldsJson}}`,
    headers: { 'content-type': 'application/json' },
  });
}

async function refused(operation: Patch, fieldsJson: string) {
  const error = expectStatus(await patch(operation, fieldsJson), 400);
  expect(error.error).toMatch(/custom_fields/);
  return error.error;
}

describe('custom_fields bounds on PATCH', () => {
  it.each(PATCHES)('%s accepts custom_fields nested 8 deep and refuses 9, naming the field', async (operation) => {
    const accepted = expectStatus(await patch(operation, nestedText(CUSTOM_FIELDS_MAX_DEPTH)), 200);
    expect(JSON.stringify(accepted.custom_fields)).toBe(nestedText(CUSTOM_FIELDS_MAX_DEPTH));
    expect(await refused(operation, nestedText(CUSTOM_FIELDS_MAX_DEPTH + 1))).toContain('8 levels');
  });

  it.each(PATCHES)('%s counts arrays as levels: 8 deep passes, 9 is refused', async (operation) => {
    const arrays = (depth: number) => `{"a":${'['.repeat(depth - 1)}1${']'.repeat(depth - 1)}}`;
    expectStatus(await patch(operation, arrays(CUSTOM_FIELDS_MAX_DEPTH)), 200);
    await refused(operation, arrays(CUSTOM_FIELDS_MAX_DEPTH + 1));
  });

  it.each(PATCHES)('%s refuses custom_fields nested 100,000 deep with 400, not a stack overflow', async (operation) => {
    await refused(operation, nestedText(100_000));
  });

  it.each(PATCHES)('%s accepts custom_fields of 16,384 bytes as JSON and refuses 16,385', async (operation) => {
    expectStatus(await patch(operation, JSON.stringify(ofBytes(CUSTOM_FIELDS_MAX_BYTES))), 200);
    expect(await refused(operation, JSON.stringify(ofBytes(CUSTOM_FIELDS_MAX_BYTES + 1)))).toContain('16384');
  });

  it.each(PATCHES)('%s accepts 100 top-level keys in custom_fields and refuses 101', async (operation) => {
    expectStatus(await patch(operation, JSON.stringify(withKeys(CUSTOM_FIELDS_MAX_KEYS))), 200);
    expect(await refused(operation, JSON.stringify(withKeys(CUSTOM_FIELDS_MAX_KEYS + 1)))).toContain('101 keys');
  });

  it('counts the size in UTF-8 bytes: 16,384 bytes of two-byte characters pass, one more byte is refused', async () => {
    const text = (bytes: number) => `{"k":"${'é'.repeat((bytes - 8) / 2)}${(bytes - 8) % 2 ? 'x' : ''}"}`;
    expectStatus(await patch('updateSubnet', text(CUSTOM_FIELDS_MAX_BYTES)), 200);
    await refused('updateSubnet', text(CUSTOM_FIELDS_MAX_BYTES + 1));
  });
});

describe('custom_fields bounds in imports', () => {
  /** Imports three rows, the middle one with these custom_fields (JSON text), the others plain. */
  async function importWith(kind: 'subnets' | 'addresses', fieldsJson: string) {
    const api = t.org.api;
    subnets++;
    const prefix = `10.${subnets >> 8}.${subnets & 255}`;
    let rows: string[];
    if (kind === 'subnets') {
      rows = [1, 2, 3].map((i) => `{"network":"${prefix}.${i * 32}/27"`);
    } else {
      await createSubnet(api, `${prefix}.0/24`);
      rows = [1, 2, 3].map((i) => `{"ip":"${prefix}.${i}","subnet":"${prefix}.0/24"`);
    }
    const body = `{"${kind}":[${rows[0]}},${rows[1]},"custom_fields":${fieldsJson}},${rows[2]}}]}`;
    const operation = kind === 'subnets' ? 'importSubnets' : 'importAddresses';
    const answer = await api.call(operation, { rawBody: body, headers: { 'content-type': 'application/json' } });
    const { results } = expectStatus(answer, 200);
    expect([results[0]?.status, results[2]?.status]).toEqual(['created', 'created']);
    return results[1];
  }

  it.each(['subnets', 'addresses'] as const)(
    'a %s row with custom_fields nested 8 deep is created; 9 deep is an error row naming custom_fields',
    async (kind) => {
      expect(await importWith(kind, nestedText(CUSTOM_FIELDS_MAX_DEPTH))).toMatchObject({ status: 'created' });
      const row = await importWith(kind, nestedText(CUSTOM_FIELDS_MAX_DEPTH + 1));
      expect(row).toMatchObject({ status: 'error', error: expect.stringMatching(/^custom_fields: .*8 levels/) });
    },
  );

  it.each(['subnets', 'addresses'] as const)(
    'a %s row with custom_fields nested 200,000 deep is an error row, the other rows imported',
    async (kind) => {
      const row = await importWith(kind, nestedText(200_000));
      expect(row).toMatchObject({ status: 'error', error: expect.stringMatching(/^custom_fields: /) });
    },
  );

  it.each(['subnets', 'addresses'] as const)(
    'a %s row with 16,384 bytes of custom_fields is created; 16,385 is an error row',
    async (kind) => {
      const fits = await importWith(kind, JSON.stringify(ofBytes(CUSTOM_FIELDS_MAX_BYTES)));
      expect(fits).toMatchObject({ status: 'created' });
      const over = await importWith(kind, JSON.stringify(ofBytes(CUSTOM_FIELDS_MAX_BYTES + 1)));
      expect(over).toMatchObject({ status: 'error', error: expect.stringMatching(/^custom_fields: .*16384/) });
    },
  );

  it.each(['subnets', 'addresses'] as const)(
    'a %s row with 100 top-level keys in custom_fields is created; 101 is an error row',
    async (kind) => {
      expect(await importWith(kind, JSON.stringify(withKeys(CUSTOM_FIELDS_MAX_KEYS)))).toMatchObject({
        status: 'created',
      });
      const over = await importWith(kind, JSON.stringify(withKeys(CUSTOM_FIELDS_MAX_KEYS + 1)));
      expect(over).toMatchObject({ status: 'error', error: expect.stringMatching(/^custom_fields: .*101 keys/) });
    },
  );
});
