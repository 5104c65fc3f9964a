/** What most test files start with: the app on a real database, an organisation, a subnet. */
import { afterAll, beforeAll } from 'vitest';
import { type Database, openDatabase } from '../../server/db/connection';
import type { ApiClient } from './client';
import { expectStatus } from './observed';
import { type ServerProcess, startServerProcess } from './process';
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

/**
 * Two server processes (`npm start`) on the PostgreSQL database of TEST_DATABASE_URL, and a connection of
 * the test's own to it; nothing when there is none (the concurrency tests skip on PGlite). Read `t.url`,
 * `t.database` and `t.servers` inside tests.
 */
export function useServerProcesses(env: Record<string, string> = {}) {
  const url = process.env.TEST_DATABASE_URL;
  const t = { url, servers: [] as ServerProcess[] } as { url?: string; database: Database; servers: ServerProcess[] };
  beforeAll(async () => {
    if (!url) return;
    t.database = await openDatabase({ databaseUrl: url, maxConnections: 2 });
    const processEnv = { DATABASE_URL: url, ...env };
    t.servers = await Promise.all([startServerProcess(processEnv), startServerProcess(processEnv)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(t.servers.map((s) => s.stop()));
    await t.database?.close();
  });
  return t;
}
