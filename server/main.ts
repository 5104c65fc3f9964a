import type { AddressInfo } from 'node:net';
import { createApp } from './app';
import { loadConfig } from './config';
import { openConfiguredDatabase } from './database';
import { memoryCounters, postgresCounters } from './http/rate-limit';
import { createMailer } from './mail/mailer';
import { startActivityPurge } from './modules/activity/activity.service';

const config = loadConfig();
const database = await openConfiguredDatabase(config);
const app = createApp(config, {
  db: database.db,
  counters: database.kind === 'postgres' ? postgresCounters(database.db) : memoryCounters(),
  mailer: createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom }, (message) => console.log(message)),
});
// Entries past their plan's retention are deleted at start and then hourly (the timer is unref'd).
const stopActivityPurge = startActivityPurge(database.db);
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
    database.close().finally(() => process.exit(0));
  });
  setTimeout(() => process.exit(1), 10_000).unref();
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
