/**
 * The tallies of address records per subnet and block of 256 (migration 0017, read by first free and the
 * address page's total) against the records themselves, after random series of writes through HTTP, some
 * sent at once (on PostgreSQL, from several connections: several writers' rows per block), and again after
 * the maintenance merges them.
 */
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/types';
import { createSubnet, subnetOf, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer({}, false);

const query = async <Row>(statement: ReturnType<typeof sql>) =>
  rowsOf<Row>(await t.server.database.db.execute(statement));

/** Subnet ids (uuids made by the server) as an SQL array. */
const idList = (ids: string[]) => sql.raw(`ARRAY[${ids.map((id) => `'${id}'`).join(',')}]::uuid[]`);

/** Each subnet's records by block, from the tallies (rows summed over writers) and from the records. */
async function tallied(ids: string[]) {
  const list = idList(ids);
  const kept = await query<{ key: string; n: number }>(sql`
    SELECT subnet_id || ' ' || host(block) AS key, sum(n)::int AS n FROM address_tallies
    WHERE subnet_id = ANY(${list}) GROUP BY subnet_id, block HAVING sum(n) <> 0 ORDER BY 1`);
  // The block computed here apart from ipam_block, which the trigger uses.
  const counted = await query<{ key: string; n: number }>(sql`
    SELECT subnet_id || ' ' || host(network(set_masklen(ip, CASE WHEN family(ip) = 4 THEN 24 ELSE 120 END))) AS key,
      count(*)::int AS n
    FROM addresses WHERE subnet_id = ANY(${list}) GROUP BY 1 ORDER BY 1`);
  return { kept, counted };
}

type Op =
  | { kind: 'add'; target: number; run: [number, number]; offsets: number[] }
  | { kind: 'delete'; target: number; every: number }
  | { kind: 'child'; offset: number; bits: number }
  | { kind: 'unchild'; target: number }
  | { kind: 'split'; target: number }
  | { kind: 'compact' };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('add' as const),
    target: fc.nat(7),
    // A run of consecutive addresses (dense blocks) and some anywhere.
    run: fc.tuple(fc.nat(2047), fc.nat(400)),
    offsets: fc.uniqueArray(fc.nat(2047), { maxLength: 40 }),
  }),
  fc.record({ kind: fc.constant('delete' as const), target: fc.nat(7), every: fc.integer({ min: 1, max: 4 }) }),
  fc
    .integer({ min: 2, max: 10 })
    .chain((bits) =>
      fc.nat(2 ** (11 - bits) - 1).map((index) => ({ kind: 'child' as const, offset: index * 2 ** bits, bits })),
    ),
  fc.record({ kind: fc.constant('unchild' as const), target: fc.nat(7) }),
  fc.record({ kind: fc.constant('split' as const), target: fc.nat(7) }),
  // The maintenance, at the same time as writes.
  fc.constant({ kind: 'compact' as const }),
);

describe('address tallies', () => {
  it('name the block of 256 of an address of either family', async () => {
    const [row] = await query<{ v4: string; v6: string }>(
      sql`SELECT ipam_block('10.1.2.3')::text AS v4, ipam_block('2001:db8::1:2345')::text AS v6`,
    );
    expect(row).toEqual({ v4: '10.1.2.0/24', v6: '2001:db8::1:2300/120' });
  });

  it('agree with the records after random series of writes, some at once, and after their maintenance', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(fc.array(op, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }),
        async (v6, steps) => {
          const org = await t.server.newOrg({ plan: 'enterprise' });
          // A /21 (2,048 addresses: 8 blocks) of its own per run.
          const base = run++;
          const text = (offset: number) =>
            v6
              ? `2001:db8:${base.toString(16)}::${(offset >> 8).toString(16)}${(offset & 255).toString(16).padStart(2, '0')}`
              : `10.${40 + Math.floor(base / 32)}.${(base % 32) * 8 + (offset >> 8)}.${offset & 255}`;
          // A subnet's range as offsets in the /21, from its network.
          const rangeOf = (network: string) => {
            const [ip = '', length = ''] = network.split('/');
            const low = v6
              ? Number.parseInt(ip.split('::')[1] || '0', 16)
              : (Number(ip.split('.')[2]) - (base % 32) * 8) * 256 + Number(ip.split('.')[3]);
            return { start: low, size: 2 ** ((v6 ? 128 : 32) - Number(length)) };
          };
          const top = await createSubnet(org.api, `${text(0)}/${v6 ? 117 : 21}`, { is_pool: true });
          type Live = { id: string; start: number; size: number };
          const live: Live[] = [{ id: top.id, ...rangeOf(top.network) }];
          const ever = new Set([top.id]);
          const pick = (i: number) => live[i % live.length] as Live;
          const within = (x: number, s: Live) => x >= s.start && x < s.start + s.size;
          const apply = async (o: Op) => {
            if (o.kind === 'compact') {
              await query(sql`SELECT compact_address_tallies()`);
            } else if (o.kind === 'add') {
              // Into the target's range, not into a subnet inside it (refused).
              const target = pick(o.target);
              const [from, length] = o.run;
              const offsets = [...Array.from({ length }, (_, i) => from + i), ...o.offsets];
              const ips = [...new Set(offsets.map((x) => target.start + (x % target.size)))]
                .filter((x) => !live.some((s) => s.size < target.size && within(s.start, target) && within(x, s)))
                .map(text);
              if (ips.length === 0) return;
              const answer = await org.api.call('batchCreateAddresses', { params: { id: target.id }, body: { ips } });
              expect([200, 400, 404, 409]).toContain(answer.status);
            } else if (o.kind === 'delete') {
              const page = await org.api.call('listSubnetAddresses', {
                params: { id: pick(o.target).id },
                query: { limit: 500 },
              });
              if (page.status !== 200) return;
              const ids = expectStatus(page, 200)
                .filter((_, i) => i % o.every === 0)
                .map((a) => a.id);
              if (ids.length === 0) return;
              expect([200, 409]).toContain((await org.api.call('batchDeleteAddresses', { body: { ids } })).status);
            } else if (o.kind === 'child') {
              const network = `${text(o.offset)}/${(v6 ? 128 : 32) - o.bits}`;
              const answer = await org.api.call('createSubnet', { body: { network, is_pool: true } });
              expect([201, 400, 409]).toContain(answer.status);
              if (answer.status === 201) ever.add(subnetOf(expectStatus(answer, 201)).id);
            } else if (live.length > 1) {
              const { id } = live[1 + (o.target % (live.length - 1))] as Live;
              if (o.kind === 'unchild') {
                const answer = await org.api.call('deleteSubnet', { params: { id } });
                expect([204, 404, 409]).toContain(answer.status);
              } else {
                const answer = await org.api.call('splitSubnet', { params: { id }, body: { parts: 2 } });
                expect([200, 400, 404, 409]).toContain(answer.status);
                if (answer.status === 200) for (const part of expectStatus(answer, 200)) ever.add(part.id);
              }
              // What a delete or a split removed (it may have removed more: descendants) is read again below.
            }
          };
          for (const step of steps) {
            await Promise.all(step.map(apply));
            // The subnets now there, for the next step's targets.
            const listed = expectStatus(await org.api.call('listSubnets'), 200);
            const others = listed.filter((s) => s.id !== top.id).map((s) => ({ id: s.id, ...rangeOf(s.network) }));
            live.splice(1, live.length - 1, ...others);
            for (const { id } of others) ever.add(id);
          }
          const ids = [...ever];
          const before = await tallied(ids);
          expect(before.kept).toEqual(before.counted);
          // A page's X-Total-Count is the subnet's tallies summed: the count of its records.
          const counts = await query<{ id: string; n: number }>(sql`
            SELECT s.id, (SELECT count(*) FROM addresses a WHERE a.subnet_id = s.id)::int AS n
            FROM subnets s WHERE s.id = ANY(${idList(live.map((l) => l.id))})`);
          for (const { id, n } of counts) {
            const page = await org.api.call('listSubnetAddresses', { params: { id }, query: { limit: 1 } });
            expect(page.headers.get('x-total-count')).toBe(String(n));
          }
          // Every writer's rows handed to writers that are gone, then merged by the maintenance.
          await query(sql`UPDATE address_tallies SET writer = -1 - writer WHERE subnet_id = ANY(${idList(ids)})`);
          await query(sql`SELECT compact_address_tallies()`);
          const after = await tallied(ids);
          expect(after.kept).toEqual(after.counted);
          const rows = await query<{ rows: number; zero: number; merged: number }>(sql`
            SELECT count(*)::int AS rows, count(*) FILTER (WHERE n = 0)::int AS zero,
              count(*) FILTER (WHERE writer = 0)::int AS merged
            FROM address_tallies WHERE subnet_id = ANY(${idList(ids)})`);
          expect(rows[0]).toEqual({ rows: after.counted.length, zero: 0, merged: after.counted.length });
        },
      ),
      { numRuns: 12 },
    );
  });
});
