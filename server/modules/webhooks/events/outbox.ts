/**
 * The webhook outbox: `enqueueEvents` runs inside the transaction of a change (from `recordActivities`),
 * so an event exists exactly when its change does. Each event gets one `webhook_outbox` row per active
 * subscription of the organisation whose `event_types` is empty or lists the event's type; the worker
 * (worker.ts) delivers those rows. Nothing is written when no subscription wants the event.
 */
import { randomUUID } from 'node:crypto';
import type { WebhookEvent } from '../../../../contract/webhook-events';
import type { Db } from '../../../db/connection';
import { prepared } from '../../../db/prepared';
import { webhookEvents, webhookOutbox } from '../../../db/schema';
import type { ActivityRecord } from '../../activity/activity.service';

/** The resources whose changes are webhook events (not keys, members, invitations, webhooks or the org). */
const EVENT_RESOURCES = ['folder', 'subnet', 'address', 'vlan', 'vrf', 'location'] as const;
type EventResource = (typeof EVENT_RESOURCES)[number];
const isEventResource = (resource: string): resource is EventResource =>
  (EVENT_RESOURCES as readonly string[]).includes(resource);

const VERB: Record<string, 'created' | 'updated' | 'deleted'> = {
  create: 'created',
  update: 'updated',
  delete: 'deleted',
  batch_create: 'created',
  batch_update: 'updated',
  batch_delete: 'deleted',
};

type WithoutTimestamp<T> = T extends unknown ? Omit<T, 'timestamp'> : never;

/** An event before it is sent: the contract's body of a change event, less the time of sending. */
export type PendingEvent = WithoutTimestamp<Exclude<WebhookEvent, { type: 'ping' }>>;

type Pair = [unknown, unknown];

/** The event an activity entry stands for, or null when it is not one (DESIGN.md's event types). */
export function eventOf(entry: ActivityRecord): PendingEvent | null {
  const resource = entry.resourceType;
  if (!isEventResource(resource) || entry.resourceId === null) return null;
  const data = { id: entry.resourceId, changes: entry.changes };
  if (entry.action === 'split') {
    if (resource !== 'subnet') return null;
    const changes = entry.changes as Record<string, Pair | undefined>;
    const [original] = changes.network ?? [];
    const [, parts] = changes.parts ?? [];
    return { type: 'subnet.split', data: { ...data, original: String(original), parts: parts as string[] } };
  }
  // An imported object is created when it held no value before, else updated.
  const verb =
    entry.action === 'import'
      ? Object.values(entry.changes as Record<string, Pair>).every((pair) => pair?.[0] === null)
        ? 'created'
        : 'updated'
      : VERB[entry.action];
  return verb ? { type: `${resource}.${verb}`, data } : null;
}

/** Rows per INSERT, well inside PostgreSQL's 65,535 bind parameters. */
const CHUNK = 1000;

function* chunks<T>(items: T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}

const activeSubscriptions = prepared<{ id: string; eventTypes: string[] }>(
  'webhooks_active',
  'SELECT id, event_types AS "eventTypes" FROM webhooks WHERE org_id = $1 AND is_active',
);

/** Writes the events of these activity entries and their deliveries-to-be; call it in the change's transaction. */
export async function enqueueEvents(tx: Db, orgId: string, entries: ActivityRecord[]): Promise<void> {
  const events = entries.map(eventOf).filter((e): e is PendingEvent => e !== null);
  if (events.length === 0) return;
  const subscriptions = await activeSubscriptions(tx, orgId);
  if (subscriptions.length === 0) return;

  const rows: (typeof webhookEvents.$inferInsert)[] = [];
  const queue: (typeof webhookOutbox.$inferInsert)[] = [];
  for (const event of events) {
    const targets = subscriptions.filter((s) => s.eventTypes.length === 0 || s.eventTypes.includes(event.type));
    if (targets.length === 0) continue;
    const id = randomUUID();
    rows.push({ id, orgId, type: event.type, payload: event.data });
    for (const target of targets) queue.push({ eventId: id, orgId, webhookId: target.id });
  }
  for (const chunk of chunks(rows)) await tx.insert(webhookEvents).values(chunk);
  for (const chunk of chunks(queue)) await tx.insert(webhookOutbox).values(chunk);
}
