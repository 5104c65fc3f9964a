/** The worker as the server and `npm run worker` run it: real time, the system resolver, the configured allow list. */
import { lookup } from 'node:dns/promises';
import type { Config } from '../../../config';
import type { Db } from '../../../db/connection';
import { countPending } from './queue.repo';
import { createWebhookWorker, type WebhookWorker } from './worker';

/** Every address the system resolver gives for a host. */
async function systemResolver(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}

/** WEBHOOK_WORKER=off keeps the server from delivering (when dedicated `npm run worker` processes do). */
export const inProcessWorkerEnabled = (env: NodeJS.ProcessEnv = process.env) =>
  !['off', 'false', '0'].includes((env.WEBHOOK_WORKER ?? '').trim().toLowerCase());

/**
 * Builds and starts a worker polling every second and purging old deliveries hourly (unless `purge` is false);
 * stop() it before closing the database.
 */
export function startWebhookWorker(
  db: Db,
  config: Pick<Config, 'outboundAllowCidrs'>,
  { purge = true } = {},
): WebhookWorker {
  const worker = createWebhookWorker({ db, allowCidrs: config.outboundAllowCidrs, resolveHost: systemResolver, purge });
  worker.start();
  return worker;
}

/** Delivery attempts not yet made or finished, for the webhook_queue_depth metric (every worker's queue). */
export const webhookQueueDepth = (db: Db): Promise<number> => countPending(db);
