/** The SQL of the webhook outbox (outbox.ts): the subscriptions an event goes to, and the events' rows. */
import type { Db } from '../../db/connection';
import type { Step } from '../../db/pipeline';
import { prepared } from '../../db/prepared';
import type { ExistingIn } from './activity.repo';

/** An active subscription, and the event types it wants (none: every type). */
export type Subscription = { id: string; eventTypes: string[] };

const activeSubscriptions = prepared<Subscription, { orgId: string }>(
  'webhooks_active',
  'SELECT id, event_types AS "eventTypes" FROM webhooks WHERE org_id = :orgId AND is_active',
);

/** The organisation's active subscriptions. */
export const activeSubscriptionsOf = (db: Db, orgId: string) => activeSubscriptions(db, { orgId });

/**
 * Events and their deliveries in one statement. A delivery is written only to a subscription still active
 * in the database: the cached list may lag behind a subscription paused or deleted through another process.
 * The subscription is locked against deletion (FOR KEY SHARE) as it is read: a delete under way is waited
 * for and then leaves no row to write, where the foreign key would have refused the delivery (a 500).
 */
/** The parameters of both: the events and their deliveries as JSON. */
type EventRows = { orgId: string; events: string; deliveries: string };

const insertEvents = prepared<unknown, EventRows>(
  'webhook_events_insert',
  `WITH events AS (
     INSERT INTO webhook_events (id, org_id, type, payload)
     SELECT id, :orgId, type, payload FROM jsonb_to_recordset(:events::jsonb) AS e(id uuid, type text, payload jsonb))
   INSERT INTO webhook_outbox (event_id, org_id, webhook_id)
   SELECT d.event_id, :orgId, d.webhook_id FROM jsonb_to_recordset(:deliveries::jsonb) AS d(event_id uuid, webhook_id uuid)
   JOIN webhooks w ON w.org_id = :orgId AND w.id = d.webhook_id AND w.is_active
   FOR KEY SHARE OF w`,
);

/** The same, for only the events whose address the steps before it created (see activity's `existingIn`). */
const insertEventsOfExisting = prepared<unknown, EventRows>(
  'webhook_events_insert_of_existing_addresses',
  `WITH events AS (
     INSERT INTO webhook_events (id, org_id, type, payload)
     SELECT id, :orgId, type, payload FROM jsonb_to_recordset(:events::jsonb) AS e(id uuid, type text, payload jsonb)
     WHERE EXISTS (SELECT 1 FROM addresses x WHERE x.id = (e.payload ->> 'id')::uuid)
     RETURNING id)
   INSERT INTO webhook_outbox (event_id, org_id, webhook_id)
   SELECT d.event_id, :orgId, d.webhook_id FROM jsonb_to_recordset(:deliveries::jsonb) AS d(event_id uuid, webhook_id uuid)
   JOIN events ON events.id = d.event_id
   JOIN webhooks w ON w.org_id = :orgId AND w.id = d.webhook_id AND w.is_active
   FOR KEY SHARE OF w`,
);

/**
 * The step writing these events and their deliveries (`webhook_events` and `webhook_outbox` rows); with
 * `existingIn`, only those of the objects the steps before it created.
 */
export const insertEventsStep = (
  orgId: string,
  events: { id: string; type: string; payload: unknown }[],
  deliveries: { event_id: string; webhook_id: string }[],
  existingIn?: ExistingIn,
): Step<unknown> =>
  (existingIn ? insertEventsOfExisting : insertEvents).step({
    orgId,
    events: JSON.stringify(events),
    deliveries: JSON.stringify(deliveries),
  });
