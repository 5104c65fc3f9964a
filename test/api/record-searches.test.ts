/**
 * The database's searches of a subnet's records by their tallies (migration 0018: whole blocks of 256 taken
 * from the tallies) against brute-force models: the lowest address holding no record (`ipam_next_unused`) and
 * the records a range holds (`ipam_count_records`). Random record sets in a /20 (16 blocks) of either family,
 * dense runs across blocks, full blocks with gaps at their edges, records written by several connections at
 * once and some deleted again, searched from and to anywhere, at the start of the family's space and at its
 * very end.
 */
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/types';
import { createSubnet, useTestServer } from '../support/factories';

const t = useTestServer({}, false);

const SIZE = 4096;
const query = async <Row>(statement: ReturnType<typeof sql>) =>
  rowsOf<Row>(await t.server.database.db.execute(statement));
const ints = (values: number[]) => sql.raw(`ARRAY[${values.join(',')}]::int[]`);

/** Offsets near the edges of blocks, where an off-by-one would show. */
const edge = fc.tuple(fc.nat(SIZE / 256 - 1), fc.constantFrom(0, 1, 254, 255)).map(([block, at]) => block * 256 + at);
const offset = fc.oneof(fc.nat(SIZE - 1), edge);

/** Dense runs (many across whole blocks), addresses anywhere, and holes punched into them. */
const recordSet = fc
  .record({
    runs: fc.array(fc.tuple(offset, fc.nat(1500)), { maxLength: 4 }),
    full: fc.boolean(),
    scattered: fc.uniqueArray(offset, { maxLength: 30 }),
    holes: fc.uniqueArray(offset, { maxLength: 6 }),
  })
  .map(({ runs, full, scattered, holes }) => {
    const held = new Set<number>(scattered);
    for (const [start, length] of full ? [[0, SIZE] as const] : runs)
      for (let o = start; o < Math.min(SIZE, start + length); o++) held.add(o);
    for (const hole of holes) held.delete(hole);
    return [...held].sort((a, b) => a - b);
  });

const search = fc.array(
  fc.tuple(offset, offset).map(([a, b]) => [Math.min(a, b), Math.max(a, b)] as const),
  { minLength: 1, maxLength: 40 },
);

/** The models: the lowest offset in [from, last] not held (null when every one is), and how many are held. */
function model(held: Set<number>, from: number, last: number) {
  let unused: number | null = null;
  let count = 0;
  for (let o = last; o >= from; o--) {
    if (held.has(o)) count++;
    else unused = o;
  }
  return { unused, count };
}

let run = 0;
const networks = {
  4: (top: boolean) => (top ? '255.255.240.0/20' : `10.${run}.0.0/20`),
  6: (top: boolean) => (top ? 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:f000/116' : `2001:db8:${run.toString(16)}::/116`),
};

describe('searches of the records by their tallies', () => {
  it('find the lowest address holding no record and count the records of a range as brute force does', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<4 | 6>(4, 6),
        fc.boolean(),
        recordSet,
        fc.uniqueArray(offset, { maxLength: 8 }),
        search,
        async (family, top, records, deleted, searches) => {
          run++;
          const org = await t.server.newOrg({ plan: 'enterprise' });
          const network = networks[family](top);
          const subnet = await createSubnet(org.api, network);
          const base = network.split('/')[0];
          // Written in three statements at once: on PostgreSQL, from several connections (a block's tally then
          // has several writers' rows); then some deleted (tallies counted down, rows left at zero).
          const parts = [0, 1, 2].map((k) => records.filter((_, i) => i % 3 === k));
          await Promise.all(
            parts.map((part) =>
              query(sql`INSERT INTO addresses (org_id, subnet_id, ip)
                SELECT ${org.orgId}, ${subnet.id}, ${base}::inet + o FROM unnest(${ints(part)}) AS o`),
            ),
          );
          await query(sql`DELETE FROM addresses
            WHERE subnet_id = ${subnet.id} AND ip = ANY(ARRAY(SELECT ${base}::inet + o FROM unnest(${ints(deleted)}) AS o))`);
          const held = new Set(records.filter((o) => !deleted.includes(o)));
          const found = await query<{ from: number; last: number; unused: number | null; count: number }>(sql`
            SELECT s.f AS from, s.l AS last,
              (ipam_next_unused(${subnet.id}, ${base}::inet + s.f, ${base}::inet + s.l) - ${base}::inet)::int AS unused,
              ipam_count_records(${subnet.id}, ${base}::inet + s.f, ${base}::inet + s.l)::int AS count
            FROM unnest(${ints(searches.map(([f]) => f))}, ${ints(searches.map(([, l]) => l))}) AS s(f, l)`);
          expect(found).toEqual(searches.map(([from, last]) => ({ from, last, ...model(held, from, last) })));
        },
      ),
      { numRuns: 60 },
    );
  }, 120_000);

  it('walks a block whose tally falls short of its records, finds it full and goes on after it', async () => {
    const org = await t.server.newOrg({ plan: 'enterprise' });
    const subnet = await createSubnet(org.api, '10.250.0.0/20');
    // Blocks 0 and 1 full, block 2 with a gap at 519; block 1's tally then made one short (a wrong tally).
    await query(sql`INSERT INTO addresses (org_id, subnet_id, ip)
      SELECT ${org.orgId}, ${subnet.id}, '10.250.0.0'::inet + o FROM generate_series(0, 767) AS o WHERE o <> 519`);
    await query(
      sql`INSERT INTO address_tallies (subnet_id, block, writer, n) VALUES (${subnet.id}, '10.250.1.0/24', -1, -1)`,
    );
    const [row] = await query<{ ip: string }>(
      sql`SELECT host(ipam_next_unused(${subnet.id}, '10.250.0.0', '10.250.15.255')) AS ip`,
    );
    expect(row?.ip).toBe('10.250.2.7');
  });
});
