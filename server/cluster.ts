/**
 * WEB_CONCURRENCY=N: N server processes (workers, server/serve.ts) on one port, with node:cluster. The primary
 * serves nothing itself and loads neither the app nor the database: it forks the workers (the kernel's
 * connections are handed to them in turn), forks a new one when one dies, and on SIGTERM or SIGINT stops
 * them gracefully and exits once they all have.
 *
 * What the workers share, and what each keeps (docs/performance.md, "Production runtime"):
 * - Migrations: each worker runs them at start; migrate.ts holds a transaction-level advisory lock while it
 *   applies them, so the first applies each once and the others wait and find them applied.
 * - Webhook delivery: every worker polls the outbox; each claims due rows with FOR UPDATE SKIP LOCKED (as any
 *   number of servers and `npm run worker` processes do), so no attempt is sent twice.
 * - The periodic purges (activity past retention, idempotency keys, old webhook deliveries): one worker runs
 *   them (IPAM_CLUSTER_JOBS=1 in its environment), and the worker that replaces it when it dies.
 * - Caches of callers and webhook subscriptions: per worker, each with its LISTEN connection, invalidated by
 *   NOTIFY like those of separate servers. Rate-limit leases: per worker, as per process.
 * - SECRETS_KEY: when unset, the primary makes one key for its workers, so a replay reaching another worker
 *   can still be shown its secret (not after a restart: set SECRETS_KEY for that).
 * - GET /metrics: answered by whichever worker takes the connection, with every worker's figures added up
 *   (counters and histograms summed; the webhook queue's depth, the same for all, as its maximum).
 */
import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Registry } from 'prom-client';
import type { Config } from './config';
import type { Logger } from './http/logging';
import type { ClusterMetrics } from './http/metrics';

/** The environment variable that gives one worker of a cluster the periodic jobs. */
const JOBS_VARIABLE = 'IPAM_CLUSTER_JOBS';

/**
 * How many server processes to run: WEB_CONCURRENCY, else one per core on a PostgreSQL server. The embedded
 * database (PGlite) runs inside one process and its data directory belongs to that process: always 1, with a
 * warning when more were asked for.
 */
export function workerCount(
  config: Pick<Config, 'databaseUrl' | 'webConcurrency'>,
  cores = availableParallelism(),
): { count: number; warning?: string } {
  if (!config.databaseUrl)
    return config.webConcurrency !== undefined && config.webConcurrency > 1
      ? {
          count: 1,
          warning:
            `WEB_CONCURRENCY=${config.webConcurrency} is ignored: the embedded database (PGlite) runs inside one ` +
            'process, so the server runs as one. Set DATABASE_URL to a PostgreSQL server to run several workers.',
        }
      : { count: 1 };
  return { count: config.webConcurrency ?? cores };
}

/** Whether this process runs the periodic purges: a process alone does, and the one worker of a cluster told to. */
export const runsPeriodicJobs = () => !cluster.isWorker || process.env[JOBS_VARIABLE] === '1';

/** Messages between the primary and its workers (beside node:cluster's own). */
type Message =
  | { ipam: 'metrics?'; id: number }
  | { ipam: 'metrics'; id: number; text?: string; error?: string }
  | { ipam: 'collect'; id: number }
  | { ipam: 'collected'; id: number; metrics: unknown[] };

const isMessage = (value: unknown): value is Message =>
  typeof value === 'object' && value !== null && typeof (value as { ipam?: unknown }).ipam === 'string';

/** How long the primary waits for the workers' figures; a worker that has not answered by then is left out. */
const COLLECT_TIMEOUT_MS = 2000;

export interface PrimaryOptions {
  config: Config;
  count: number;
  logger: Logger;
  exitAfterLogs: (code: number) => void;
}

/** Runs this process as the cluster's primary. */
export function runPrimary({ config, count, logger, exitAfterLogs }: PrimaryOptions): void {
  const env: Record<string, string> = {};
  if (!config.secretsKey) {
    env.SECRETS_KEY = randomBytes(32).toString('hex');
    logger.warn(
      'SECRETS_KEY is not set: secrets kept for idempotent replays are sealed with a key of this server only (its ' +
        'workers share it), so a retry that reaches another server, or this one after a restart, cannot be shown ' +
        'the secret again. Set SECRETS_KEY (openssl rand -hex 32), the same for every server.',
    );
  }
  const pool = config.databasePoolSize;
  logger.info(
    { workers: count, connectionsPerWorker: pool + 3, connections: count * (pool + 3) },
    `starting ${count} workers; PostgreSQL's max_connections must allow ${count} × (DATABASE_POOL_SIZE ${pool} + 3)`,
  );

  let jobsWorker: Worker | undefined;
  let port: number | undefined;
  let up = false;
  let stopping = false;
  let failed = false;
  const alive = new Set<Worker>();
  const listening = new Set<Worker>();
  const restarts: NodeJS.Timeout[] = [];
  /** Consecutive workers that died within RESTART_QUICK_MS of their start: each waits longer before the next. */
  let quickDeaths = 0;
  const started = new Map<Worker, number>();

  const fork = (withJobs: boolean) => {
    const worker = cluster.fork({ ...env, [JOBS_VARIABLE]: withJobs ? '1' : '0' });
    started.set(worker, Date.now());
    alive.add(worker);
    if (withJobs) jobsWorker = worker;
    return worker;
  };

  cluster.on('listening', (worker, address) => {
    listening.add(worker);
    port ??= address.port;
    if (!up && listening.size === count) {
      up = true;
      logger.info({ workers: count, port }, 'cluster up');
      console.log(
        `IPAM API listening on http://localhost:${port} (PostgreSQL server, ${count} workers); docs at /docs`,
      );
    }
  });

  cluster.on('exit', (worker, code, signal) => {
    const hadJobs = worker === jobsWorker;
    const lived = Date.now() - (started.get(worker) ?? Date.now());
    const wasListening = listening.delete(worker);
    started.delete(worker);
    alive.delete(worker);
    if (stopping) {
      if (code !== 0) failed = true;
      if (alive.size === 0) {
        logger.info({ failed }, 'cluster stopped');
        exitAfterLogs(failed ? 1 : 0);
      }
      return;
    }
    if (!up && !wasListening) {
      // A worker that cannot start (the database unreachable, a migration failing) would fail again at once.
      logger.fatal({ pid: worker.process.pid, code, signal }, 'a worker failed to start: stopping the cluster');
      failed = true;
      stop('startup failure');
      return;
    }
    quickDeaths = lived < RESTART_QUICK_MS ? quickDeaths + 1 : 0;
    const delay = quickDeaths === 0 ? 0 : Math.min(RESTART_MAX_DELAY_MS, 500 * 2 ** (quickDeaths - 1));
    logger.error(
      { pid: worker.process.pid, code, signal, livedMs: lived, restartInMs: delay },
      'a worker exited: starting another',
    );
    restarts.push(setTimeout(() => stopping || fork(hadJobs), delay));
  });

  // GET /metrics in a worker: the primary asks every listening worker for its figures and adds them up.
  let nextCollection = 0;
  const collections = new Map<number, (metrics: unknown[] | null) => void>();
  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage(message)) return;
    if (message.ipam === 'collected') collections.get(message.id)?.(message.metrics);
    else if (message.ipam === 'metrics?')
      aggregate().then(
        (text) => worker.isConnected() && worker.send({ ipam: 'metrics', id: message.id, text } satisfies Message),
        (error: Error) =>
          worker.isConnected() &&
          worker.send({ ipam: 'metrics', id: message.id, error: error.message } satisfies Message),
      );
  });
  async function aggregate(): Promise<string> {
    const { AggregatorRegistry } = await import('prom-client');
    const asked = [...listening].filter((worker) => worker.isConnected());
    const id = nextCollection++;
    const parts: unknown[][] = [];
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, COLLECT_TIMEOUT_MS);
      collections.set(id, (metrics) => {
        if (metrics) parts.push(metrics);
        if (parts.length === asked.length) {
          clearTimeout(timer);
          resolve();
        }
      });
      for (const worker of asked) worker.send({ ipam: 'collect', id } satisfies Message);
      if (asked.length === 0) resolve();
    });
    collections.delete(id);
    return AggregatorRegistry.aggregate(parts).metrics();
  }

  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    for (const timer of restarts) clearTimeout(timer);
    logger.info({ signal }, `${signal}: stopping the workers`);
    if (alive.size === 0) exitAfterLogs(failed ? 1 : 0);
    for (const worker of alive) worker.process.kill('SIGTERM');
    // Each worker has SHUTDOWN_TIMEOUT_MS for its requests in flight and then exits by itself; past a margin more
    // the stragglers are killed.
    setTimeout(() => {
      logger.error('workers still running after the shutdown timeout: killing them');
      for (const worker of alive) worker.process.kill('SIGKILL');
      failed = true;
    }, config.shutdownTimeoutMs + 5000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  for (let i = 0; i < count; i++) fork(i === 0);
}

/** A worker that dies sooner than this after its start counts as a quick death: the next start waits. */
const RESTART_QUICK_MS = 10_000;
const RESTART_MAX_DELAY_MS = 30_000;

/** A cluster worker's side of GET /metrics: it answers the primary's collections and asks it for the sum. */
export function clusterMetrics(): ClusterMetrics {
  let nextRequest = 0;
  const requests = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>();
  let registry: Registry | undefined;
  process.on('message', (message: unknown) => {
    if (!isMessage(message)) return;
    if (message.ipam === 'collect') {
      const send = (metrics: unknown[]) =>
        process.connected && process.send?.({ ipam: 'collected', id: message.id, metrics } satisfies Message);
      if (!registry) send([]);
      else registry.getMetricsAsJSON().then(send, () => send([]));
    } else if (message.ipam === 'metrics') {
      const request = requests.get(message.id);
      requests.delete(message.id);
      if (message.text !== undefined) request?.resolve(message.text);
      else request?.reject(new Error(`the cluster's metrics: ${message.error}`));
    }
  });
  return {
    attach(own) {
      registry = own;
    },
    exposition: () =>
      new Promise<string>((resolve, reject) => {
        const id = nextRequest++;
        const timer = setTimeout(() => {
          requests.delete(id);
          reject(new Error("the cluster's primary did not answer with the metrics"));
        }, COLLECT_TIMEOUT_MS * 2);
        requests.set(id, {
          resolve: (text) => {
            clearTimeout(timer);
            resolve(text);
          },
          reject: (error) => {
            clearTimeout(timer);
            reject(error);
          },
        });
        process.send?.({ ipam: 'metrics?', id } satisfies Message);
      }),
  };
}
