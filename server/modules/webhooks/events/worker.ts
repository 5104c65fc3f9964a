/**
 * The webhook delivery worker. It runs inside the server process (main.ts) and, for more throughput or
 * isolation, as its own process (`npm run worker`, server/worker.ts); any number of them may share one
 * database. Each claims due outbox rows with FOR UPDATE SKIP LOCKED, so no two workers send the same
 * attempt, sends the event through the outbound-safety layer, signed at that moment with the
 * subscription's current secret, records the attempt as a delivery and schedules the next one.
 * Time comes from an injectable clock, so tests drive the retry schedule without sleeping.
 */
import type { Db } from '../../../db/connection';
import { OUTBOUND_TIMEOUT_MS, postJson } from '../../../net/outbound';
import { webhookHeaders } from '../signing';
import * as queue from './queue.repo';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** The waits after each failed attempt (docs/decisions.md, Webhooks: delivery): 8 attempts, then the event fails. */
export const RETRY_SCHEDULE_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length + 1;
/** Consecutive failed attempts after which a subscription is deactivated. */
export const MAX_CONSECUTIVE_FAILURES = 50;
/** Deliveries (and finished events) are kept this long. */
export const RETENTION_MS = 7 * 24 * HOUR;

export interface WorkerOptions {
  db: Db;
  /** The same clock as the server's context. */
  now?: () => Date;
  /** OUTBOUND_ALLOW_CIDRS. */
  allowCidrs: string[];
  resolveHost: (host: string) => Promise<string[]>;
  /** Per attempt (15 s; tests shorten it). */
  timeoutMs?: number;
  /** Attempts claimed at a time. */
  batchSize?: number;
  /** The polling loop's period. */
  pollIntervalMs?: number;
  purgeIntervalMs?: number;
  /** Whether start() purges old deliveries (default); a cluster leaves that to one of its workers. */
  purge?: boolean;
  log?: (message: string, error?: unknown) => void;
  /** Only these organisations' events (tests that share one database with other test files); default all. */
  orgIds?: ReadonlySet<string>;
}

export interface WebhookWorker {
  /** Sends every attempt due now (those that fail are rescheduled, not retried in this call); answers how many. */
  runOnce(): Promise<number>;
  /** Deletes deliveries and finished events older than 7 days. */
  purge(): Promise<void>;
  /** Polls every pollIntervalMs and purges every purgeIntervalMs until stop(). */
  start(): void;
  /** Stops the loop and waits for the attempts in flight. */
  stop(): Promise<void>;
}

export function createWebhookWorker(options: WorkerOptions): WebhookWorker {
  const { db, allowCidrs, resolveHost } = options;
  const now = options.now ?? (() => new Date());
  const timeoutMs = options.timeoutMs ?? OUTBOUND_TIMEOUT_MS;
  const batchSize = options.batchSize ?? 20;
  const scope = options.orgIds ?? null;
  const log = options.log ?? ((message, error) => console.error(message, error));
  // A worker that died mid-send leaves its claim to be taken again after the lease, well past the timeout.
  const leaseMs = timeoutMs + 60 * SECOND;

  /** Sends one attempt and records it; answers whether the subscription is still active. */
  async function deliver(item: queue.Claimed): Promise<boolean> {
    const sentAt = now();
    const body = JSON.stringify({ type: item.type, timestamp: item.createdAt.toISOString(), data: item.payload });
    const headers = webhookHeaders(item.secret, item.eventId, Math.floor(sentAt.getTime() / 1000), body);
    const result = await postJson(item.url, body, headers, { allowCidrs, resolveHost }, timeoutMs);
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const gone = result.status === 410;
    // The wait before the next attempt: the schedule has one for every attempt but the last.
    const wait = RETRY_SCHEDULE_MS[item.attempt - 1];
    const retryAt =
      ok || gone || item.attempt >= MAX_ATTEMPTS || wait === undefined ? null : new Date(now().getTime() + wait);
    const { active } = await queue.recordAttempt(db, item, {
      status: result.status,
      durationMs: result.durationMs,
      sentAt,
      outcome: ok ? 'delivered' : gone ? 'gone' : 'failed',
      retryAt,
      maxFailures: MAX_CONSECUTIVE_FAILURES,
    });
    return active;
  }

  /** One subscription's attempts in order, different subscriptions in parallel; answers how many were sent. */
  async function deliverAll(items: queue.Claimed[]): Promise<number> {
    let sent = 0;
    const bySubscription = new Map<string, queue.Claimed[]>();
    for (const item of items) bySubscription.set(item.webhookId, [...(bySubscription.get(item.webhookId) ?? []), item]);
    await Promise.all(
      [...bySubscription.values()].map(async (list) => {
        for (const [i, item] of list.entries()) {
          try {
            sent++;
            if (!(await deliver(item))) {
              // Deactivated (410, too many failures) or deleted: the rest of this batch is not sent.
              await queue.cancelClaimed(db, list.slice(i + 1));
              return;
            }
          } catch (error) {
            log('webhook delivery failed', error);
          }
        }
      }),
    );
    return sent;
  }

  let stopped = false;

  async function runOnce(): Promise<number> {
    await queue.cancelForInactive(db, scope);
    let sent = 0;
    while (!stopped) {
      const at = now();
      const claimed = await queue.claimDue(db, at, new Date(at.getTime() + leaseMs), batchSize, scope);
      if (claimed.length === 0) return sent;
      sent += await deliverAll(claimed);
    }
    return sent;
  }

  async function purge() {
    const cutoff = new Date(now().getTime() - RETENTION_MS);
    await queue.purgeDeliveriesBefore(db, cutoff, scope);
    await queue.purgeFinishedBefore(db, cutoff, scope);
  }

  let timers: NodeJS.Timeout[] = [];
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const guarded = (task: () => Promise<unknown>, what: string) => () => {
    if (busy) return;
    busy = true;
    running = task()
      .catch((error) => log(what, error))
      .finally(() => {
        busy = false;
      });
  };

  return {
    runOnce,
    purge,
    start() {
      if (timers.length > 0) return;
      stopped = false;
      const poll = guarded(runOnce, 'webhook worker: polling failed');
      const clean = guarded(purge, 'webhook worker: purge failed');
      timers = [setInterval(poll, options.pollIntervalMs ?? SECOND)];
      if (options.purge !== false) timers.push(setInterval(clean, options.purgeIntervalMs ?? HOUR));
      for (const timer of timers) timer.unref();
      poll();
    },
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      timers = [];
      await running;
    },
  };
}
