/**
 * Holds released by the service itself across processes (issue 24, part 5): two server processes on one PostgreSQL
 * database both run the release (every 100 ms here); addresses held for a second, allocated through both, are each
 * released exactly once: one `release` entry and one `address.released` event each, and none before its end.
 * Needs TEST_DATABASE_URL (PGlite has one process). The clock-driven cases are in test/api/holds.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import * as identity from '../../server/modules/identity/identity.service';
import type { ApiClient } from '../support/client';
import { clientsOf, createSubnet, useServerProcesses } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useServerProcesses({
  HOLD_RELEASE_INTERVAL_MS: '100',
  OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
  WEBHOOK_WORKER: 'off',
});

async function countOf(orgId: string, query: 'release' | 'address.released') {
  const statement =
    query === 'release'
      ? sql`SELECT count(*)::int AS n FROM activity WHERE org_id = ${orgId} AND action = 'release'`
      : sql`SELECT count(*)::int AS n FROM webhook_events WHERE org_id = ${orgId} AND type = 'address.released'`;
  return rowsOf<{ n: number }>(await t.database.db.execute(statement))[0]?.n;
}

describe.skipIf(!t.url)('holds released by two server processes', () => {
  it('releases each held address once, after its end, whichever process does it', async () => {
    const email = `holds-${randomUUID()}@example.test`;
    const user = await identity.ensureUser(t.database.db, email, { plan: 'enterprise' });
    const { key } = await identity.createApiKey(t.database.db, user, 'holds');
    const apis: ApiClient[] = clientsOf(t.servers, { key });
    const [first, second] = apis as [ApiClient, ApiClient];
    expectStatus(
      await first.call('createWebhook', {
        body: { url: 'http://127.0.0.1:9/hook', event_types: ['address.released'] },
      }),
      201,
    );
    const subnet = await createSubnet(first, '10.92.0.0/24');
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? second : first).call('allocateAddress', { params: { id: subnet.id }, body: { hold_seconds: 1 } }),
      ),
    );
    const held = answers.flatMap((answer) => expectStatus(answer, 201));
    expect(new Set(held.map((a) => a.ip)).size).toBe(40);
    // Still there well before the end (the hold is a second; the releases run every 100 ms).
    expect(await countOf(user.orgId, 'release')).toBe(0);
    const deadline = Date.now() + 20_000;
    while ((await countOf(user.orgId, 'release')) !== 40 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await countOf(user.orgId, 'release')).toBe(40);
    expect(await countOf(user.orgId, 'address.released')).toBe(40);
    for (const address of held) expectStatus(await first.call('getAddress', { params: { id: address.id } }), 404);
    const remaining = expectStatus(await first.call('listSubnetAddresses', { params: { id: subnet.id } }), 200);
    expect(remaining).toEqual([]);
  }, 60_000);
});
