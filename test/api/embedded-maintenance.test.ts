/**
 * The embedded database has no autovacuum: the server vacuums and analyses it at start (and hourly), so the
 * planner has statistics and dead rows are reclaimed. Runs on PGlite whatever database the suite uses.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openDatabase, rowsOf } from '../../server/db/connection';
import { startServerProcess } from '../support/process';

/** The planner's row estimate of the subnets table: -1 until it is first vacuumed or analysed. */
async function subnetsEstimate(dataDir: string) {
  const database = await openDatabase({ dataDir });
  try {
    const result = await database.db.execute(sql`SELECT reltuples::int AS n FROM pg_class WHERE relname = 'subnets'`);
    return rowsOf<{ n: number }>(result)[0]?.n;
  } finally {
    await database.close();
  }
}

describe('the embedded database', () => {
  it('has never been analysed when only migrated, and is once the server has started on it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ipam-vacuum-'));
    try {
      expect(await subnetsEstimate(dataDir)).toBe(-1);
      const server = await startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: '', WEBHOOK_WORKER: 'off' });
      // A graceful stop closes the database after the vacuum queued at start.
      await server.stop();
      expect(await subnetsEstimate(dataDir)).toBe(0);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
