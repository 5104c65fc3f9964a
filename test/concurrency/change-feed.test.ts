/**
 * The change feed the caller cache relies on: while its listening connection is down the feed is not
 * reliable (the cache is bypassed), subscribers are told to forget, and it reconnects by itself.
 * Needs TEST_DATABASE_URL (PGlite has no connection to lose).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeFeedOf, type Database, openDatabase, rowsOf } from '../../server/db/connection';

const url = process.env.TEST_DATABASE_URL;
let database: Database;
let admin: Database;
/** This test's connections only: other test files share the database. */
const name = `change-feed-test-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  if (!url) return;
  const own = new URL(url);
  own.searchParams.set('application_name', name);
  database = await openDatabase({ databaseUrl: own.toString(), maxConnections: 2 });
  admin = await openDatabase({ databaseUrl: url, maxConnections: 1 });
});
afterAll(async () => {
  await database?.close();
  await admin?.close();
});

const until = async (condition: () => boolean, ms = 5000) => {
  const end = Date.now() + ms;
  while (!condition() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
  return condition();
};

describe.skipIf(!url)('the change feed on a PostgreSQL server', () => {
  it('is unreliable while its listening connection is gone, tells subscribers, and comes back', async () => {
    const feed = changeFeedOf(database.db)!;
    expect(await until(() => feed.reliable())).toBe(true);
    let told = 0;
    feed.subscribe('principals_changed', () => told++);
    // End this database object's idle listening sessions: its listener (and idle pooled connections).
    const ended = rowsOf<{ pid: number }>(
      await admin.db.execute(sql`
        SELECT pid FROM pg_stat_activity WHERE application_name = ${name} AND state = 'idle'
          AND query LIKE 'LISTEN %' AND pg_terminate_backend(pid)`),
    );
    expect(ended.length).toBeGreaterThan(0);
    expect(await until(() => !feed.reliable())).toBe(true);
    expect(told).toBeGreaterThan(0);
    expect(await until(() => feed.reliable())).toBe(true);
  });

  it('delivers a committed change to subscribers', async () => {
    const feed = changeFeedOf(database.db)!;
    expect(await until(() => feed.reliable())).toBe(true);
    let told = 0;
    feed.subscribe('principals_changed', () => told++);
    await admin.db.execute(sql`UPDATE organizations SET plan = plan WHERE false`);
    await admin.db.execute(sql`DELETE FROM sessions WHERE false`);
    expect(await until(() => told > 0)).toBe(true);
  });
});
