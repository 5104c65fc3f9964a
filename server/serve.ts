/**
 * One server process: the database, the HTTP app on PORT, the background jobs, and its graceful shutdown.
 * main.ts runs it alone (WEB_CONCURRENCY=1, and always on the embedded database) or in each worker of a
 * cluster (server/cluster.ts), which then shares the port, one key for sealed secrets and its metrics.
 */
import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import type { DestinationStream } from 'pino';
import { createApp } from './app';
import { clusterMetrics, runsPeriodicJobs } from './cluster';
import { type Config, serverSecretsKey } from './config';
import { openConfiguredDatabase } from './db/configured';
import { compactAddressTallies, vacuumEmbedded } from './db/maintenance';
import type { Logger } from './http/logging';
import { memoryCounters, postgresCounters } from './http/rate-limit';
import { createMailer } from './mail/mailer';
import { startActivityPurge } from './modules/activity/activity.service';
import { startHoldRelease } from './modules/addresses/addresses.service';
import { startIdempotencyPurge } from './modules/idempotency/idempotency.service';
import { runPeriodically } from './modules/shared/periodic';
import { inProcessWorkerEnabled, startWebhookWorker } from './modules/webhooks/events/runtime';

export interface ServeOptions {
  config: Config;
  logger: Logger;
  logStream: DestinationStream;
  /** Exits once the buffered log lines are written. */
  exitAfterLogs: (code: number) => void;
}

export async function serve({ config, logger, logStream, exitAfterLogs }: ServeOptions): Promise<void> {
  const worker = cluster.isWorker;
  const database = await openConfiguredDatabase(config);
  const secrets = serverSecretsKey(config);
  if (secrets.ephemeral)
    logger.warn(
      'SECRETS_KEY is not set: secrets kept for idempotent replays are sealed with a key of this process only, so a ' +
        'retry that reaches another process, or this one after a restart, cannot be shown the secret again. Set ' +
        'SECRETS_KEY (openssl rand -hex 32), the same for every process.',
    );
  const app = createApp(
    { ...config, secretsKey: secrets.key },
    {
      db: database.db,
      counters: database.kind === 'postgres' ? postgresCounters(database.db) : memoryCounters(),
      mailer: createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom }, (message) => console.log(message)),
      logStream,
      // In a cluster, GET /metrics answers every worker's figures, added up by the primary.
      clusterMetrics: worker ? clusterMetrics() : undefined,
    },
  );
  // Periodic purges: in a cluster, one worker runs them (the same DELETEs in every worker would only wait on
  // each other's row locks); webhook delivery runs in every worker (each claims its rows with SKIP LOCKED).
  const periodic = runsPeriodicJobs();
  const logFailure = (message: string, error: unknown) => logger.error({ err: error }, message);
  /** A job run at start and then hourly (the timer is unref'd) when `when` holds. */
  const hourly = (when: boolean, what: string, task: () => Promise<unknown>) =>
    when ? runPeriodically(what, 3600_000, task, logFailure) : () => {};
  // Entries past their plan's retention are deleted at start and then hourly.
  const stopActivityPurge = periodic ? startActivityPurge(database.db, undefined, logFailure) : () => {};
  // Idempotency keys are kept 24 hours: purged at start and then hourly too.
  const stopIdempotencyPurge = periodic ? startIdempotencyPurge(database.db, logFailure) : () => {};
  // Held addresses whose hold ended are released every few seconds (each once, whichever process does it).
  const stopHoldRelease = periodic
    ? startHoldRelease(database.db, config.holdReleaseIntervalMs, () => new Date(), logFailure)
    : () => {};
  // The address tallies' rows of past connections merged.
  const stopTallies = hourly(periodic, 'address tallies compaction', () => compactAddressTallies(database.db));
  // The embedded database has no autovacuum: vacuumed and analysed.
  const stopVacuum = hourly(database.kind === 'pglite', 'embedded database vacuum', () => vacuumEmbedded(database.db));
  // Webhook events are delivered from the outbox by a worker polling every second (unless WEBHOOK_WORKER=off).
  const webhookWorker = inProcessWorkerEnabled() ? startWebhookWorker(database.db, config, { purge: periodic }) : null;
  const server = app.listen(config.port, config.host, () => {
    const where = database.kind === 'pglite' ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL server';
    const { port } = server.address() as AddressInfo;
    // The one plain-text line (for people and scripts waiting for the port); everything after is JSON. In a
    // cluster the primary prints it once every worker listens.
    if (worker) logger.info({ port, periodicJobs: periodic }, 'worker listening');
    else console.log(`IPAM API listening on http://localhost:${port} (${where}); docs at /docs`);
  });

  /**
   * Graceful shutdown: stop accepting connections, close idle keep-alive connections at once and the others
   * as soon as their request in flight is answered, let the webhook worker finish the delivery it is
   * sending, close the database, exit 0. Past SHUTDOWN_TIMEOUT_MS the remaining connections are cut and the
   * process exits 1.
   */
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    const started = Date.now();
    logger.info({ signal, timeoutMs: config.shutdownTimeoutMs }, `${signal}: shutting down`);
    stopActivityPurge();
    stopHoldRelease();
    stopIdempotencyPurge();
    stopTallies();
    stopVacuum();
    const drained = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // A request that still arrives on an open keep-alive connection is answered, with Connection: close.
    server.prependListener('request', (_req, res) => res.setHeader('Connection', 'close'));
    // A keep-alive connection becomes idle when its last response ends: close it then rather than wait.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const deadline = setTimeout(() => {
      logger.error(
        { signal, timeoutMs: config.shutdownTimeoutMs },
        'shutdown timed out: closing the connections still open and exiting',
      );
      server.closeAllConnections();
      exitAfterLogs(1);
    }, config.shutdownTimeoutMs);
    deadline.unref();
    Promise.all([
      drained.then(() => clearInterval(sweep)),
      // Stops polling at once; resolves when the attempts being sent are answered and recorded.
      Promise.resolve(webhookWorker?.stop()),
    ])
      .then(() => database.close())
      .then(
        () => {
          logger.info({ signal, durationMs: Date.now() - started }, 'shut down');
          exitAfterLogs(0);
        },
        (error) => {
          logger.error({ err: error }, 'shutdown failed');
          exitAfterLogs(1);
        },
      );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
