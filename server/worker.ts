/**
 * `npm run worker`: delivers webhook events without serving HTTP. Any number of these (and of servers,
 * whose in-process worker WEBHOOK_WORKER=off disables) may share one PostgreSQL database (DATABASE_URL);
 * the embedded database belongs to one process, so with PGlite run either the server or this.
 */
import { loadConfig } from './config';
import { openConfiguredDatabase } from './db/configured';
import { startWebhookWorker } from './modules/webhooks/events/runtime';

const config = loadConfig();
const database = await openConfiguredDatabase(config);
const worker = startWebhookWorker(database.db, config);
// Keep the process alive: the worker's timers are unref'd so that they never hold a server open.
const keepAlive = setInterval(() => {}, 60_000);
console.log(
  `webhook worker running (${database.kind === 'pglite' ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL server'})`,
);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: stopping the webhook worker`);
  clearInterval(keepAlive);
  worker
    .stop()
    .then(() => database.close())
    .finally(() => process.exit(0));
  setTimeout(() => process.exit(1), 20_000).unref();
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
