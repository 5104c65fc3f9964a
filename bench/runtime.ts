/**
 * The production runtime (issue 22): time to ready, resident memory idle and after a load, and the load's
 * throughput, for the server run from its TypeScript source (tsx, what `npm start` ran before) and compiled
 * ahead (dist/, what it runs now), on the embedded database and on PostgreSQL, with 1 or more workers.
 *
 *   npx tsx bench/runtime.ts                                   the embedded database only
 *   bash .ci/with-postgres.sh npx tsx bench/runtime.ts         both (PostgreSQL from TEST_DATABASE_URL)
 *
 * Knobs: RUNTIME_ROUNDS (3), RUNTIME_SECONDS of load (20), RUNTIME_CONNECTIONS (50),
 * RUNTIME_CASES (comma-separated `<tsx|dist|before>-<pglite|postgres>-<workers>`; default every variant on
 * every database with 1 worker, and dist on PostgreSQL with 2), RUNTIME_IDLE_SECONDS before the idle figure (5),
 * RUNTIME_BEFORE_DIR: a checkout of an older commit whose `tsx server/main.ts` the `before` cases run (its
 * node_modules linked to this one's), e.g. `git archive <commit> | tar -x -C <dir>`.
 * Each round runs every case once, in the opposite order to the round before. Ready: process start (spawn)
 * until GET /readyz answers 200 (the database answers and has every migration). Memory: the resident set
 * of the whole process tree (tsx's CLI and its server; the cluster's primary and workers) and of its
 * largest process. Load: GET /api/v1/subnets/{id} with autocannon in this process (bench/load.ts).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../test/support/process';
import { load } from './load';

const rounds = Number(process.env.RUNTIME_ROUNDS ?? 3);
const seconds = Number(process.env.RUNTIME_SECONDS ?? 20);
const connections = Number(process.env.RUNTIME_CONNECTIONS ?? 50);
const idleSeconds = Number(process.env.RUNTIME_IDLE_SECONDS ?? 5);
const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;

interface Case {
  name: string;
  variant: 'tsx' | 'dist' | 'before';
  database: 'pglite' | 'postgres';
  workers: number;
}

const parseCase = (name: string): Case => {
  const [variant, database, workers] = name.split('-');
  if (
    (variant !== 'tsx' && variant !== 'dist' && variant !== 'before') ||
    (database !== 'pglite' && database !== 'postgres')
  )
    throw new Error(`RUNTIME_CASES: ${name} is not <tsx|dist|before>-<pglite|postgres>-<workers>`);
  if (variant === 'before' && !process.env.RUNTIME_BEFORE_DIR)
    throw new Error(`RUNTIME_CASES: ${name} needs RUNTIME_BEFORE_DIR`);
  return { name, variant, database, workers: Number(workers ?? 1) };
};
const defaultCases = ['tsx-pglite-1', 'dist-pglite-1', ...(databaseUrl ? ['tsx-postgres-1', 'dist-postgres-1'] : [])];
if (databaseUrl) defaultCases.push('dist-postgres-2');
const cases = (process.env.RUNTIME_CASES?.split(',') ?? defaultCases).map(parseCase);
if (cases.some((c) => c.database === 'postgres') && !databaseUrl)
  throw new Error('PostgreSQL cases need TEST_DATABASE_URL: run through bash .ci/with-postgres.sh');

/** The processes of a tree: its root and every descendant (Linux /proc). */
function tree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const [, afterName = ''] = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ');
      const parent = Number(afterName.split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone while read.
    }
  }
  const all = [root];
  for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i] as number) ?? []));
  return all;
}

const rssOf = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
};

/** Resident memory in MB: the whole tree's and its largest process's. */
function memory(root: number) {
  const each = tree(root).map(rssOf);
  return { total: each.reduce((a, b) => a + b, 0), largest: Math.max(...each) };
}

const tsxBin = resolve('node_modules', '.bin', 'tsx');
const commandOf = (c: Case): [string, string[], string] =>
  c.variant === 'dist'
    ? [process.execPath, ['--enable-source-maps', 'dist/main.js'], process.cwd()]
    : [tsxBin, ['server/main.ts'], c.variant === 'before' ? (process.env.RUNTIME_BEFORE_DIR as string) : process.cwd()];

/** A data directory per embedded case, kept across rounds (a restart finds its data, as in production). */
const dataDirs = new Map<string, string>();
const envOf = (c: Case): Record<string, string> =>
  c.database === 'postgres'
    ? { DATABASE_URL: databaseUrl as string }
    : {
        DATABASE_URL: '',
        DATA_DIR:
          dataDirs.get(c.name) ?? (dataDirs.set(c.name, mkdtempSync(join(tmpdir(), 'runtime-'))).get(c.name) as string),
      };

const baseEnv = { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', WEBHOOK_WORKER: 'off' };

/** An enterprise key with no practical rate limit, made by the operator command on the case's storage. */
function operatorKey(c: Case): string {
  const env = { ...baseEnv, ...envOf(c) };
  const admin = (...args: string[]) =>
    execFileSync(process.execPath, ['dist/admin.js', ...args], { env, encoding: 'utf8' })
      .trim()
      .split('\n')
      .at(-1);
  const email = `runtime-${c.database}@bench.test`;
  const key = admin('create-key', '--email', email, '--plan', 'enterprise');
  admin('set-limits', '--email', email, '--limit', 'rate_limit=1000000000');
  if (!key?.startsWith('svc_')) throw new Error(`no key from the operator command: ${key}`);
  return key;
}

interface Sample {
  readyMs: number;
  idle: { total: number; largest: number };
  loaded: { total: number; largest: number };
  requestsPerSecond: number;
  p99: number;
}

async function waitReady(url: string, child: ChildProcess, started: number): Promise<number> {
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  for (;;) {
    if (exited) throw new Error('the server exited before it was ready');
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (response.status === 200) return performance.now() - started;
    } catch {
      // Not listening yet.
    }
    if (performance.now() - started > 60_000) throw new Error('not ready within 60 s');
    await sleep(10);
  }
}

/** The key of each storage: the PostgreSQL database, shared by its cases, or a PGlite case's own directory. */
const keys = new Map<string, string>();
const storageOf = (c: Case) => (c.database === 'postgres' ? 'postgres' : c.name);
const subnets = new Map<string, string>();

async function measure(c: Case): Promise<Sample> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const [command, args, cwd] = commandOf(c);
  const started = performance.now();
  const child = spawn(command, args, {
    cwd,
    env: { ...baseEnv, ...envOf(c), PORT: String(port), WEB_CONCURRENCY: String(c.workers) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    const readyMs = await waitReady(url, child, started);
    await sleep(idleSeconds * 1000);
    const idle = memory(child.pid as number);
    const key = keys.get(storageOf(c)) as string;
    const headers = { authorization: `Bearer ${key}` };
    let subnet = subnets.get(c.name);
    if (!subnet) {
      const third = subnets.size + 1;
      const response = await fetch(`${url}/api/v1/subnets`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ network: `10.${third}.0.0/24`, description: 'runtime bench' }),
      });
      if (response.status !== 201) throw new Error(`creating the subnet: ${response.status} ${await response.text()}`);
      subnet = ((await response.json()) as { id: string }).id;
      subnets.set(c.name, subnet);
    }
    const result = await load({ url: `${url}/api/v1/subnets/${subnet}`, headers, expect: 200, connections, seconds });
    if (result.unexpected > 0) throw new Error(`${result.unexpected} unexpected answers under load`);
    const loaded = memory(child.pid as number);
    return { readyMs, idle, loaded, requestsPerSecond: result.requestsPerSecond, p99: result.p99 };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};
const spread = (values: number[], digits = 0) =>
  `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

execFileSync(process.execPath, ['scripts/build-server.mjs'], { stdio: 'inherit' });
for (const c of cases) if (!keys.has(storageOf(c))) keys.set(storageOf(c), operatorKey(c));

const samples = new Map<string, Sample[]>(cases.map((c) => [c.name, []]));
for (let round = 0; round < rounds; round++) {
  const order = round % 2 === 0 ? cases : [...cases].reverse();
  for (const c of order) {
    const sample = await measure(c);
    samples.get(c.name)?.push(sample);
    console.log(
      `round ${round + 1} ${c.name}: ready ${sample.readyMs.toFixed(0)} ms, idle ${sample.idle.total.toFixed(0)} MB ` +
        `(largest ${sample.idle.largest.toFixed(0)}), after load ${sample.loaded.total.toFixed(0)} MB ` +
        `(largest ${sample.loaded.largest.toFixed(0)}), ${sample.requestsPerSecond.toFixed(0)} req/s, ` +
        `p99 ${sample.p99} ms`,
    );
  }
}

console.log(
  `\n${rounds} rounds, ${seconds} s of GET /subnets/{id} at ${connections} connections; median (min–max)\n\n` +
    '| case | ready ms | RSS idle MB: all (largest process) | RSS after load MB: all (largest) | req/s | p99 ms |\n' +
    '|---|---|---|---|---|---|',
);
for (const c of cases) {
  const s = samples.get(c.name) ?? [];
  console.log(
    `| ${c.name} | ${spread(s.map((x) => x.readyMs))} | ${spread(s.map((x) => x.idle.total))} (${spread(
      s.map((x) => x.idle.largest),
    )}) | ${spread(s.map((x) => x.loaded.total))} (${spread(s.map((x) => x.loaded.largest))}) | ${spread(
      s.map((x) => x.requestsPerSecond),
    )} | ${spread(s.map((x) => x.p99))} |`,
  );
}
for (const dir of dataDirs.values()) rmSync(dir, { recursive: true, force: true });
