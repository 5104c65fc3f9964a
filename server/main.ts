/**
 * `npm start` (compiled ahead to dist/main.js by scripts/build-server.mjs): the HTTP server. It runs as one
 * process (server/serve.ts), or with WEB_CONCURRENCY=N > 1 (by default one per core on a PostgreSQL server;
 * always one on the embedded database) as the primary of a cluster of N such processes on one port
 * (server/cluster.ts), which loads neither the app nor the database itself.
 */
import cluster from 'node:cluster';
import { runPrimary, workerCount } from './cluster';
import { loadConfig } from './config';
import { createLogger, stdoutDestination } from './http/logging';

const config = loadConfig();
// JSON lines on standard output, written asynchronously from a buffer (flushed when the process exits).
const logStream = stdoutDestination();
const logger = createLogger(config.logLevel, logStream);
/** Exits once the buffered log lines are written (at most a second later). */
const exitAfterLogs = (code: number) => {
  logStream.flush(() => process.exit(code));
  setTimeout(() => {
    logStream.flushSync();
    process.exit(code);
  }, 1000).unref();
};
process.on('uncaughtException', (error) => {
  logger.fatal({ err: error }, 'uncaught exception: exiting');
  logStream.flushSync();
  process.exit(1);
});
process.on('unhandledRejection', (error) => {
  logger.fatal({ err: error }, 'unhandled promise rejection: exiting');
  logStream.flushSync();
  process.exit(1);
});

const { count, warning } = workerCount(config);
if (cluster.isPrimary && count > 1) runPrimary({ config, count, logger, exitAfterLogs });
else {
  if (warning && cluster.isPrimary) logger.warn(warning);
  // Imported here, so that a cluster's primary never loads the app, its packages or a database driver.
  const { serve } = await import('./serve');
  await serve({ config, logger, logStream, exitAfterLogs });
}
