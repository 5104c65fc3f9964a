/**
 * Fairness between callers: what one caller's heavy or hostile traffic does to another organisation's
 * ordinary reads. An honest reader (another organisation, 2 connections, `GET /folders` one after another)
 * is timed alone, then while
 *  - one organisation's viewer runs 40 activity exports at once (10,000 rows each), again and again;
 *  - one IP sends requests with unknown API keys on 16 connections as fast as they are answered.
 * Reported: the reader's p50, p99 and worst latency in each phase, what the heavy caller got (answers by
 * status), and the server's resident memory at its peak over the phase against its start.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import * as identityRepo from '../server/modules/identity/identity.repo';
import * as identity from '../server/modules/identity/identity.service';
import { residentMegabytes } from './load';
import type { Seeder } from './seed';

export interface FairnessPhase {
  name: string;
  reader: { requests: number; p50: number; p99: number; max: number };
  /** The heavy caller's answers by status (empty for the reader alone). */
  heavy: Record<string, number>;
  rssStart: number;
  rssPeak: number;
}

/** The `q` quantile of sorted values; NaN when there are none (no request was answered). */
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;

export async function prepareFairness(seed: Seeder) {
  const email = `fair-${randomBytes(4).toString('hex')}@example.test`;
  const admin = await identity.ensureUser(seed.db, email, { plan: 'teams' });
  const viewer = await identityRepo.insertUser(seed.db, {
    orgId: admin.orgId,
    email: `viewer-${email}`,
    name: '',
    role: 'viewer',
  });
  const viewerKey = (await identity.createApiKey(seed.db, viewer, 'exports', ['read'])).key;
  // 12,000 entries, so every export is a full 10,000 rows.
  await seed.run(sql`
    INSERT INTO activity (org_id, user_id, action, resource_type, resource_id, changes)
    SELECT ${admin.orgId}, ${admin.id}, 'update', 'subnet', gen_random_uuid(),
      jsonb_build_object('name', jsonb_build_array('old name ' || i, 'new name ' || i),
        'description', jsonb_build_array('', 'rack ' || i))
    FROM generate_series(1, 12000) AS i`);
  const reader = await seed.enterpriseOrg();
  await seed.run(sql`
    INSERT INTO folders (org_id, name) SELECT ${reader.orgId}, 'folder ' || i FROM generate_series(1, 10) AS i`);
  return { viewerKey, readerKey: reader.key };
}

/** Runs the three phases against a server process; `seconds` each. */
export async function measureFairness(
  serverUrl: string,
  serverPid: number,
  keys: { viewerKey: string; readerKey: string },
  seconds: number,
): Promise<FairnessPhase[]> {
  const get = async (path: string, key: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${serverUrl}/api/v1${path}`, {
      headers: { authorization: `Bearer ${key}`, ...headers },
    });
    await response.arrayBuffer(); // the whole answer, as a client would take it
    return response.status;
  };
  const unknownKey = () => `svc_${randomBytes(48).toString('base64url').slice(0, 64)}`;

  async function phase(name: string, heavyCall: (() => Promise<number>) | null, heavyConnections: number) {
    const until = performance.now() + seconds * 1000;
    const latencies: number[] = [];
    const heavy: Record<string, number> = {};
    const rssStart = residentMegabytes(serverPid);
    let rssPeak = rssStart;
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, residentMegabytes(serverPid));
    }, 100);
    const readerLoop = async () => {
      while (performance.now() < until) {
        const start = performance.now();
        const status = await get('/folders', keys.readerKey);
        if (status !== 200) throw new Error(`the reader got ${status}`);
        latencies.push(performance.now() - start);
      }
    };
    const heavyLoop = async () => {
      while (heavyCall && performance.now() < until) {
        const status = await heavyCall().catch(() => 0);
        heavy[status] = (heavy[status] ?? 0) + 1;
        // A client told to wait (429) waits a little, as the SDK would, rather than spinning.
        if (status === 429) await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };
    await Promise.all([readerLoop(), readerLoop(), ...Array.from({ length: heavyConnections }, () => heavyLoop())]);
    clearInterval(sampler);
    latencies.sort((a, b) => a - b);
    return {
      name,
      reader: {
        requests: latencies.length,
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        max: quantile(latencies, 1),
      },
      heavy,
      rssStart,
      rssPeak,
    };
  }

  return [
    await phase('reader alone', null, 0),
    await phase('40 activity exports at once, 10,000 rows each', () => get('/activity/export', keys.viewerKey), 40),
    await phase(
      'unknown API keys from one IP, 16 connections',
      () => get('/folders', unknownKey(), { 'x-forwarded-for': '198.51.100.7' }),
      16,
    ),
  ];
}

export function printFairness(phases: FairnessPhase[]) {
  console.log('\nFairness: another organisation’s GET /folders (2 connections) while one caller runs heavy traffic');
  console.log(
    '| phase | reader requests | reader p50 | reader p99 | reader max | heavy caller’s answers | RSS start → peak |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const p of phases) {
    const heavy = Object.entries(p.heavy)
      .map(([status, n]) => `${n} × ${status}`)
      .join(', ');
    console.log(
      `| ${p.name} | ${p.reader.requests} | ${p.reader.p50.toFixed(1)} ms | ${p.reader.p99.toFixed(1)} ms | ${p.reader.max.toFixed(0)} ms | ${heavy || '—'} | ${p.rssStart.toFixed(0)} → ${p.rssPeak.toFixed(0)} MB |`,
    );
  }
}
