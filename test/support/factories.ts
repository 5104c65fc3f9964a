/** What most test files start with: the app on a real database, an organisation, a subnet. */
import { afterAll, beforeAll } from 'vitest';
import type { ApiClient } from './client';
import { expectStatus } from './observed';
import { startTestServer, type TestOrg, type TestServer, type TestServerOptions } from './server';

/**
 * A test server started before the file's tests and closed after them, with one organisation (pro unless
 * told). Read `t.server` and `t.org` inside tests (they are set once `beforeAll` has run).
 */
export function useTestServer(options: TestServerOptions = {}, orgOptions?: Parameters<TestServer['newOrg']>[0]) {
  const t = {} as { server: TestServer; org: TestOrg };
  beforeAll(async () => {
    t.server = await startTestServer(options);
    t.org = await t.server.newOrg(orgOptions);
  });
  afterAll(() => t.server?.close());
  return t;
}

/** Creates a subnet (unwrapping the `{subnet, warnings}` form of a create that overlaps other VRFs). */
export async function createSubnet(api: ApiClient, network: string, extra: Record<string, unknown> = {}) {
  const body = expectStatus(await api.call('createSubnet', { body: { network, ...extra } }), 201);
  return (body.subnet ?? body) as { id: string; network: string; name: string; parent_id?: string };
}
