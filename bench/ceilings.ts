/**
 * Writes and free space against their ceilings (issue 22): sequential requests, one client, p50 and p99, each
 * a ratio of a ceiling measured in the same round.
 *
 * - Writes (a leaf subnet, an allocated address, an allocated /24, a created address) against bare Express
 *   and one durable INSERT into a scratch table (`POST /write` of bench/baseline.ts): within 2×, p50 and p99.
 * - First free address and the next free /24 against a hot sequential `GET /subnets/{id}`: p50 within 2× and
 *   3× (the next free /24 among 50,000 children is reported, not held to a target).
 * - The embedded default (PGlite): `GET /subnets/{id}` at 50 connections as a ratio of bare Express and one
 *   primary-key SELECT on PGlite (bench/baseline-pglite.ts, ≥ 0.5), and first free and single allocations
 *   as ratios of the same measures on PostgreSQL in the same round (within 2×).
 *
 * The series of a group are measured in four turns, a quarter of each series per turn, so a ceiling and what is
 * compared with it meet the same moments of a shared machine.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../server/db/connection';
import { type ServerProcess, startServerProcess } from '../test/support/process';
import type { LargeOrg } from './core';
import { type LoadResult, load } from './load';
import { hotSite, type Seeder, seeder } from './seed';

type Call = (key: string, method: string, path: string, body?: unknown) => Promise<Response>;

/** One row of the table in one round. */
export interface CeilingResult {
  name: string;
  data: string;
  /** latency: p50 and p99 of sequential requests (ms); rate: requests per second at 50 connections and their p99. */
  kind: 'latency' | 'rate';
  p50: number;
  p99: number;
  ceiling: { name: string; p50: number; p99: number };
  ratio: { p50: number; p99: number };
  /** The largest ratio allowed (latency; on p99 too when `onP99`), or the least (rate); null: reported only. */
  target: number | null;
  onP99: boolean;
}

/**
 * Sequential samples per round (after WARM more that warm up, not kept): of each write, of the single
 * allocations (the issue's 200 in a /24, on PostgreSQL and on PGlite), of each quick read, and of the reads that
 * take tens of milliseconds (enough for their median, which is what their targets are on).
 */
const WRITES = 100;
const ALLOCATIONS = 200;
const READS = 100;
const SLOW_READS = 40;
const WARM = 2;

const percentile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length * q) - 1)] ?? Number.NaN;
const p50 = (xs: number[]) => percentile(xs, 0.5);
const p99 = (xs: number[]) => percentile(xs, 0.99);

interface Series {
  name: string;
  /** Timed requests per round. */
  times: number;
  /** The `i`th request of the series in this round (warm-ups included); its answer must have status `expect`. */
  request: (i: number) => Promise<Response>;
  expect: number;
}

/**
 * The timed requests of each series (after WARM more) in `turns` turns, a quarter of each series per turn by
 * default: the ceiling and the requests compared with it meet the same load from the rest of the machine.
 */
async function interleaved(series: Series[], turns = 4): Promise<Map<string, number[]>> {
  const samples = new Map(series.map((s) => [s.name, [] as number[]]));
  const sent = new Map(series.map((s) => [s.name, 0]));
  for (let turn = 0; turn < turns; turn++) {
    for (const s of series) {
      const kept = samples.get(s.name) ?? [];
      const count = Math.ceil(((turn + 1) * s.times) / turns) - Math.ceil((turn * s.times) / turns);
      for (let k = 0; k < count + (turn === 0 ? WARM : 0); k++) {
        const i = sent.get(s.name) ?? 0;
        sent.set(s.name, i + 1);
        const start = performance.now();
        const response = await s.request(i);
        const body = await response.text();
        const ms = performance.now() - start;
        if (response.status !== s.expect) throw new Error(`${s.name}: ${response.status} ${body.slice(0, 300)}`);
        if (i >= WARM) kept.push(ms);
      }
    }
  }
  return samples;
}

const callAt =
  (url: string): Call =>
  (key, method, path, body) =>
    fetch(`${url}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

/**
 * Seeds what the ceilings need on PostgreSQL (its own organisation; the first free among 60,000 addresses and
 * the free /24s among 50,000 children are the core targets' data, `large`) and a PGlite data directory, and
 * creates the scratch table of the write ceiling. `rounds` fresh /8s and /24s are made for the allocations.
 */
export async function prepareCeilings(seed: Seeder, large: LargeOrg, rounds: number, seconds: number) {
  await seed.run(sql`DROP TABLE IF EXISTS bench_scratch`);
  await seed.run(sql`CREATE TABLE bench_scratch (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    payload text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now())`);
  const org = await seed.enterpriseOrg();
  // The hot GET's subnet, the hot paths' site.
  const site = await hotSite(seed, org.orgId);
  const sparse = await seed.subnet(org.orgId, '172.21.0.0/16');
  await seed.addresses(org.orgId, sparse, '172.21.0.1', 500);
  const nearlyFull = await seed.subnet(org.orgId, '172.22.0.0/24');
  await seed.addresses(org.orgId, nearlyFull, '172.22.0.1', 250);
  // The leaf creates nest under this /16 (the server finds the smallest containing subnet).
  await seed.subnet(org.orgId, '172.23.0.0/16');
  const addressParent = await seed.subnet(org.orgId, '172.24.0.0/16');
  const withChildren = async (first: number) => {
    const id = await seed.subnet(org.orgId, `${first}.0.0.0/8`);
    await seed.children(org.orgId, id, 1_000, sql`set_masklen(${`${first}.0.0.0`}::inet + i * 256, 24)::cidr`);
    return id;
  };
  const thousand = await withChildren(20);
  // A /8 per round that the /24 allocations fill from its 1,000 children up, and a /24 per round.
  const allocationSlash8s: string[] = [];
  const allocationSlash24s: string[] = [];
  for (let r = 0; r < rounds; r++) {
    allocationSlash8s.push(await withChildren(21 + r));
    allocationSlash24s.push(await seed.subnet(org.orgId, `172.25.${r}.0/24`));
  }
  const embedded = await prepareEmbedded(rounds);
  let leaves = 0;
  let addresses = 0;

  const measureRound = async (call: Call, baseline: string, round: number): Promise<CeilingResult[]> => {
    const slash8 = allocationSlash8s[round];
    const slash24 = allocationSlash24s[round];
    if (slash8 === undefined || slash24 === undefined) throw new Error(`no subnets seeded for round ${round + 1}`);
    const started = performance.now();
    const writes = await interleaved([
      {
        name: 'ceiling',
        times: WRITES,
        expect: 201,
        request: (i) =>
          fetch(`${baseline}/write`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ payload: `row ${round}.${i}` }),
          }),
      },
      {
        name: 'leaf',
        times: WRITES,
        expect: 201,
        request: () => {
          const n = leaves++;
          return call(org.key, 'POST', '/subnets', { network: `172.23.${n >> 4}.${(n & 15) * 16}/28` });
        },
      },
      {
        name: 'allocate address',
        times: ALLOCATIONS,
        expect: 201,
        request: () => call(org.key, 'POST', `/subnets/${slash24}/allocate-address`, { count: 1 }),
      },
      {
        name: 'allocate /24',
        times: WRITES,
        expect: 201,
        request: () => call(org.key, 'POST', `/subnets/${slash8}/allocate-subnet`, { prefix_length: 24 }),
      },
      {
        name: 'address',
        times: WRITES,
        expect: 201,
        request: () => {
          const n = ++addresses;
          return call(org.key, 'POST', `/subnets/${addressParent}/addresses`, {
            ip: `172.24.${n >> 8}.${n & 255}`,
            hostname: `h${n}`,
          });
        },
      },
    ]);
    const wrote = performance.now();
    const reads = await interleaved([
      { name: 'get', times: READS, expect: 200, request: () => call(org.key, 'GET', `/subnets/${site}`) },
      {
        name: 'first-free 500',
        times: READS,
        expect: 200,
        request: () => call(org.key, 'GET', `/subnets/${sparse}/first-free`),
      },
      {
        name: 'first-free 60,000',
        times: SLOW_READS,
        expect: 200,
        request: () => call(large.key, 'GET', `/subnets/${large.dense}/first-free`),
      },
      {
        name: 'first-free 250 of 254',
        times: READS,
        expect: 200,
        request: () => call(org.key, 'GET', `/subnets/${nearlyFull}/first-free`),
      },
      {
        name: 'free /24 1,000',
        times: READS,
        expect: 200,
        request: () => call(org.key, 'GET', `/subnets/${thousand}/free-blocks?prefix=24&limit=1`),
      },
      {
        name: 'free /24 50,000',
        times: SLOW_READS,
        expect: 200,
        request: () => call(large.key, 'GET', `/subnets/${large.v4}/free-blocks?prefix=24&limit=1`),
      },
    ]);
    const samples = (map: Map<string, number[]>, name: string) => {
      const found = map.get(name);
      if (found === undefined || found.length === 0) throw new Error(`no samples of ${name}`);
      return found;
    };
    const versus = (
      name: string,
      data: string,
      xs: number[],
      ceiling: { name: string; samples: number[] },
      target: number | null,
      onP99: boolean,
    ): CeilingResult => {
      const c = { name: ceiling.name, p50: p50(ceiling.samples), p99: p99(ceiling.samples) };
      return {
        name,
        data,
        kind: 'latency',
        p50: p50(xs),
        p99: p99(xs),
        ceiling: c,
        ratio: { p50: p50(xs) / c.p50, p99: p99(xs) / c.p99 },
        target,
        onP99,
      };
    };
    const insert = { name: 'INSERT', samples: samples(writes, 'ceiling') };
    const get = { name: 'GET', samples: samples(reads, 'get') };
    const write = (name: string, series: string, data: string) =>
      versus(name, data, samples(writes, series), insert, 2, true);
    const read = (name: string, series: string, data: string, target: number | null) =>
      versus(name, data, samples(reads, series), get, target, false);
    const pg = {
      firstFree: { name: 'PostgreSQL', samples: samples(reads, 'first-free 500') },
      allocation: { name: 'PostgreSQL', samples: samples(writes, 'allocate address') },
    };
    const readsDone = performance.now();
    const onPglite = await embedded.measureRound(round, seconds);
    const elapsed = (from: number, to: number) => `${((to - from) / 1000).toFixed(0)} s`;
    console.log(
      `  ceilings: writes ${elapsed(started, wrote)}, reads ${elapsed(wrote, readsDone)}, ` +
        `PGlite ${elapsed(readsDone, performance.now())}`,
    );
    return [
      versus(
        'ceiling: bare Express + one durable INSERT',
        'scratch table, own commit',
        insert.samples,
        insert,
        null,
        true,
      ),
      write('POST /subnets (leaf /28)', 'leaf', `under a /16 (0 to ${rounds * (WRITES + WARM)} /28s)`),
      write('POST allocate-address, count 1', 'allocate address', `a /24, ${ALLOCATIONS} one after another`),
      write('POST allocate-subnet, /24', 'allocate /24', `a /8 holding 1,000 /24s (to ${1000 + WRITES + WARM})`),
      write('POST /subnets/{id}/addresses', 'address', 'a /16, the next ip each time'),
      versus('reference: GET /subnets/{id}, hot', 'a /16: 8 /24s, 300 addresses', get.samples, get, null, false),
      read('GET first-free', 'first-free 500', 'a /16 holding 500 addresses', 2),
      read('GET first-free', 'first-free 60,000', 'a /16 holding 60,000 addresses', 2),
      read('GET first-free', 'first-free 250 of 254', 'a /24 with 250 of 254 taken', 2),
      read('GET free-blocks?prefix=24&limit=1', 'free /24 1,000', 'a /8 holding 1,000 /24s', 3),
      // The issue asks for this one to be reported, its target being the /8 of 1,000's.
      read('GET free-blocks?prefix=24&limit=1', 'free /24 50,000', 'a /8 holding 50,000 /24s', null),
      {
        name: 'GET /subnets/{id}, embedded PGlite, 50 connections',
        data: 'req/s ÷ bare Express + PK SELECT on PGlite',
        kind: 'rate',
        p50: onPglite.server.requestsPerSecond,
        p99: onPglite.server.p99,
        ceiling: { name: 'PGlite', p50: onPglite.ceiling.requestsPerSecond, p99: onPglite.ceiling.p99 },
        ratio: { p50: onPglite.server.requestsPerSecond / onPglite.ceiling.requestsPerSecond, p99: Number.NaN },
        target: 0.5,
        onP99: false,
      },
      versus('PGlite: GET first-free', 'a /16 holding 500 addresses', onPglite.firstFree, pg.firstFree, 2, true),
      versus(
        'PGlite: POST allocate-address, count 1',
        `a /24, ${ALLOCATIONS} one after another`,
        onPglite.allocations,
        pg.allocation,
        2,
        true,
      ),
    ];
  };
  return { measureRound, start: embedded.start, stop: embedded.stop };
}

/**
 * The embedded database: a data directory seeded like the embedded row of bench/run.ts (plus a /16 holding
 * 500 addresses and a /24 per round for the allocations), and a copy of it for PGlite's ceiling, each served
 * by a process of its own between `start` and `stop`.
 */
async function prepareEmbedded(rounds: number) {
  const dataDir = mkdtempSync(join(tmpdir(), 'ipam-bench-ceilings-'));
  const ceilingDir = mkdtempSync(join(tmpdir(), 'ipam-bench-ceilings-'));
  const local = await openDatabase({ dataDir });
  const localSeed = seeder(local.db);
  const org = await localSeed.enterpriseOrg();
  const site = await hotSite(localSeed, org.orgId);
  const sparse = await localSeed.subnet(org.orgId, '172.21.0.0/16');
  await localSeed.addresses(org.orgId, sparse, '172.21.0.1', 500);
  const slash24s: string[] = [];
  for (let r = 0; r < rounds; r++) slash24s.push(await localSeed.subnet(org.orgId, `172.25.${r}.0/24`));
  await local.close();
  cpSync(dataDir, ceilingDir, { recursive: true });
  let server: ServerProcess | null = null;
  let ceiling: ServerProcess | null = null;
  const running = () => {
    if (server === null || ceiling === null) throw new Error('the embedded processes are not running');
    return { server, ceiling };
  };
  const loaded = async (url: string, headers?: Record<string, string>, seconds = 5): Promise<LoadResult> => {
    await load({ url, headers, expect: 200, seconds: 1 });
    const result = await load({ url, headers, expect: 200, seconds });
    if (result.unexpected > 0) throw new Error(`${url}: ${result.unexpected} answers with another status or errors`);
    return result;
  };
  return {
    async start() {
      server = await startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: '', WEBHOOK_WORKER: 'off' });
      ceiling = await startServerProcess({ DATA_DIR: ceilingDir }, { script: 'bench/baseline-pglite.ts' });
    },
    async measureRound(round: number, seconds: number) {
      const { server, ceiling } = running();
      const slash24 = slash24s[round];
      if (slash24 === undefined) throw new Error(`no PGlite /24 seeded for round ${round + 1}`);
      const auth = { authorization: `Bearer ${org.key}` };
      const ceilingRate = await loaded(`${ceiling.url}/subnets/${site}`, undefined, seconds);
      const serverRate = await loaded(`${server.url}/api/v1/subnets/${site}`, auth, seconds);
      const call = callAt(server.url);
      const sequential = await interleaved([
        {
          name: 'first-free',
          times: READS,
          expect: 200,
          request: () => call(org.key, 'GET', `/subnets/${sparse}/first-free`),
        },
        {
          name: 'allocate',
          times: ALLOCATIONS,
          expect: 201,
          request: () => call(org.key, 'POST', `/subnets/${slash24}/allocate-address`, { count: 1 }),
        },
      ]);
      return {
        ceiling: ceilingRate,
        server: serverRate,
        firstFree: sequential.get('first-free') ?? [],
        allocations: sequential.get('allocate') ?? [],
      };
    },
    async stop() {
      await server?.stop();
      await ceiling?.stop();
      server = ceiling = null;
      for (const dir of [dataDir, ceilingDir]) rmSync(dir, { recursive: true, force: true });
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const spread = (xs: number[], digits: number) =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

/** The table: the median of the round figures, with the spread of the round figures in brackets. */
export function printCeilings(rounds: CeilingResult[][]) {
  const count = rounds.length;
  console.log(
    `\nWrites and free space against their ceilings: sequential requests, one client (${count} rounds); ` +
      'p50 and p99 of each round, ratio = figure ÷ the same round’s ceiling; median of the rounds (spread)',
  );
  console.log('| measure | data | p50 | p99 | ceiling p50 / p99 | ratio p50 / p99 | target | |');
  console.log('|---|---|---|---|---|---|---|---|');
  for (const [i, first] of (rounds[0] ?? []).entries()) {
    const results = rounds.map((round) => {
      const result = round[i];
      if (result === undefined) throw new Error(`a round has no result ${i}`);
      return result;
    });
    const of = (pick: (result: CeilingResult) => number) => results.map(pick);
    const figure = (xs: number[], unit: string, digits = 1) =>
      `${median(xs).toFixed(digits)} ${unit} (${spread(xs, digits)})`;
    const ratio = (xs: number[]) => `${median(xs).toFixed(2)} (${spread(xs, 2)})`;
    const r50 = median(of((r) => r.ratio.p50));
    const r99 = median(of((r) => r.ratio.p99));
    const c50 = median(of((r) => r.ceiling.p50));
    const c99 = median(of((r) => r.ceiling.p99));
    let cells: string[];
    if (first.kind === 'rate') {
      const met = first.target === null ? '' : r50 >= first.target ? 'met' : 'MISSED';
      cells = [
        figure(
          of((r) => r.p50),
          'req/s',
          0,
        ),
        `${figure(
          of((r) => r.p99),
          'ms',
          0,
        )} at 50 connections`,
        `${first.ceiling.name}: ${c50.toFixed(0)} req/s / ${c99.toFixed(0)} ms`,
        `${ratio(of((r) => r.ratio.p50))} of req/s`,
        first.target === null ? '—' : `≥ ${first.target} of req/s`,
        met,
      ];
    } else {
      const met =
        first.target === null ? '' : r50 <= first.target && (!first.onP99 || r99 <= first.target) ? 'met' : 'MISSED';
      cells = [
        figure(
          of((r) => r.p50),
          'ms',
        ),
        figure(
          of((r) => r.p99),
          'ms',
        ),
        `${first.ceiling.name}: ${c50.toFixed(1)} / ${c99.toFixed(1)} ms`,
        `${ratio(of((r) => r.ratio.p50))} / ${ratio(of((r) => r.ratio.p99))}`,
        first.target === null ? '—' : `≤ ${first.target}× (${first.onP99 ? 'p50 and p99' : 'p50'})`,
        met,
      ];
    }
    console.log(`| ${first.name} | ${first.data} | ${cells.join(' | ')} |`);
  }
}
