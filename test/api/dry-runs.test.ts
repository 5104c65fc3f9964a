/**
 * Dry runs (`?dry_run=true`, server/modules/writes/writes.ts): subnet create, split, delete, both imports and
 * both allocations answer what the real call answers (ids aside), and write nothing: no row, no activity entry,
 * no webhook event, no Idempotency-Key kept. Checked over random series of calls against the real ones.
 */
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/types';
import type { ApiClient, ApiResponse } from '../support/client';
import { defined } from '../support/defined';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer({ config: { outboundAllowCidrs: ['127.0.0.1/32'] } });

/** Everything a write of the organisation leaves: its rows, its log, its outbox, its kept answers. */
async function footprint(orgId: string) {
  const [row] = rowsOf<
    Record<
      'subnets' | 'addresses' | 'tallied' | 'activity' | 'commits' | 'events' | 'keys' | 'vlans' | 'folders',
      number
    >
  >(
    await t.server.database.db.execute(sql`
      SELECT
        (SELECT count(*) FROM subnets WHERE org_id = ${orgId})::int AS subnets,
        (SELECT count(*) FROM addresses WHERE org_id = ${orgId})::int AS addresses,
        (SELECT coalesce(sum(n), 0) FROM address_tallies WHERE subnet_id IN
          (SELECT id FROM subnets WHERE org_id = ${orgId}))::int AS tallied,
        (SELECT count(*) FROM activity WHERE org_id = ${orgId})::int AS activity,
        (SELECT count(*) FROM change_commits WHERE org_id = ${orgId})::int AS commits,
        (SELECT count(*) FROM webhook_events WHERE org_id = ${orgId})::int AS events,
        (SELECT count(*) FROM idempotency_keys WHERE org_id = ${orgId})::int AS keys,
        (SELECT count(*) FROM vlans WHERE org_id = ${orgId})::int AS vlans,
        (SELECT count(*) FROM folders WHERE org_id = ${orgId})::int AS folders`),
  );
  return row;
}

/** An answer with every uuid and time made the same: a dry run's new ids and times are not the real call's. */
const withoutIds = (answer: ApiResponse) => ({
  status: answer.status,
  body: JSON.parse(
    answer.text
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'ID')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, 'TIME') || 'null',
  ),
});

type Call = (api: ApiClient, dryRun: boolean) => Promise<ApiResponse>;
const dry = (on: boolean) => ({ dry_run: on ? 'true' : 'false' });

/** A random call among the routes that take dry runs, given the subnets there are. */
const callOf = (
  kind: number,
  pick: number,
  n: number,
  prefix: number,
  subnets: { id: string; network: string }[],
): Call => {
  const target = subnets[pick % Math.max(1, subnets.length)];
  const third = (pick % 16) * 16;
  switch (kind) {
    case 0:
      return (api, on) =>
        api.call('createSubnet', {
          query: dry(on),
          body: { network: `10.90.${third}.0/${prefix}`, folder: 'dry', vlan: '42' } as never,
        });
    case 1:
      return (api, on) =>
        api.call('importSubnets', {
          query: dry(on),
          body: {
            subnets: [
              { network: `10.91.${third}.0/24`, folder: 'imported' },
              { network: `10.91.${third}.${n % 2 === 0 ? 0 : 128}/25` },
              { network: 'not a network' },
            ],
          },
        });
    default:
      if (!target) return (api, on) => api.call('createSubnet', { query: dry(on), body: { network: '10.92.0.0/16' } });
      return [
        (api: ApiClient, on: boolean) =>
          api.call('allocateAddress', { params: { id: target.id }, query: dry(on), body: { count: 1 + (n % 3) } }),
        (api: ApiClient, on: boolean) =>
          api.call('allocateSubnet', {
            params: { id: target.id },
            query: dry(on),
            body: { prefix_length: prefix + 2 },
          }),
        (api: ApiClient, on: boolean) =>
          api.call('splitSubnet', { params: { id: target.id }, query: dry(on), body: { parts: 2 } }),
        (api: ApiClient, on: boolean) =>
          api.call('importAddresses', {
            query: dry(on),
            body: {
              addresses: [
                { ip: target.network.replace(/\.0\/\d+$/, `.${1 + (n % 9)}`), subnet: target.network },
                { ip: '192.0.2.1', subnet: target.network },
              ],
            },
          }),
        (api: ApiClient, on: boolean) => api.call('deleteSubnet', { params: { id: target.id }, query: dry(on) }),
      ][kind - 2] as Call;
  }
};

describe('dry runs', () => {
  it('answer as the real call answers, and write nothing, over random series of calls', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            kind: fc.integer({ min: 0, max: 6 }),
            pick: fc.nat(),
            n: fc.nat(),
            prefix: fc.integer({ min: 20, max: 26 }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        async (calls) => {
          const org = await t.server.newOrg({ plan: 'enterprise' });
          // A subscriber, so that every change would write its events.
          expectStatus(await org.api.call('createWebhook', { body: { url: 'http://127.0.0.1:9/hook' } }), 201);
          for (const { kind, pick, n, prefix } of calls) {
            const subnets = expectStatus(await org.api.call('listSubnets'), 200).map((s) => ({
              id: s.id,
              network: s.network,
            }));
            const call = callOf(kind, pick, n, prefix, subnets);
            const before = defined(await footprint(org.orgId), 'the footprint');
            const dryAnswer = await call(org.api, true);
            expect(await footprint(org.orgId)).toEqual(before);
            const real = await call(org.api, false);
            const after = defined(await footprint(org.orgId), 'the footprint');
            if (dryAnswer.status === 200 && real.status === 204) {
              // A delete: the dry run says what the delete removed.
              const deletion = expectStatus(dryAnswer as ApiResponse<'deleteSubnet'>, 200);
              expect([before.subnets - deletion.subnet_count, before.addresses - deletion.address_count]).toEqual([
                after.subnets,
                after.addresses,
              ]);
            } else {
              expect(withoutIds(dryAnswer)).toEqual(withoutIds(real));
            }
          }
        },
      ),
      { numRuns: 15 },
    );
  });

  it('a delete’s dry run lists the cascade: each subnet with its own address records', async () => {
    const org = await t.server.newOrg();
    const top = await createSubnet(org.api, '10.93.0.0/16');
    const child = await createSubnet(org.api, '10.93.1.0/24');
    expectStatus(
      await org.api.call('batchCreateAddresses', {
        params: { id: child.id },
        body: { ips: ['10.93.1.1', '10.93.1.2'] },
      }),
      200,
    );
    expectStatus(await org.api.call('createAddress', { params: { id: top.id }, body: { ip: '10.93.2.1' } }), 201);
    const answer = await org.api.call('deleteSubnet', { params: { id: top.id }, query: { dry_run: 'true' } });
    const deletion = expectStatus(answer, 200);
    expect(deletion).toEqual({
      subnets: expect.arrayContaining([
        { id: top.id, network: '10.93.0.0/16', addresses: 1 },
        { id: child.id, network: '10.93.1.0/24', addresses: 2 },
      ]),
      subnet_count: 2,
      address_count: 3,
    });
    expectStatus(await org.api.call('getSubnet', { params: { id: top.id } }), 200);
  });

  it('a create’s dry run answers the subnets it would adopt as its children, as the real create does', async () => {
    const org = await t.server.newOrg();
    const inside = [await createSubnet(org.api, '10.94.1.0/24'), await createSubnet(org.api, '10.94.7.0/24')];
    const grandchild = await createSubnet(org.api, '10.94.7.128/25');
    await createSubnet(org.api, '10.95.0.0/24');
    const adopted = inside.map(({ id, network, name }) => ({ id, network, name }));
    const dry = expectStatus(
      await org.api.call('createSubnet', { body: { network: '10.94.0.0/16' }, query: { dry_run: 'true' } }),
      201,
    );
    expect('children' in dry && dry.children).toEqual(adopted);
    const first = defined(inside[0], 'the first /24');
    expect(expectStatus(await org.api.call('getSubnet', { params: { id: first.id } }), 200).parent_id).toBeUndefined();
    const real = expectStatus(await org.api.call('createSubnet', { body: { network: '10.94.0.0/16' } }), 201);
    expect('children' in real && real.children).toEqual(adopted);
    expect(expectStatus(await org.api.call('getSubnet', { params: { id: grandchild.id } }), 200).parent_id).toBe(
      defined(inside[1], 'the second /24').id,
    );
  });

  it('keep no Idempotency-Key: the real call with the same key then runs', async () => {
    const org = await t.server.newOrg();
    const headers = { 'idempotency-key': 'dry-then-real' };
    const body = { network: '10.94.0.0/24' };
    const dryAnswer = await org.api.call('createSubnet', { query: { dry_run: 'true' }, body, headers });
    expect(dryAnswer.status).toBe(201);
    const real = await org.api.call('createSubnet', { body, headers });
    expect([real.status, real.headers.get('idempotent-replayed')]).toEqual([201, null]);
    expectStatus(await org.api.call('getSubnet', { params: { id: (real.body as { id: string }).id } }), 200);
  });

  it('answer the real call’s errors: a duplicate network, an exhausted subnet, a plan limit', async () => {
    const org = await t.server.newOrg({ plan: 'free' });
    const session = await t.server.newOrg({ plan: 'pro', limits: { subnets: 1 } });
    await createSubnet(session.api, '10.95.0.0/30');
    const duplicate = await session.api.call('createSubnet', {
      query: { dry_run: 'true' },
      body: { network: '10.95.0.0/30' },
    });
    expect(expectStatus(duplicate, 402).code).toBe('plan_limit');
    const [only] = expectStatus(await session.api.call('listSubnets'), 200);
    const taken = await session.api.call('allocateAddress', {
      params: { id: only?.id ?? '' },
      query: { dry_run: 'true' },
      body: { count: 3 },
    });
    expect(expectStatus(taken, 409).code).toBe('exhausted');
    expect(org.orgId).not.toBe(session.orgId);
  });

  it('dry_run takes true or false only (400 naming it)', async () => {
    const answer = await t.org.api.call('createSubnet', {
      query: { dry_run: 'yes' } as never,
      body: { network: '10.96.0.0/24' },
    });
    expect(expectStatus(answer, 400).error).toMatch(/dry_run/);
  });
});
