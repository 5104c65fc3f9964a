/**
 * One rate limit across two server processes on one PostgreSQL database: the counters live in the
 * database, so a limit kept in either process's memory could not pass. Needs TEST_DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { OperationId } from '../../contract/routes';
import { leaseSize } from '../../server/http/rate-limit';
import * as identity from '../../server/modules/identity/identity.service';
import { ApiClient, type ApiResponse, clientIp } from '../support/client';
import { defined } from '../support/defined';
import { useServerProcesses } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useServerProcesses({ TRUST_PROXY: 'loopback' });
const url = t.url;

/** The processes use the real clock: start a burst early enough in a minute to finish inside it. */
async function awayFromWindowEnd() {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
}

/** `count` calls at once, alternating between the two processes. */
function burst<Id extends OperationId>(
  count: number,
  call: (api: ApiClient) => Promise<ApiResponse<Id>>,
  apis: ApiClient[],
) {
  return Promise.all(Array.from({ length: count }, (_, i) => call(defined(apis[i % apis.length], 'a client'))));
}

describe.skipIf(!url)('rate limits with two server processes on one PostgreSQL database', () => {
  it('20 requests of a user limited to 10 per minute give exactly 10 successes', async () => {
    const email = `rate-${randomUUID()}@example.test`;
    const user = await identity.ensureUser(t.database.db, email, { plan: 'enterprise' });
    await identity.setLimits(t.database.db, email, { rate_limit: 10 });
    const { key } = await identity.createApiKey(t.database.db, user, 'rate');
    const apis = t.servers.map((s) => new ApiClient(s.url, { key }));
    await awayFromWindowEnd();
    const responses = await burst(20, (api) => api.call('listFolders'), apis);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(10);
    for (const response of responses.filter((r) => r.status !== 200)) expectStatus(response, 429);
    expect(new Set(responses.map((r) => r.headers.get('x-ratelimit-reset'))).size).toBe(1);
    const remaining = responses.filter((r) => r.status === 200).map((r) => r.headers.get('x-ratelimit-remaining'));
    expect(remaining.sort()).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  });

  it('1,200 requests of a user limited to 1,000 per minute: never more than 1,000 pass, and at most one lease fewer', async () => {
    // Each process claims leases of leaseSize(1000) = 20 hits; hits one process leased and did not use are
    // lost, so with two processes at most 19 requests are refused early (docs/performance.md).
    const email = `rate-${randomUUID()}@example.test`;
    const user = await identity.ensureUser(t.database.db, email, { plan: 'enterprise' });
    await identity.setLimits(t.database.db, email, { rate_limit: 1000 });
    const { key } = await identity.createApiKey(t.database.db, user, 'rate');
    const apis = t.servers.map((s) => new ApiClient(s.url, { key }));
    await awayFromWindowEnd();
    let passed = 0;
    for (let round = 0; round < 24; round++) {
      const responses = await burst(50, (api) => api.call('listFolders'), apis);
      passed += responses.filter((r) => r.status === 200).length;
    }
    expect(leaseSize(1000)).toBe(20);
    expect(passed).toBeLessThanOrEqual(1000);
    expect(passed).toBeGreaterThanOrEqual(1000 - (leaseSize(1000) - 1));
  });

  it('12 sign-in requests from one IP give exactly 5 that pass', async () => {
    const apis = t.servers.map((s) => new ApiClient(s.url));
    const ip = clientIp();
    await awayFromWindowEnd();
    const responses = await burst(
      12,
      (api) => api.call('verifyMagicLink', { headers: { 'x-forwarded-for': ip } }),
      apis,
    );
    expect(responses.filter((r) => r.status !== 429)).toHaveLength(5);
    for (const response of responses.filter((r) => r.status === 429)) expectStatus(response, 429);
  });
});
