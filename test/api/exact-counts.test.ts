/**
 * Counts of addresses are exact integers in the JSON text for every prefix length (2^128 for ::/0), in
 * every answer that carries one, replays of idempotent requests included. The digits are read from the
 * raw text and compared with a bigint model of the usable-address rules (docs/decisions.md, Utilization).
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseJson } from '../../clients/typescript/src/json';
import type { ApiResponse } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

/** Usable addresses: 2^(bits - prefix), less network and broadcast for an IPv4 non-pool /30 or shorter. */
function modelTotal(network: string, isPool = false): bigint {
  const bits = network.includes(':') ? 128 : 32;
  const prefix = Number(network.split('/')[1]);
  const size = 2n ** BigInt(bits - prefix);
  return bits === 32 && prefix <= 30 && !isPool ? size - 2n : size;
}

const NETWORKS = [
  '::/0',
  '8000::/1',
  '2001:db8::/64',
  '2001:db8::/96',
  '2001:db8::/127',
  '2001:db8::1/128',
  '0.0.0.0/0',
  '10.0.0.0/31',
  '10.0.0.2/32',
];
const cases = NETWORKS.map((network) => [network, modelTotal(network).toString()] as const);

/** The digits of the first `"field":` in a JSON text, as written (no rounding on the way). */
const digitsOf = (text: string, field: string) => new RegExp(`"${field}":(-?\\d+)[,}]`).exec(text)?.[1];

/** Every subnet of `cases`, created in one organisation, and the answer of its creation. */
const created = new Map<string, ApiResponse<'createSubnet'>>();
const idOf = (network: string) => {
  const body = parseJson(created.get(network)!.text) as { id: string };
  return body.id;
};

beforeAll(async () => {
  for (const [network] of cases) created.set(network, await t.org.api.call('createSubnet', { body: { network } }));
});

describe('exact counts of addresses', () => {
  it.each(cases)('creates %s answering total_count %s in full', (network, total) => {
    const response = created.get(network)!;
    expectStatus(response, 201);
    expect(digitsOf(response.text, 'total_count')).toBe(total);
  });

  it.each(cases)('gets %s with total_count %s in full', async (network, total) => {
    const response = await t.org.api.call('getSubnet', { params: { id: idOf(network) } });
    expectStatus(response, 200);
    expect(digitsOf(response.text, 'total_count')).toBe(total);
  });

  it.each(cases)('lists %s with total_count %s in full', async (network, total) => {
    const response = await t.org.api.call('listSubnets');
    expectStatus(response, 200);
    // The subnet's own total_count: the first after its id (each listed subnet has one, after its id).
    const own = response.text.slice(response.text.indexOf(`"id":"${idOf(network)}"`));
    expect(digitsOf(own, 'total_count')).toBe(total);
  });

  it.each(cases)('patches %s answering total_count %s in full', async (network, total) => {
    const response = await t.org.api.call('updateSubnet', {
      params: { id: idOf(network) },
      body: { description: 'patched' },
    });
    expectStatus(response, 200);
    expect(digitsOf(response.text, 'total_count')).toBe(total);
  });

  it.each(cases)('answers the usage of %s with total %s in full', async (network, total) => {
    const response = await t.org.api.call('getSubnetUsage', { params: { id: idOf(network) } });
    expectStatus(response, 200);
    expect(digitsOf(response.text, 'total')).toBe(total);
  });

  it('counts an IPv4 /0 pool as all 2^32 addresses', async () => {
    const own = await t.server.newOrg();
    const response = await own.api.call('createSubnet', { body: { network: '0.0.0.0/0', is_pool: true } });
    expectStatus(response, 201);
    expect(digitsOf(response.text, 'total_count')).toBe(modelTotal('0.0.0.0/0', true).toString());
  });

  it('answers allocated /64s with total_count 2^64 in full', async () => {
    const own = await t.server.newOrg();
    const parent = await createSubnet(own.api, '2001:db8:1::/48');
    const response = await own.api.call('allocateSubnet', {
      params: { id: parent.id },
      body: { prefix_length: 64, count: 2 },
    });
    expectStatus(response, 201);
    const subnets = parseJson(response.text) as { total_count: bigint }[];
    expect(subnets.map((s) => s.total_count)).toEqual([2n ** 64n, 2n ** 64n]);
  });

  it('replays an idempotent create of ::/0 with the same exact digits', async () => {
    const own = await t.server.newOrg();
    const headers = { 'idempotency-key': randomUUID() };
    const call = () => own.api.call('createSubnet', { body: { network: '::/0' }, headers });
    const first = await call();
    const replay = await call();
    expectStatus(replay, 201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect([digitsOf(first.text, 'total_count'), replay.text]).toEqual([(2n ** 128n).toString(), first.text]);
  });
});
