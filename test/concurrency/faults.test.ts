/**
 * The server process (`npm start`) under faults: a graceful shutdown (SIGTERM) during a slow request, on
 * either database; a PostgreSQL server that restarts or stops under a stream of requests (PostgreSQL
 * only: a throwaway cluster of the test's own, made with initdb and driven with pg_ctl); and the server
 * killed with SIGKILL under a stream of writes (PostgreSQL only).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/connection';
import * as identity from '../../server/modules/identity/identity.service';
import { type Receiver, startReceiver } from '../fixtures/receiver';
import { defined } from '../support/defined';
import { freePort, type ServerProcess, startServerProcess } from '../support/process';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server process keeping everything it printed, with its JSON log lines and port. */
interface ServerUnderTest extends ServerProcess {
  port: number;
  /** JSON log lines (the startup line is plain text). */
  logLines(): Record<string, unknown>[];
}

async function startServer(env: Record<string, string>): Promise<ServerUnderTest> {
  const server = await startServerProcess({ LOG_LEVEL: 'info', ...env }, { keepOutput: true });
  return {
    ...server,
    port: Number(new URL(server.url).port),
    logLines: () =>
      server
        .output()
        .split('\n')
        .slice(0, -1) // complete lines only
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line)),
  };
}

/** A new user of an enterprise organisation without a rate limit, and an API key of theirs. */
async function newKey(databaseUrlOrDir: { databaseUrl: string } | { dataDir: string }) {
  const database = await openDatabase(databaseUrlOrDir);
  try {
    const email = `ops-${randomUUID()}@example.test`;
    const user = await identity.ensureUser(database.db, email, { plan: 'enterprise' });
    await identity.setLimits(database.db, email, { rate_limit: null });
    return { orgId: user.orgId, key: (await identity.createApiKey(database.db, user, 'ops')).key };
  } finally {
    await database.close();
  }
}

const json = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

/** Whether a new TCP connection to the port is refused. */
const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });

describe('graceful shutdown (SIGTERM)', () => {
  const shared = process.env.TEST_DATABASE_URL;
  let receiver: Receiver;
  const dirs: string[] = [];
  let server: ServerUnderTest | undefined;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    await receiver?.close();
  });

  /**
   * A server on the embedded database of its own, or on the shared server (its webhook worker off there:
   * the other files' events are theirs), with a key, and a webhook whose test ping the receiver answers
   * slowly: a request that waits on the network, as a large batch on a database server would.
   */
  async function serverWithSlowRequest(env: Record<string, string>, delayMs: number) {
    const dataDir = shared ? undefined : mkdtempSync(join(tmpdir(), 'ipam-shutdown-'));
    if (dataDir) dirs.push(dataDir);
    const { key } = await newKey(shared ? { databaseUrl: shared } : { dataDir: dataDir as string });
    server = await startServer({
      ...(shared ? { DATABASE_URL: shared, WEBHOOK_WORKER: 'off' } : { DATA_DIR: dataDir as string, DATABASE_URL: '' }),
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      ...env,
    });
    const path = `/slow-${randomUUID()}`;
    receiver.on(path, { delayMs });
    const hook = await fetch(`${server.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: json(key),
      body: JSON.stringify({ url: receiver.url(path), event_types: [] }),
    });
    expect(hook.status).toBe(201);
    const { id } = (await hook.json()) as { id: string };
    const slowRequest = () =>
      fetch(`${(server as ServerUnderTest).url}/api/v1/webhooks/${id}/test`, { method: 'POST', headers: json(key) });
    return { server, slowRequest, path };
  }

  it('finishes the request in flight, refuses new connections, closes idle ones at once, exits 0', async () => {
    const { server, slowRequest, path } = await serverWithSlowRequest({ SHUTDOWN_TIMEOUT_MS: '30000' }, 1500);
    const { url, port } = server;

    // An idle keep-alive connection: it must be closed at once, not after the slow request.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const idleClosed = new Promise<number>((resolve) => {
      const req = request(`${url}/healthz`, { agent }, (res) => {
        res.resume();
        res.once('end', () => req.socket?.once('close', () => resolve(Date.now())));
      });
      req.end();
    });
    await sleep(100);

    let answeredAt = 0;
    const slow = slowRequest().then(async (response) => {
      const body = await response.json();
      answeredAt = Date.now();
      return { status: response.status, body };
    });
    // The ping has reached the receiver, which holds it: the request is in flight.
    for (let i = 0; i < 100 && receiver.to(path).length === 0; i++) await sleep(20);
    expect(receiver.to(path)).toHaveLength(1);
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');

    // Refused while the request is still running (the process is alive and draining).
    let isRefused = false;
    for (let i = 0; i < 50 && !isRefused; i++) {
      await sleep(20);
      isRefused = await refused(port);
    }
    expect(isRefused).toBe(true);
    expect(answeredAt).toBe(0);
    expect(server.child.exitCode).toBeNull();

    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ event_type: 'ping', response_status: 200 });
    expect(answeredAt - signalledAt).toBeGreaterThan(1000);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    const idleClosedAt = await idleClosed;
    expect(idleClosedAt).toBeLessThan(answeredAt);
    expect(idleClosedAt - signalledAt).toBeLessThan(1000);
    agent.destroy();

    const messages = server.logLines().map((line) => line.msg);
    expect(messages).toContain('SIGTERM: shutting down');
    expect(messages).toContain('shut down');
  }, 60_000);

  it('past SHUTDOWN_TIMEOUT_MS cuts the requests still running and exits 1', async () => {
    const { server, slowRequest, path } = await serverWithSlowRequest({ SHUTDOWN_TIMEOUT_MS: '300' }, 5000);
    const slow = slowRequest().then(
      (response) => response.status,
      (error: Error) => error,
    );
    for (let i = 0; i < 100 && receiver.to(path).length === 0; i++) await sleep(20);
    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 1, signal: null });
    expect(Date.now() - signalledAt).toBeLessThan(3000);
    expect(await slow).toBeInstanceOf(Error);
    expect(server.logLines().map((line) => line.msg)).toContain(
      'shutdown timed out: closing the connections still open and exiting',
    );
  }, 60_000);
});

// --- a PostgreSQL server of the test's own ---------------------------------------------------------

/** The server binaries: WITH_POSTGRES_BINDIR, else Debian's newest /usr/lib/postgresql/<major>/bin (as .ci/with-postgres.sh). */
function findBindir(): string | undefined {
  const candidates = [
    process.env.WITH_POSTGRES_BINDIR,
    ...(existsSync('/usr/lib/postgresql')
      ? readdirSync('/usr/lib/postgresql')
          .filter((major) => /^\d+$/.test(major))
          .sort((a, b) => Number(b) - Number(a))
          .map((major) => `/usr/lib/postgresql/${major}/bin`)
      : []),
  ];
  return candidates.find((dir) => dir && ['initdb', 'pg_ctl', 'postgres'].every((bin) => existsSync(join(dir, bin))));
}
const BINDIR = findBindir() ?? '';
const isRoot = process.getuid?.() === 0;

/** Runs a server binary, as the postgres system user when we are root (PostgreSQL refuses to run as root). */
async function asServerUser(binary: string, args: string[], cwd: string) {
  const [command, argv] = isRoot
    ? ['runuser', ['-u', 'postgres', '--', join(BINDIR, binary), ...args]]
    : [join(BINDIR, binary), args];
  return run(command as string, argv as string[], { cwd, timeout: 60_000 });
}

interface Cluster {
  url: string;
  pgctl(...args: string[]): Promise<void>;
  remove(): Promise<void>;
}

async function startCluster(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'ipam-faults-pg-'));
  // As root, the files belong to the postgres system user that runs the server.
  const owner = isRoot
    ? {
        uid: Number((await run('id', ['-u', 'postgres'])).stdout),
        gid: Number((await run('id', ['-g', 'postgres'])).stdout),
      }
    : null;
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chmodSync(dir, 0o700);
  }
  const data = join(dir, 'data');
  await asServerUser(
    'initdb',
    ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync', '--no-locale'],
    dir,
  );
  const port = await freePort();
  const conf = [
    `listen_addresses = '127.0.0.1'`,
    `port = ${port}`,
    `unix_socket_directories = '${dir}'`,
    // A commit is answered once written (no fsync: the machine does not crash here, PostgreSQL restarts).
    'fsync = off',
    'full_page_writes = off',
    `timezone = 'UTC'`,
  ].join('\n');
  writeFileSync(join(data, 'postgresql.auto.conf'), `${conf}\n`);
  if (owner) chownSync(join(data, 'postgresql.auto.conf'), owner.uid, owner.gid);
  const pgctl = async (...args: string[]) => {
    await asServerUser('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', ...args], dir);
  };
  await pgctl('start');
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pgctl,
    async remove() {
      await pgctl('stop', '-m', 'immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Outcome {
  kind: 'create' | 'read' | 'me';
  name?: string;
  status: number | 'network error';
  started: number;
  ended: number;
  body?: unknown;
  retryAfter?: string | null;
}

// On PostgreSQL runs only (PGlite runs inside the process and has no outage), with the server binaries at hand.
describe.skipIf(!process.env.TEST_DATABASE_URL || !BINDIR)('a PostgreSQL outage under load', () => {
  let cluster: Cluster;
  let server: ServerUnderTest;
  let key: string;
  let orgId: string;
  beforeAll(async () => {
    cluster = await startCluster();
    ({ key, orgId } = await newKey({ databaseUrl: cluster.url }));
    server = await startServer({ DATABASE_URL: cluster.url, DATABASE_POOL_SIZE: '4' });
  }, 120_000);
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await cluster?.remove();
  });

  const headers = () => json(key);
  const outcomes: Outcome[] = [];
  let counter = 0;

  /** One request of the stream: a folder created (a write with its activity entry and event), or a read. */
  async function one(kind: Outcome['kind'], subnetId: string): Promise<Outcome> {
    const started = Date.now();
    const name = kind === 'create' ? `f-${++counter}` : undefined;
    try {
      const response =
        kind === 'create'
          ? await fetch(`${server.url}/api/v1/folders`, {
              method: 'POST',
              headers: headers(),
              body: JSON.stringify({ name }),
              signal: AbortSignal.timeout(15_000),
            })
          : await fetch(`${server.url}/api/v1/${kind === 'read' ? `subnets/${subnetId}` : 'auth/me'}`, {
              headers: headers(),
              signal: AbortSignal.timeout(15_000),
            });
      const body = await response.json();
      return {
        kind,
        name,
        status: response.status,
        started,
        ended: Date.now(),
        body,
        retryAfter: response.headers.get('retry-after'),
      };
    } catch {
      return { kind, name, status: 'network error', started, ended: Date.now() };
    }
  }

  /** Four clients sending requests one after another until `until()` says stop. */
  async function stream(subnetId: string, until: () => boolean) {
    const kinds: Outcome['kind'][] = ['create', 'read', 'create', 'me'];
    await Promise.all(
      [0, 1, 2, 3].map(async (lane) => {
        for (let i = lane; !until(); i++) {
          outcomes.push(await one(defined(kinds[i % kinds.length], 'a kind'), subnetId));
          await sleep(5);
        }
      }),
    );
  }

  it('answers 503 (never 500) while PostgreSQL restarts, recovers by itself, and half-applies no write', async () => {
    const subnet = await fetch(`${server.url}/api/v1/subnets`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ network: '10.9.0.0/16' }),
    });
    expect(subnet.status).toBe(201);
    const subnetId = ((await subnet.json()) as { id: string }).id;

    let restartedAt = 0;
    let restartStartedAt = 0;
    const load = stream(subnetId, () => restartedAt > 0 && Date.now() > restartedAt + 6000);
    await sleep(1500);
    restartStartedAt = Date.now();
    await cluster.pgctl('restart', '-m', 'fast');
    restartedAt = Date.now();
    await load;

    const statuses = new Set(outcomes.map((o) => o.status));
    const summary = `${outcomes.length} requests, statuses ${[...statuses].join(', ')}; restart took ${restartedAt - restartStartedAt} ms`;
    if (statuses.has('network error')) console.info(server.output().slice(-5000));
    // The server never dropped a connection nor failed: only successes and 503s.
    expect(
      [...statuses].filter((s) => s !== 200 && s !== 201 && s !== 503),
      summary,
    ).toEqual([]);
    const unavailable = outcomes.filter((o) => o.status === 503);
    expect(unavailable.length, summary).toBeGreaterThan(0);
    for (const o of unavailable) {
      expect(o.body).toEqual({ error: expect.any(String), code: 'unavailable' });
      expect(Number(o.retryAfter)).toBeGreaterThan(0);
    }
    // Recovered by itself within a few seconds of PostgreSQL accepting connections again: everything sent
    // from 3 s after the restart on succeeded.
    const later = outcomes.filter((o) => o.started > restartedAt + 3000);
    expect(later.length).toBeGreaterThan(10);
    expect(later.filter((o) => o.status === 503 || o.status === 'network error')).toEqual([]);
    const firstSuccess = Math.min(
      ...outcomes.filter((o) => o.started >= restartedAt && o.status !== 503).map((o) => o.ended),
    );
    expect(firstSuccess - restartedAt).toBeLessThan(3000);

    // Every create that answered 201 is there with its activity entry and event; every other left nothing.
    const check = new pg.Client({ connectionString: cluster.url });
    await check.connect();
    try {
      const created = outcomes.filter((o) => o.kind === 'create' && o.status === 201).map((o) => o.name);
      const refused = outcomes.filter((o) => o.kind === 'create' && o.status !== 201).map((o) => o.name);
      expect(refused.length).toBeGreaterThan(0);
      const folders = await check.query<{ id: string; name: string }>(
        'SELECT id, name FROM folders WHERE org_id = $1',
        [orgId],
      );
      expect(folders.rows.map((r) => r.name).sort()).toEqual([...created].sort());
      const entries = await check.query<{ resource_id: string }>(
        `SELECT resource_id FROM activity WHERE org_id = $1 AND resource_type = 'folder' AND action = 'create'`,
        [orgId],
      );
      expect(entries.rows.map((r) => r.resource_id).sort()).toEqual(folders.rows.map((r) => r.id).sort());
    } finally {
      await check.end();
    }

    // The 503s were reported as warnings, never as unhandled errors.
    const lines = server.logLines();
    expect(lines.filter((l) => l.level === 50 || l.level === 60)).toEqual([]);
    expect(lines.some((l) => l.level === 40 && String(l.msg).startsWith('database unavailable on '))).toBe(true);
    expect(server.child.exitCode).toBeNull();
  }, 120_000);

  it('while PostgreSQL is down: /healthz 200, /readyz and the API 503; back to ready once it is up', async () => {
    await cluster.pgctl('stop', '-m', 'fast');
    const stoppedAt = Date.now();
    try {
      const health = await fetch(`${server.url}/healthz`);
      expect(health.status).toBe(200);
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({
        error: expect.stringMatching(/^The database does not answer/),
        code: 'unavailable',
      });
      for (const kind of ['create', 'read', 'me'] as const) {
        const o = await one(kind, randomUUID());
        expect(o.status, kind).toBe(503);
        expect(o.retryAfter).toBeTruthy();
      }
      expect(Date.now() - stoppedAt).toBeLessThan(5000);
    } finally {
      await cluster.pgctl('start');
    }
    const upAt = Date.now();
    let ready = 0;
    while (Date.now() - upAt < 10_000) {
      if ((await fetch(`${server.url}/readyz`)).status === 200) {
        ready = Date.now();
        break;
      }
      await sleep(100);
    }
    expect(ready - upAt).toBeLessThan(3000);
    const me = await one('me', '');
    expect(me.status).toBe(200);
    const created = await one('create', '');
    expect(created.status).toBe(201);

    // A missing migration is named by /readyz.
    const check = new pg.Client({ connectionString: cluster.url });
    await check.connect();
    try {
      await check.query(`DELETE FROM schema_migrations WHERE name = '0012_pipeline_require.sql'`);
      const notReady = await fetch(`${server.url}/readyz`);
      expect(notReady.status).toBe(503);
      expect(await notReady.json()).toEqual({
        error: 'Database migrations not applied: 0012_pipeline_require.sql',
        code: 'unavailable',
      });
    } finally {
      await check.end();
    }

    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
  }, 60_000);
});

// On PostgreSQL runs only: the database outlives the killed process, as it does in production.
describe.skipIf(!process.env.TEST_DATABASE_URL)('a server killed with SIGKILL mid-traffic', () => {
  const databaseUrl = process.env.TEST_DATABASE_URL as string;

  it('loses no committed change nor its activity entry or outboxed event, and half-applies none', async () => {
    const { key, orgId } = await newKey({ databaseUrl });
    // No worker of its own: the events it writes stay in the outbox, where the test counts them.
    const server = await startServer({
      DATABASE_URL: databaseUrl,
      WEBHOOK_WORKER: 'off',
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
    });
    const hook = await fetch(`${server.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: json(key),
      body: JSON.stringify({ url: 'http://127.0.0.1:9/hook', event_types: ['folder.created'] }),
    });
    expect(hook.status).toBe(201);

    const answered: string[] = [];
    let killed = false;
    let counter = 0;
    const lanes = [0, 1, 2, 3, 4, 5, 6, 7].map(async () => {
      while (!killed) {
        const name = `k-${++counter}`;
        const response = await fetch(`${server.url}/api/v1/folders`, {
          method: 'POST',
          headers: json(key),
          body: JSON.stringify({ name }),
        }).catch(() => null);
        if (response?.status === 201) answered.push(name);
      }
    });
    await sleep(1500);
    server.child.kill('SIGKILL');
    await server.exited;
    killed = true;
    await Promise.all(lanes);
    expect(answered.length).toBeGreaterThan(10);

    const check = new pg.Client({ connectionString: databaseUrl });
    await check.connect();
    try {
      const rows = async (query: string) =>
        (await check.query<{ id: string }>(query, [orgId])).rows.map((r) => r.id).sort();
      const folders = await check.query<{ id: string; name: string }>(
        'SELECT id, name FROM folders WHERE org_id = $1',
        [orgId],
      );
      // Every answered create is there; requests cut by the kill either committed whole or left nothing.
      expect(folders.rows.map((r) => r.name)).toEqual(expect.arrayContaining(answered));
      const ids = folders.rows.map((r) => r.id).sort();
      expect(
        await rows(
          `SELECT resource_id AS id FROM activity WHERE org_id = $1 AND resource_type = 'folder' AND action = 'create'`,
        ),
      ).toEqual(ids);
      expect(
        await rows(`SELECT e.payload->>'id' AS id FROM webhook_events e JOIN webhook_outbox o ON o.event_id = e.id
                    WHERE e.org_id = $1 AND e.type = 'folder.created'`),
      ).toEqual(ids);
    } finally {
      await check.end();
    }
  }, 60_000);
});
