/** Bulk seeding in SQL for the benchmark: organisations, subnets and addresses in the numbers the targets name. */
import { randomUUID } from 'node:crypto';
import { type SQL, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../server/db/connection';
import * as identity from '../server/modules/identity/identity.service';
import { first } from '../server/modules/shared/rows';

export function seeder(db: Db) {
  const run = (statement: SQL) => db.execute(statement);
  const rows = async <T>(statement: SQL) => rowsOf<T>(await run(statement));
  /** The one row a statement answers by construction (an INSERT … RETURNING of one row, SHOW, an aggregate). */
  const row = async <T>(statement: SQL, what: string) => first(await rows<T>(statement), what);
  return {
    db,
    run,
    rows,
    row,
    /**
     * Lets PostgreSQL finish the work the bench's own bulk writes left it (a checkpoint, autovacuum of the
     * tables just filled) before a timed load, so the load measures the requests, not the seeding's aftermath.
     */
    async settle() {
      // Vacuumed and analysed now, the tables just filled give autovacuum no work to start mid-load.
      await run(sql`VACUUM (ANALYZE)`);
      await run(sql`CHECKPOINT`);
      for (let waited = 0; waited < 60_000; waited += 250) {
        const busy = await row<{ n: number }>(
          sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`,
          'a count of autovacuum workers',
        );
        if (busy.n === 0) return;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    /** An enterprise organisation whose rate limit is raised (not removed) so the limiter still runs. */
    async enterpriseOrg() {
      const email = `bench-${randomUUID()}@example.test`;
      const user = await identity.ensureUser(db, email, { plan: 'enterprise' });
      await identity.setLimits(db, email, { rate_limit: 1_000_000_000 });
      const { key } = await identity.createApiKey(db, user, 'bench');
      return { orgId: user.orgId, key };
    },
    /** Inserts one subnet (top level unless a parent is given) and answers its id. */
    async subnet(orgId: string, network: string, parentId: string | null = null, vrfId: string | null = null) {
      const inserted = await row<{ id: string }>(
        sql`
        INSERT INTO subnets (org_id, network, parent_id, vrf_id) VALUES (${orgId}, ${network}::cidr, ${parentId}, ${vrfId})
        RETURNING id`,
        'the subnet inserted',
      );
      return inserted.id;
    },
    /** `count` children of `parentId` whose networks a SQL expression of `i` (0-based) gives. */
    async children(orgId: string, parentId: string | null, count: number, network: SQL, vrfId: string | null = null) {
      await run(sql`
        INSERT INTO subnets (org_id, parent_id, vrf_id, network)
        SELECT ${orgId}, ${parentId}, ${vrfId}, ${network} FROM generate_series(0, ${count - 1}) AS i`);
    },
    /** `count` addresses of a subnet, consecutive from `first`. */
    async addresses(orgId: string, subnetId: string, first: string, count: number) {
      await run(sql`
        INSERT INTO addresses (org_id, subnet_id, ip, hostname)
        SELECT ${orgId}, ${subnetId}, ${first}::inet + i, 'host-' || i FROM generate_series(0, ${count - 1}) AS i`);
    },
  };
}

/** The hot reads' subnet: a /16 with 8 child /24s and 300 addresses of its own, like a real site subnet. */
export async function hotSite(seed: Seeder, orgId: string) {
  const site = await seed.subnet(orgId, '172.20.0.0/16');
  for (let i = 0; i < 8; i++) await seed.subnet(orgId, `172.20.${100 + i}.0/24`, site);
  await seed.addresses(orgId, site, '172.20.0.1', 300);
  return site;
}
export type Seeder = ReturnType<typeof seeder>;
