/**
 * An address write takes its subnet's space lock shared in the statement that reads the subnet
 * (`lockAddressHomeStep`); a subnet write takes the same lock exclusive (`lockSpaces`). The two build the lock
 * key in different places (SQL and TypeScript), so this checks they are one lock. Needs TEST_DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, type Db, openDatabase, rowsOf } from '../../server/db/connection';
import { pipeline, transaction } from '../../server/db/pipeline';
import * as identity from '../../server/modules/identity/identity.service';
import { lockAddressHomeStep, lockSpaces, spaceOf } from '../../server/modules/subnets/spaces';
import { defined } from '../support/defined';

const url = process.env.TEST_DATABASE_URL;
let database: Database;

beforeAll(async () => {
  if (url) database = await openDatabase({ databaseUrl: url, maxConnections: 3 });
});
afterAll(() => database?.close());

/** Whether a subnet write's exclusive lock of the space is taken within 200 ms while `hold` holds its locks. */
async function exclusiveLockWhile(orgId: string, vrfId: string | null, hold: (tx: Db) => Promise<unknown>) {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding = () => {};
  const held = new Promise<void>((resolve) => {
    holding = resolve;
  });
  const holder = transaction(database.db, async (tx) => {
    await hold(tx);
    holding();
    await released;
  });
  await held;
  try {
    return await transaction(database.db, async (tx) => {
      await tx.execute(sql`SET LOCAL lock_timeout = '200ms'`);
      await lockSpaces(tx, orgId, [spaceOf(vrfId)]);
      return 'taken';
    }).catch((error: Error) => {
      if (!/lock timeout/.test(error.message)) throw error;
      return 'refused';
    });
  } finally {
    release();
    await holder;
  }
}

describe.skipIf(!url)('space locks', () => {
  it("an address write's shared lock holds off a subnet write in its space, with or without a VRF", async () => {
    const user = await identity.ensureUser(database.db, `locks-${randomUUID()}@example.test`, { plan: 'pro' });
    const insertVrf = sql`INSERT INTO vrfs (org_id, name) VALUES (${user.orgId}, 'v') RETURNING id`;
    const vrf = defined(rowsOf<{ id: string }>(await database.db.execute(insertVrf))[0], 'the VRF inserted');
    for (const vrfId of [null, vrf.id]) {
      const subnet = defined(
        rowsOf<{ id: string }>(
          await database.db.execute(
            sql`INSERT INTO subnets (org_id, vrf_id, network) VALUES (${user.orgId}, ${vrfId}, '10.9.0.0/24') RETURNING id`,
          ),
        )[0],
        'the subnet inserted',
      );
      expect(await exclusiveLockWhile(user.orgId, vrfId, async () => {})).toBe('taken');
      const home = (tx: Db) => pipeline(tx, { home: lockAddressHomeStep(user.orgId, subnet.id) });
      expect(await exclusiveLockWhile(user.orgId, vrfId, home)).toBe('refused');
      // Another space is not held off.
      expect(await exclusiveLockWhile(user.orgId, vrfId ? null : vrf.id, home)).toBe('taken');
    }
  });
});
