/** GET /subnets/overlaps: pairs of subnets in different spaces whose ranges meet. */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { defined } from '../support/defined';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus, type ResponseBody } from '../support/observed';

const t = useTestServer();

const create = (network: string, extra: Record<string, unknown> = {}, api: ApiClient = t.org.api) =>
  createSubnet(api, network, extra);
const vrf = async (name: string, api: ApiClient = t.org.api) =>
  expectStatus(await api.call('createVrf', { body: { name } }), 201);

describe('overlaps report', () => {
  const overlaps = async (api: ApiClient) => expectStatus(await api.call('listSubnetOverlaps'), 200);
  /** Pairs as sorted "network[@vrf]" strings with their type, independent of which side comes first. */
  const pairs = (report: ResponseBody<'listSubnetOverlaps', 200>) =>
    report
      .map((p) => {
        const side = (s: (typeof p)['subnet_a']) => `${s.network}${'vrf_name' in s ? `@${s.vrf_name}` : ''}`;
        return `${[side(p.subnet_a), side(p.subnet_b)].sort().join(' ')} ${p.type}`;
      })
      .sort();

  it('lists pairs in different spaces, duplicate or containment', async () => {
    const own = await t.server.newOrg();
    const [a, b] = [await vrf('a', own.api), await vrf('b', own.api)];
    await create('10.0.0.0/16', { vrf_id: a.id }, own.api);
    await create('10.0.5.0/24', { vrf_id: b.id }, own.api);
    await create('10.0.0.0/16', {}, own.api);
    await create('192.168.0.0/24', { vrf_id: b.id }, own.api);
    await create('2001:db8::/32', {}, own.api);
    await create('2001:db8:1::/48', { vrf_id: a.id }, own.api);
    expect(pairs(await overlaps(own.api))).toEqual([
      '10.0.0.0/16 10.0.0.0/16@a duplicate',
      '10.0.0.0/16 10.0.5.0/24@b containment',
      '10.0.0.0/16@a 10.0.5.0/24@b containment',
      '2001:db8:1::/48@a 2001:db8::/32 containment',
    ]);
  });

  it('gives each side its id, and vrf_name only outside the global space', async () => {
    const own = await t.server.newOrg();
    const inVrf = await create('10.0.0.0/24', { vrf_id: (await vrf('v', own.api)).id }, own.api);
    const global = await create('10.0.0.0/24', {}, own.api);
    const pair = defined((await overlaps(own.api))[0], 'the overlap');
    const sides = [pair.subnet_a, pair.subnet_b].sort((x, y) => ('vrf_name' in x ? 1 : 0) - ('vrf_name' in y ? 1 : 0));
    expect(sides).toEqual([
      { id: global.id, network: '10.0.0.0/24' },
      { id: inVrf.id, network: '10.0.0.0/24', vrf_name: 'v' },
    ]);
  });

  it('does not report nesting within one space', async () => {
    const own = await t.server.newOrg();
    await create('10.0.0.0/16', {}, own.api);
    await create('10.0.1.0/24', {}, own.api);
    await create('2001:db8::/32', {}, own.api);
    await create('2001:db8:1::/48', {}, own.api);
    expect(await overlaps(own.api)).toEqual([]);
  });

  it('never reports another organisation’s subnets', async () => {
    const own = await t.server.newOrg();
    const other = await t.server.newOrg();
    await create('10.0.0.0/24', { vrf_id: (await vrf('theirs', other.api)).id }, other.api);
    await create('10.0.0.0/24', {}, own.api);
    await create('10.0.0.0/24', {}, other.api);
    expect(await overlaps(own.api)).toEqual([]);
    expect(await overlaps(other.api)).toHaveLength(1);
  });
});
