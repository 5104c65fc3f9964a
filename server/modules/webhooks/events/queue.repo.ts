/** The outbox queue's SQL: claiming due attempts, recording their outcome, cancelling and purging. */
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/connection';
import { transaction } from '../../../db/pipeline';
import { prepared } from '../../../db/prepared';
import { webhookOutbox, webhooks } from '../../../db/schema';
import { first } from '../../shared/rows';
import { insertDelivery, purgeDeliveriesBefore as purgeAllDeliveriesBefore } from '../deliveries.repo';

/** Which organisations' rows a worker handles: all (null), or only these (tests that share one database). */
export type Scope = ReadonlySet<string> | null;

/** A statement's organisations as a parameter: every one (null), or only these (an empty list: none). */
const scoped = (scope: Scope) => (scope === null ? null : [...scope]);

/** The SQL test of a row's organisation `column` against the :scope parameter (see scoped). */
const inScope = (column: string) => `(:scope::uuid[] IS NULL OR ${column} = ANY(:scope::uuid[]))`;

/** One claimed attempt with what sending it needs (the subscription's URL and current secret). */
export interface Claimed {
  id: string;
  eventId: string;
  orgId: string;
  webhookId: string;
  /** This attempt's number (1 for the first). */
  attempt: number;
  type: string;
  createdAt: Date;
  payload: unknown;
  url: string;
  secret: string;
}

interface ClaimedRow {
  id: string;
  event_id: string;
  org_id: string;
  webhook_id: string;
  attempts: number;
  type: string;
  created_at: Date;
  payload: unknown;
  url: string;
  secret: string;
}

const claimed = prepared<ClaimedRow, { now: string; leaseUntil: string; limit: number; scope: string[] | null }>(
  'webhook_queue_claim_due',
  `WITH due AS MATERIALIZED (
     SELECT q.id FROM webhook_outbox q
     JOIN webhooks a ON a.id = q.webhook_id AND a.is_active
     WHERE q.state = 'pending'
       AND (q.next_attempt_at IS NULL OR q.next_attempt_at <= :now::timestamptz)
       AND ${inScope('q.org_id')}
     ORDER BY q.next_attempt_at NULLS FIRST, q.id
     LIMIT :limit
     FOR UPDATE OF q SKIP LOCKED
   )
   UPDATE webhook_outbox o
   SET attempts = o.attempts + 1, next_attempt_at = :leaseUntil::timestamptz
   FROM due, webhook_events e, webhooks w
   WHERE o.id = due.id
     AND e.id = o.event_id
     AND w.id = o.webhook_id
   RETURNING o.id::text AS id, o.event_id, o.org_id, o.webhook_id, o.attempts, e.type, e.created_at, e.payload,
     w.url, w.secret`,
);

/**
 * Claims up to `limit` due attempts of active subscriptions, oldest events first: each claimed row counts
 * the attempt and holds a lease (next_attempt_at = leaseUntil) instead of a lock, so sending happens
 * outside any transaction. SKIP LOCKED lets several workers claim at once without sharing a row; a row
 * another worker claimed since this statement's snapshot is re-checked under its lock and no longer due.
 */
export async function claimDue(
  db: Db,
  now: Date,
  leaseUntil: Date,
  limit: number,
  scope: Scope = null,
): Promise<Claimed[]> {
  const rows = await claimed(db, {
    now: now.toISOString(),
    leaseUntil: leaseUntil.toISOString(),
    limit,
    scope: scoped(scope),
  });
  return rows
    .map((r) => ({
      id: r.id,
      eventId: r.event_id,
      orgId: r.org_id,
      webhookId: r.webhook_id,
      attempt: Number(r.attempts),
      type: r.type,
      createdAt: r.created_at,
      payload: r.payload,
      url: r.url,
      secret: r.secret,
    }))
    .sort((a, b) => Number(a.id) - Number(b.id));
}

export interface AttemptOutcome {
  /** The response status; null when no response arrived. */
  status: number | null;
  durationMs: number;
  sentAt: Date;
  /** delivered: 2xx; gone: 410 (deactivates the subscription); failed: anything else. */
  outcome: 'delivered' | 'gone' | 'failed';
  /** When to try again; null when this was the last attempt. */
  retryAt: Date | null;
  maxFailures: number;
}

/**
 * Records the attempt as a delivery, counts it in the subscription's consecutive failures (reset by a
 * success; a 410 or reaching maxFailures deactivates it) and moves the outbox row on. The row changes
 * only while this worker's claim still holds (same attempt number, still pending).
 */
export async function recordAttempt(db: Db, item: Claimed, result: AttemptOutcome): Promise<{ active: boolean }> {
  return transaction(db, async (tx) => {
    const counts =
      result.outcome === 'delivered'
        ? { failureCount: 0 }
        : {
            failureCount: sql`${webhooks.failureCount} + 1`,
            isActive:
              result.outcome === 'gone'
                ? false
                : sql`${webhooks.isActive} AND ${webhooks.failureCount} + 1 < ${result.maxFailures}`,
          };
    const [hook] = await tx
      .update(webhooks)
      .set(counts)
      .where(and(eq(webhooks.orgId, item.orgId), eq(webhooks.id, item.webhookId)))
      .returning({ isActive: webhooks.isActive });
    if (!hook) return { active: false }; // the subscription was deleted meanwhile, its history with it
    await insertDelivery(tx, {
      orgId: item.orgId,
      webhookId: item.webhookId,
      eventId: item.eventId,
      eventType: item.type,
      attempt: item.attempt,
      responseStatus: result.status,
      durationMs: result.durationMs,
      deliveredAt: result.sentAt,
    });
    const state = result.outcome === 'delivered' ? 'delivered' : result.retryAt && hook.isActive ? 'pending' : 'failed';
    await tx
      .update(webhookOutbox)
      .set({ state, nextAttemptAt: state === 'pending' ? result.retryAt : null })
      .where(
        and(
          eq(webhookOutbox.id, Number(item.id)),
          eq(webhookOutbox.attempts, item.attempt),
          eq(webhookOutbox.state, 'pending'),
        ),
      );
    return { active: hook.isActive };
  });
}

/** Gives back claimed attempts that were not sent because their subscription was deactivated meanwhile. */
export async function cancelClaimed(db: Db, items: Claimed[]): Promise<void> {
  for (const item of items) {
    await db
      .update(webhookOutbox)
      .set({ state: 'cancelled', nextAttemptAt: null })
      .where(
        and(
          eq(webhookOutbox.id, Number(item.id)),
          eq(webhookOutbox.attempts, item.attempt),
          eq(webhookOutbox.state, 'pending'),
        ),
      );
  }
}

const inactiveCancelled = prepared<unknown, { scope: string[] | null }>(
  'webhook_queue_cancel_inactive',
  `UPDATE webhook_outbox SET state = 'cancelled', next_attempt_at = NULL
   WHERE state = 'pending' AND webhook_id IN (SELECT id FROM webhooks WHERE NOT is_active)
     AND ${inScope('org_id')}`,
);

/** Pending attempts of deactivated subscriptions are abandoned (re-activating one does not replay them). */
export async function cancelForInactive(db: Db, scope: Scope = null): Promise<void> {
  await inactiveCancelled(db, { scope: scoped(scope) });
}

const deliveriesPurged = prepared<unknown, { cutoff: string; scope: string[] }>(
  'webhook_queue_purge_deliveries_in_scope',
  'DELETE FROM webhook_deliveries WHERE delivered_at < :cutoff::timestamptz AND org_id = ANY(:scope::uuid[])',
);

/** Deletes the deliveries recorded before `cutoff` (kept 7 days). */
export async function purgeDeliveriesBefore(db: Db, cutoff: Date, scope: Scope = null): Promise<void> {
  if (scope === null) return purgeAllDeliveriesBefore(db, cutoff);
  await deliveriesPurged(db, { cutoff: cutoff.toISOString(), scope: [...scope] });
}

const finishedPurged = prepared<unknown, { cutoff: string; scope: string[] | null }>(
  'webhook_queue_purge_finished',
  `DELETE FROM webhook_events e
   WHERE e.created_at < :cutoff::timestamptz
     AND ${inScope('e.org_id')}
     AND NOT EXISTS (SELECT 1 FROM webhook_outbox o WHERE o.event_id = e.id AND o.state = 'pending')`,
);

/** Deletes events older than `cutoff` that no subscription still waits for (their outbox rows with them). */
export async function purgeFinishedBefore(db: Db, cutoff: Date, scope: Scope = null): Promise<void> {
  await finishedPurged(db, { cutoff: cutoff.toISOString(), scope: scoped(scope) });
}

const pendingCounted = prepared<{ count: number }>(
  'webhook_queue_count_pending',
  "SELECT count(*)::int AS count FROM webhook_outbox WHERE state = 'pending'",
);

/** Outbox rows still pending: attempts due now, scheduled for a retry or being sent (the queue's depth). */
export async function countPending(db: Db): Promise<number> {
  return first(await pendingCounted(db), 'a count of pending deliveries').count;
}
