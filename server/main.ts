import type { AddressInfo } from 'node:net';
import { createApp } from './app';
import { loadConfig } from './config';
import { openConfiguredDatabase } from './db/configured';
import { memoryCounters, postgresCounters } from './http/rate-limit';
import { createMailer } from './mail/mailer';
import { startActivityPurge } from './modules/activity/activity.service';
import { inProcessWorkerEnabled, startWebhookWorker } from './modules/webhooks/events/runtime';

const config = loadConfig();
const database = await openConfiguredDatabase(config);
const app = createApp(config, {
  db: database.db,
  counters: database.kind === 'postgres' ? postgresCounters(database.db) : memoryCounters(),
  mailer: createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom }, (message) => console.log(message)),
});
// Entries past their plan's retention are deleted at start and then hourly (the timer is unref'd).
const stopActivityPurge = startActivityPurge(database.db);
// Webhook events are delivered from the outbox by a worker polling every second (unless WEBHOOK_WORKER=off).
const webhookWorker = inProcessWorkerEnabled() ? startWebhookWorker(database.db, config) : null;
const server = app.listen(config.port, config.host, () => {
  const where = database.kind === 'pglite' ? `embedded PostgreSQL in ${config.dataDir}` : 'PostgreSQL server';
  const { port } = server.address() as AddressInfo;
  console.log(`IPAM API listening on http://localhost:${port} (${where}); docs at /docs`);
});

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  stopActivityPurge();
  console.log(`${signal}: shutting down`);
  server.close(() => {
    Promise.resolve(webhookWorker?.stop())
      .then(() => database.close())
      .finally(() => process.exit(0));
  });
  setTimeout(() => process.exit(1), 10_000).unref();
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
