/**
 * Exactly once, across a crash: the server (`npm start`) is killed with SIGKILL under a stream of keyed POSTs
 * (address allocations, creates of folders and addresses, address imports), then started again, and every
 * request is retried with its Idempotency-Key. A request whose change committed before the kill is answered
 * from its stored answer (it was kept in the change's own transaction), never run twice; one that did not
 * commit runs now. PostgreSQL only: the embedded database lives inside the killed process.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../server/db/connection';
import * as identity from '../../server/modules/identity/identity.service';
import { type ServerProcess, startServerProcess } from '../support/process';

const databaseUrl = process.env.TEST_DATABASE_URL as string;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One keyed request, and what the first attempt was answered (null: cut by the kill). */
interface Sent {
  kind: 'allocation' | 'folder' | 'address' | 'import';
  path: string;
  body: string;
  key: string;
  /** What makes its effect findable in the database: the description or name it wrote. */
  mark: string;
  first: { status: number; text: string } | null;
}

async function send(url: string, apiKey: string, sent: Pick<Sent, 'path' | 'body' | 'key'>) {
  const response = await fetch(`${url}/api/v1${sent.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': sent.key },
    body: sent.body,
  });
  return {
    status: response.status,
    text: await response.text(),
    replayed: response.headers.get('idempotent-replayed'),
  };
}

describe.skipIf(!databaseUrl)('a server killed with SIGKILL under keyed writes, then started again', () => {
  const servers: ServerProcess[] = [];
  afterAll(() => {
    for (const server of servers) server.child.kill('SIGKILL');
  });

  const env = { DATABASE_URL: databaseUrl, WEBHOOK_WORKER: 'off' };

  /** A server, a new enterprise organisation's API key (no rate limit) and a /16 subnet of theirs. */
  async function setUp() {
    const database = await openDatabase({ databaseUrl });
    const email = `once-${randomUUID()}@example.test`;
    const user = await identity.ensureUser(database.db, email, { plan: 'enterprise' });
    await identity.setLimits(database.db, email, { rate_limit: null });
    const apiKey = (await identity.createApiKey(database.db, user, 'once')).key;
    await database.close();
    const server = await startServerProcess(env);
    servers.push(server);
    const created = await send(server.url, apiKey, {
      path: '/subnets',
      body: JSON.stringify({ network: '10.80.0.0/16' }),
      key: randomUUID(),
    });
    expect(created.status).toBe(201);
    return { orgId: user.orgId, apiKey, server, subnetId: (JSON.parse(created.text) as { id: string }).id };
  }

  /** Another server on the same database, after the claims the killed one left are old enough to take over. */
  async function restart(check: pg.Client, orgId: string) {
    // A claim left unanswered is taken over a minute on: as if that minute had passed.
    await check.query(
      `UPDATE idempotency_keys SET locked_at = locked_at - interval '10 minutes' WHERE org_id = $1 AND status IS NULL`,
      [orgId],
    );
    const again = await startServerProcess(env);
    servers.push(again);
    return again;
  }

  it('answers every retry of a committed request from its stored answer, and runs none twice', async () => {
    const { orgId, apiKey, server, subnetId } = await setUp();

    let n = 0;
    const next = (kind: Sent['kind']): Sent => {
      const i = ++n;
      const mark = `once-${i}-${randomUUID()}`;
      const ip = (k: number) => `10.80.${100 + Math.floor(k / 250)}.${(k % 250) + 1}`;
      const request = {
        allocation: { path: `/subnets/${subnetId}/allocate-address`, body: { count: 1, description: mark } },
        folder: { path: '/folders', body: { name: mark } },
        address: { path: `/subnets/${subnetId}/addresses`, body: { ip: ip(2 * i), description: mark } },
        import: {
          path: '/import/addresses',
          body: {
            addresses: [2 * i, 2 * i + 1].map((k) => ({ ip: ip(k), subnet: '10.80.0.0/16', description: mark })),
          },
        },
      }[kind];
      return { kind, path: request.path, body: JSON.stringify(request.body), key: randomUUID(), mark, first: null };
    };

    const all: Sent[] = [];
    let killed = false;
    // Imports are heavy work (two in flight per caller): one lane of them.
    const kinds: Sent['kind'][] = ['allocation', 'allocation', 'allocation', 'folder', 'address', 'import'];
    const lanes = kinds.map(async (kind) => {
      while (!killed) {
        const sent = next(kind);
        all.push(sent);
        const answer = await send(server.url, apiKey, sent).catch(() => null);
        if (answer && !killed) sent.first = { status: answer.status, text: answer.text };
      }
    });
    await sleep(2000);
    server.child.kill('SIGKILL');
    await server.exited;
    killed = true;
    await Promise.all(lanes);
    const cut = all.filter((sent) => sent.first === null);
    expect(all.length - cut.length).toBeGreaterThan(20);
    expect(cut.length).toBeGreaterThan(0);

    const check = new pg.Client({ connectionString: databaseUrl });
    await check.connect();
    try {
      const again = await restart(check, orgId);

      let replayedCut = 0;
      for (const sent of all) {
        const retry = await send(again.url, apiKey, sent);
        expect(retry.status, `${sent.kind} ${sent.path}: ${retry.text}`).toBeLessThan(300);
        if (sent.first) {
          // An answered request is answered the same again.
          expect(retry.replayed).toBe('true');
          expect({ status: retry.status, text: retry.text }).toEqual(sent.first);
        } else if (retry.replayed === 'true') replayedCut++;
        sent.first ??= { status: retry.status, text: retry.text };
      }

      // Each request's effect is in the database once, and is the one its answer names.
      const count = async (query: string, mark: string) =>
        (await check.query<{ ids: string[] }>(query, [orgId, mark])).rows[0]?.ids ?? [];
      for (const sent of all) {
        if (!sent.first) throw new Error(`${sent.kind} ${sent.key}: no answer`);
        const answer: unknown = JSON.parse(sent.first.text);
        if (sent.kind === 'folder') {
          const ids = await count(
            'SELECT array_agg(id) AS ids FROM folders WHERE org_id = $1 AND name = $2',
            sent.mark,
          );
          expect(ids).toEqual([(answer as { id: string }).id]);
          continue;
        }
        const ids = await count(
          'SELECT array_agg(id ORDER BY ip) AS ids FROM addresses WHERE org_id = $1 AND description = $2',
          sent.mark,
        );
        const answered =
          sent.kind === 'allocation'
            ? (answer as { id: string }[]).map((a) => a.id)
            : sent.kind === 'address'
              ? [(answer as { id: string }).id]
              : (answer as { results: { id?: string }[] }).results.map((r) => r.id);
        expect(ids, `${sent.kind} ${sent.key}`).toEqual(answered);
      }
      // Some of the requests the kill cut had committed: their retries were replays, not second runs.
      console.info(
        `exactly once: ${all.length} keyed requests, ${cut.length} cut by the kill, ${replayedCut} of them replayed`,
      );
    } finally {
      await check.end();
    }
  }, 120_000);

  it('commits a change only with its answer: killed while the answer waits, the retry runs it once', async () => {
    const { orgId, apiKey, server } = await setUp();
    const check = new pg.Client({ connectionString: databaseUrl });
    await check.connect();
    try {
      // An import slow enough to catch between its key's claim and its answer; the test holds the key's row,
      // so the answer cannot be written: the change may not commit without it.
      const mark = `held-${randomUUID()}`;
      const rows = Array.from({ length: 1000 }, (_, k) => ({
        ip: `10.80.${200 + Math.floor(k / 250)}.${(k % 250) + 1}`,
        subnet: '10.80.0.0/16',
        description: mark,
      }));
      const sent = { path: '/import/addresses', body: JSON.stringify({ addresses: rows }), key: randomUUID() };
      await check.query('BEGIN');
      const first = send(server.url, apiKey, sent).catch(() => null);
      let held = false;
      for (let i = 0; i < 2000 && !held; i++) {
        const row = await check
          .query<{ status: number | null }>(
            'SELECT status FROM idempotency_keys WHERE org_id = $1 AND key = $2 FOR UPDATE NOWAIT',
            [orgId, sent.key],
          )
          .catch(async () => {
            // Locked by the request's own transaction: its answer is being written; too late to hold.
            throw new Error('the answer was written before the test could hold the key');
          });
        held = row.rows[0]?.status === null;
        if (!held) await sleep(1);
      }
      expect(held).toBe(true);
      // The import is done but for its answer, waiting on the row the test holds (nothing else waits on it).
      let waiting = false;
      for (let i = 0; i < 1500 && !waiting; i++) {
        const found = await check.query(
          'SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))',
        );
        waiting = found.rows.length > 0;
        if (!waiting) await sleep(20);
      }
      expect(waiting).toBe(true);
      // Not committed: the change commits with its answer or not at all.
      const written = () =>
        check.query<{ n: number }>('SELECT count(*)::int AS n FROM addresses WHERE org_id = $1 AND description = $2', [
          orgId,
          mark,
        ]);
      expect((await written()).rows[0]?.n).toBe(0);
      server.child.kill('SIGKILL');
      await server.exited;
      expect(await first).toBeNull();
      await check.query('ROLLBACK');

      const again = await restart(check, orgId);
      const retry = await send(again.url, apiKey, sent);
      expect(retry.status).toBe(200);
      expect(retry.replayed).toBeNull();
      expect(JSON.parse(retry.text)).toMatchObject({ summary: { created: 1000 } });
      expect((await written()).rows[0]?.n).toBe(1000);
    } finally {
      await check.end();
    }
  }, 120_000);
});
