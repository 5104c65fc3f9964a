import { sql } from 'drizzle-orm';
import type { Db } from './types';

/**
 * What autovacuum does on a PostgreSQL server, for the embedded database, which has none: dead rows reclaimed,
 * the visibility map kept (index-only scans that skip the table: the used counts), and statistics for the
 * planner (without them it may pick any index of a small table). About 0.1 s for 60,000 addresses the first
 * time, less once the pages are marked all-visible.
 */
export async function vacuumEmbedded(db: Db): Promise<void> {
  await db.execute(sql`VACUUM (ANALYZE)`);
}

/**
 * The address tallies (migration 0017) kept small: the rows of writers no longer connected merged into one per
 * block, rows at zero deleted. Between runs a block has at most a row per connection that wrote there.
 */
export async function compactAddressTallies(db: Db): Promise<void> {
  await db.execute(sql`SELECT compact_address_tallies()`);
}
