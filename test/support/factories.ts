/** What most test files start with: the app on a real database, an organisation, a subnet. */
import { afterAll, beforeAll } from 'vitest';
import { type Database, openDatabase } from '../../server/db/connection';
import { ApiClient, type Credentials } from './client';
import { expectStatus, type ResponseBody } from './observed';
import { type ServerProcess, startServerProcess } from './process';
import { startTestServer, type TestOrg, type TestServer, type TestServerOptions } from './server';

type OrgOptions = Parameters<TestServer['newOrg']>[0];

/**
 * A test server started before the file's (or the describe block's) tests and closed after them, with one
 * organisation (pro unless told; none with `org: false`). Read `t.server` and `t.org` inside tests (they are
 * set once `beforeAll` has run). `options` may be a function, called in `beforeAll`, for what exists only
 * once an earlier `beforeAll` has run (an SMTP server's or an OpenID provider's address).
 */
export function useTestServer(
  options: TestServerOptions | (() => TestServerOptions) | undefined,
  org: false,
): { server: TestServer };
export function useTestServer(
  options?: TestServerOptions | (() => TestServerOptions),
  org?: OrgOptions,
): { server: TestServer; org: TestOrg };
export function useTestServer(
  options: TestServerOptions | (() => TestServerOptions) = {},
  org: OrgOptions | false = {},
) {
  const t = {} as { server: TestServer; org?: TestOrg };
  beforeAll(async () => {
    t.server = await startTestServer(typeof options === 'function' ? options() : options);
    if (org !== false) t.org = await t.server.newOrg(org);
  });
  afterAll(() => t.server?.close());
  return t;
}

/** The subnet a create answers, unwrapping the `{subnet, warnings}` form of a create that overlaps other VRFs. */
export const subnetOf = (created: ResponseBody<'createSubnet', 201>) =>
  'subnet' in created ? created.subnet : created;

/** Creates a subnet and answers it (whether or not it overlaps other VRFs). */
export async function createSubnet(api: ApiClient, network: string, extra: Record<string, unknown> = {}) {
  return subnetOf(expectStatus(await api.call('createSubnet', { body: { network, ...extra } }), 201));
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

/** A client of each of the two processes `useServerProcesses` starts, with these credentials. */
export function clientsOf(servers: ServerProcess[], credentials: Credentials): [ApiClient, ApiClient] {
  const [first, second] = servers;
  if (!first || !second) throw new Error('expected the two server processes');
  return [new ApiClient(first.url, credentials), new ApiClient(second.url, credentials)];
}
