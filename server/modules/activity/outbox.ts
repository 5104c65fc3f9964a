/**
 * The webhook outbox: `eventSteps` are written in the transaction of a change (with its activity entries),
 * so an event exists exactly when its change does. Each event gets one `webhook_outbox` row per active
 * subscription of the organisation whose `event_types` is empty or lists the event's type; the worker
 * (server/modules/webhooks/events/worker.ts) delivers those rows. Nothing is written when no subscription
 * wants the event. It belongs to the activity module, which writes the events of the entries it writes:
 * the webhooks module records activity itself, so the outbox there would make the two modules a cycle.
 */
import { randomUUID } from 'node:crypto';
import type { WebhookEvent } from '../../../contract/webhook-events';
import type { ChangeFeed } from '../../db/change-feed';
import { changeFeedOf, type Db } from '../../db/connection';
import type { Step } from '../../db/pipeline';
import { type ActivityRecord, operationOf } from './activity.changes';
import type { ExistingIn } from './activity.repo';
import { activeSubscriptionsOf, insertEventsStep, type Subscription } from './outbox.repo';

/** The resources whose changes are webhook events (not keys, members, invitations, webhooks or the org). */
const EVENT_RESOURCES = ['folder', 'subnet', 'address', 'vlan', 'vrf', 'location'] as const;
type EventResource = (typeof EVENT_RESOURCES)[number];
const isEventResource = (resource: string): resource is EventResource =>
  (EVENT_RESOURCES as readonly string[]).includes(resource);

const VERB = { create: 'created', update: 'updated', delete: 'deleted' } as const;

type WithoutTimestamp<T> = T extends unknown ? Omit<T, 'timestamp'> : never;

/** An event before it is sent: the contract's body of a change event, less the time of sending. */
export type PendingEvent = WithoutTimestamp<Exclude<WebhookEvent, { type: 'ping' }>>;

type Pair = [unknown, unknown];

/** The event an activity entry stands for, or null when it is not one (event types: docs/decisions.md). */
function eventOf(entry: ActivityRecord): PendingEvent | null {
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
  // A hold that ended is a delete of its own kind (only addresses are held).
  if (entry.action === 'release') return resource === 'address' ? { type: 'address.released', data } : null;
  return { type: `${resource}.${VERB[operationOf(entry.action, entry.changes)]}`, data };
}

/** How long a cached answer is kept at most (a safety net: changes are notified). */
const CACHE_TTL_MS = 60_000;
const CACHE_MAX_ORGS = 50_000;

type SubscriptionCache = {
  entries: Map<string, { subscriptions: Subscription[]; until: number }>;
  generation: number;
};
const caches = new WeakMap<ChangeFeed, SubscriptionCache>();

function cacheOf(feed: ChangeFeed): SubscriptionCache {
  let cache = caches.get(feed);
  if (!cache) {
    const created: SubscriptionCache = { entries: new Map(), generation: 0 };
    feed.subscribe('webhooks_changed', () => {
      created.generation++;
      created.entries.clear();
    });
    caches.set(feed, created);
    cache = created;
  }
  return cache;
}

/**
 * The organisation's active subscriptions, cached per process while the change feed is reliable: every
 * change writes events, subscriptions change seldom, and a trigger notifies each change of them (heard
 * with the COMMIT by the process that made it, and as soon as PostgreSQL delivers it by the others). A
 * look-up that started before a change never fills the cache after it (the generation check).
 */
async function subscriptionsOf(tx: Db, orgId: string): Promise<Subscription[]> {
  const feed = changeFeedOf(tx);
  if (!feed) return activeSubscriptionsOf(tx, orgId);
  const cache = cacheOf(feed);
  const now = Date.now();
  const hit = cache.entries.get(orgId);
  if (hit && hit.until > now && feed.reliable()) return hit.subscriptions;
  const started = cache.generation;
  const subscriptions = await activeSubscriptionsOf(tx, orgId);
  if (feed.reliable() && cache.generation === started) {
    if (cache.entries.size >= CACHE_MAX_ORGS) cache.entries.clear();
    cache.entries.set(orgId, { subscriptions, until: now + CACHE_TTL_MS });
  }
  return subscriptions;
}

/**
 * The statement writing the events of these activity entries and their deliveries-to-be, as a step of the
 * change's transaction; none when no subscription wants them. With `existingIn`, only the events of objects
 * the steps before it created.
 */
export async function eventSteps(
  db: Db,
  orgId: string,
  entries: ActivityRecord[],
  existingIn?: ExistingIn,
): Promise<Step<unknown>[]> {
  const events = entries.map(eventOf).filter((e): e is PendingEvent => e !== null);
  if (events.length === 0) return [];
  const subscriptions = await subscriptionsOf(db, orgId);
  if (subscriptions.length === 0) return [];

  const rows: { id: string; type: string; payload: unknown }[] = [];
  const queue: { event_id: string; webhook_id: string }[] = [];
  for (const event of events) {
    const targets = subscriptions.filter((s) => s.eventTypes.length === 0 || s.eventTypes.includes(event.type));
    if (targets.length === 0) continue;
    const id = randomUUID();
    rows.push({ id, type: event.type, payload: event.data });
    for (const target of targets) queue.push({ event_id: id, webhook_id: target.id });
  }
  return rows.length === 0 ? [] : [insertEventsStep(orgId, rows, queue, existingIn)];
}
