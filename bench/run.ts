/**
 * `npm run bench`: the performance targets, measured from HTTP clients against the real server process on
 * a throwaway PostgreSQL server that commits durably (fsync on), or BENCH_DATABASE_URL.
 *
 * - IPAM core: latency of single requests against large organisations (median and p95 in ms).
 * - Hot paths: requests per second at 50 connections as ratios of a ceiling measured in the same run
 *   (bare Express + one prepared primary-key SELECT), with p99 and the server's resident memory.
 * - Writes and free space against their ceilings (issue 22, bench/ceilings.ts): sequential latencies as
 *   ratios of a durable INSERT and of a hot subnet read; the embedded database against its own ceiling.
 * All are repeated BENCH_ROUNDS times (3) and reported with their spread. The embedded database (PGlite)
 * gets a row of its own in the hot paths, without a target.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../server/db/connection';
import { startServerProcess } from '../test/support/process';
import { type CeilingResult, prepareCeilings, printCeilings } from './ceilings';
import { type CoreTiming, prepareCore, seedLargeOrg } from './core';
import { exportGrowth, prepareExchange } from './exchange';
import { type FairnessPhase, measureFairness, prepareFairness, printFairness } from './fairness';
import { load, residentMegabytes } from './load';
import { hotSite, seeder } from './seed';
import { prepareThroughput, type ScenarioRound, throughputRound } from './throughput';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!databaseUrl) throw new Error('Run through `npm run bench` (or set BENCH_DATABASE_URL to a PostgreSQL database)');
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/** BENCH_CORE=0 measures the hot paths only (quicker, while profiling them). */
const withCore = process.env.BENCH_CORE !== '0';
/** BENCH_FAIRNESS=only measures fairness between callers only; =0 skips it. */
const fairnessOnly = process.env.BENCH_FAIRNESS === 'only';
const withFairness = process.env.BENCH_FAIRNESS !== '0';
/** BENCH_CEILINGS=only measures writes and free space against their ceilings only; =0 or BENCH_CORE=0 skips them. */
const ceilingsOnly = process.env.BENCH_CEILINGS === 'only';
const withCeilings = ceilingsOnly || (withCore && !fairnessOnly && process.env.BENCH_CEILINGS !== '0');
const withCoreRounds = withCore && !fairnessOnly && !ceilingsOnly;
const seconds = Number(process.env.BENCH_SECONDS ?? 5);

const database = await openDatabase({ databaseUrl });
const seed = seeder(database.db);
const { fsync } = await seed.row<{ fsync: string }>(sql`SHOW fsync`, 'the fsync setting');
const { synchronous_commit: commit } = await seed.row<{ synchronous_commit: string }>(
  sql`SHOW synchronous_commit`,
  'the synchronous_commit setting',
);
console.log(`PostgreSQL fsync=${fsync}, synchronous_commit=${commit}; seeding …`);
const seedStart = performance.now();
const large = withCoreRounds || withCeilings ? await seedLargeOrg(seed) : null;
const coreRound = withCoreRounds && large ? await prepareCore(seed, large) : null;
const exchangeRound = withCoreRounds ? await prepareExchange(seed) : null;
const fairnessKeys = withFairness && !ceilingsOnly ? await prepareFairness(seed) : null;
const ceilingsRound = withCeilings && large ? await prepareCeilings(seed, large, rounds, seconds) : null;
/** BENCH_ONLY=<regular expression> measures only the hot paths whose name matches it (and the ceiling). */
const only = process.env.BENCH_ONLY;
const scenarios =
  fairnessOnly || ceilingsOnly
    ? []
    : (await prepareThroughput(seed)).filter((scenario, i) => i === 0 || !only || new RegExp(only).test(scenario.name));
// Steady state: autovacuum keeps the visibility map current, which index-only scans rely on.
await seed.run(sql`VACUUM ANALYZE`);
console.log(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

/** BENCH_PROFILE=<dir> writes the server's CPU profile there (node --cpu-prof). */
const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
// TRUST_PROXY: the fairness phases speak from other client addresses through X-Forwarded-For.
const server = await startServerProcess(
  { DATABASE_URL: databaseUrl, WEBHOOK_WORKER: 'off', TRUST_PROXY: 'loopback' },
  { nodeArgs: profile },
);
const baseline = await startServerProcess({ DATABASE_URL: databaseUrl }, { script: 'bench/baseline.ts' });
await ceilingsRound?.start();
const call = (key: string, method: string, path: string, body?: unknown) =>
  fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

const core: CoreTiming[][] = [];
const hot: ScenarioRound[][] = [];
const ceilings: CeilingResult[][] = [];
let rss = 0;
let fairness: FairnessPhase[] = [];
try {
  for (let r = 0; r < (fairnessOnly ? 0 : rounds); r++) {
    console.log(`round ${r + 1} of ${rounds} …`);
    if (coreRound && exchangeRound)
      core.push([...(await coreRound(call, r)), ...(await exchangeRound(call, server.pid))]);
    if (ceilingsRound) {
      await seed.settle();
      ceilings.push(await ceilingsRound.measureRound(call, baseline.url, r));
    }
    if (scenarios.length === 0) continue;
    await seed.settle();
    hot.push(
      await throughputRound(
        scenarios,
        { server: server.url, baseline: baseline.url },
        { server: server.pid, baseline: baseline.pid },
        seconds,
      ),
    );
    rss = Math.max(rss, residentMegabytes(server.pid));
  }
  if (fairnessKeys) {
    await seed.settle();
    fairness = await measureFairness(
      server.url,
      server.pid,
      fairnessKeys,
      Number(process.env.BENCH_FAIRNESS_SECONDS ?? 15),
    );
  }
} finally {
  await server.stop();
  await baseline.stop();
  await ceilingsRound?.stop();
  await database.close();
}
if (fairnessOnly) {
  printFairness(fairness);
  process.exit(0);
}
if (ceilingsOnly) {
  printCeilings(ceilings);
  process.exit(0);
}
const embedded = await embeddedRow();

// NaN when there is nothing to summarise.
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const p95 = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))] ?? Number.NaN;
/** The `i`th result of every round: every round measures the same things, in the same order. */
const nth = <T>(rounds: T[][], i: number): T[] =>
  rounds.map((round) => {
    const result = round[i];
    if (result === undefined) throw new Error(`a round has no result ${i}`);
    return result;
  });
const spread = (xs: number[], digits: number) =>
  `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;

console.log(`\nIPAM core: median of each round (${rounds} rounds), its spread, and the p95 of all samples`);
console.log('| operation | data | target | median | spread of round medians | p95 | |');
console.log('|---|---|---|---|---|---|---|');
for (const [i, first] of (core[0] ?? []).entries()) {
  const results = nth(core, i);
  const medians = results.map((result) => median(result.samples));
  const all = results.flatMap((result) => result.samples);
  const m = median(medians);
  console.log(
    `| ${first.name} | ${first.data} | < ${first.target} ms | ${m.toFixed(1)} ms | ${spread(medians, 1)} ms | ${p95(all).toFixed(1)} ms | ${m < first.target ? 'met' : 'MISSED'} |`,
  );
}

console.log(
  `\nHot paths: ${seconds} s at 50 connections per round, ${rounds} rounds; ratio = req/s ÷ the same round's ceiling`,
);
console.log(
  '| request | target | req/s (median) | ratio (median) | ratio spread | p99 (median) | p99 spread | CPU ms/request: server + PostgreSQL | |',
);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [i, first] of (hot[0] ?? []).entries()) {
  const results = nth(hot, i);
  const ratios = results.map((result) => result.ratio);
  const rates = results.map((result) => result.result.requestsPerSecond);
  const p99s = results.map((result) => result.result.p99);
  const cpu = `${median(results.map((result) => result.cpu.server)).toFixed(2)} + ${median(results.map((result) => result.cpu.postgres)).toFixed(2)}`;
  const met = first.target === null ? '' : median(ratios) >= first.target && median(p99s) < 50 ? 'met' : 'MISSED';
  console.log(
    `| ${first.name} | ${first.target === null ? '—' : `≥ ${first.target}, p99 < 50 ms`} | ${median(rates).toFixed(0)} | ${median(ratios).toFixed(2)} | ${spread(ratios, 2)} | ${median(p99s)} ms | ${spread(p99s, 0)} ms | ${cpu} | ${met} |`,
  );
}
console.log(
  `| GET /subnets/{id}, embedded PGlite (one process) | — | ${embedded.requestsPerSecond.toFixed(0)} | ${(embedded.requestsPerSecond / median(nth(hot, 0).map((result) => result.result.requestsPerSecond))).toFixed(2)} | | ${embedded.p99} ms | | | |`,
);
console.log(
  `\nServer memory growth over an export of 100,000 addresses: ${exportGrowth.toFixed(0)} MB (flat: streamed)`,
);
console.log(
  `\nServer resident memory after the load: ${rss.toFixed(0)} MB (target < 300 MB) ${rss < 300 ? 'met' : 'MISSED'}`,
);
if (ceilings.length > 0) printCeilings(ceilings);
if (fairness.length > 0) printFairness(fairness);

/** GET /subnets/{id} on the embedded database: its own data directory, seeded, then served by one process. */
async function embeddedRow() {
  const dataDir = mkdtempSync(join(tmpdir(), 'ipam-bench-'));
  try {
    const local = await openDatabase({ dataDir });
    const localSeed = seeder(local.db);
    const org = await localSeed.enterpriseOrg();
    const site = await hotSite(localSeed, org.orgId);
    await local.close();
    const embeddedServer = await startServerProcess({ DATA_DIR: dataDir, DATABASE_URL: '', WEBHOOK_WORKER: 'off' });
    try {
      const options = {
        url: `${embeddedServer.url}/api/v1/subnets/${site}`,
        headers: { authorization: `Bearer ${org.key}` },
        expect: 200,
      };
      await load({ ...options, seconds: 1 });
      return await load({ ...options, seconds });
    } finally {
      await embeddedServer.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
