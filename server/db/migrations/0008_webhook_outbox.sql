-- The webhook outbox (docs/decisions.md, "Webhooks: delivery"): an event is written in the transaction of the change it
-- describes, with one delivery row per matching active subscription, so no event is lost when the
-- process dies before sending it. Workers claim due rows with FOR UPDATE SKIP LOCKED.
CREATE TABLE webhook_events (
  -- The webhook-id header: the same on every attempt of this event, to every subscription.
  id uuid PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  type text NOT NULL,
  -- The body's `data`: {id, changes} (plus original and parts for subnet.split).
  payload jsonb NOT NULL,
  -- The body's `timestamp`: the time of the change (the transaction's, like the activity entry's).
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_events_age ON webhook_events (created_at);

CREATE TABLE webhook_outbox (
  -- Claim order: events in the order they were written.
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
  org_id uuid NOT NULL,
  webhook_id uuid NOT NULL,
  -- Attempts made (claimed) so far.
  attempts integer NOT NULL DEFAULT 0,
  -- When the next attempt is due; null: at once (the first attempt). While an attempt is being sent it
  -- holds the claim's lease, so a worker that died mid-send leaves the row to be claimed again.
  next_attempt_at timestamptz,
  -- pending → delivered (2xx) | failed (schedule exhausted, 410, or the subscription deactivated by its
  -- failures) | cancelled (the subscription was inactive when the attempt came due).
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed', 'cancelled')),
  UNIQUE (event_id, webhook_id),
  FOREIGN KEY (org_id, webhook_id) REFERENCES webhooks (org_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_outbox_due ON webhook_outbox (next_attempt_at NULLS FIRST, id) WHERE state = 'pending';
-- DELETE of a subscription cascades here without scanning the queue.
CREATE INDEX webhook_outbox_webhook ON webhook_outbox (webhook_id);
