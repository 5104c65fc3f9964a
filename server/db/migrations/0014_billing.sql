-- Billing through Stripe (server/modules/billing): the organisation's customer and subscription, the time
-- of the last Stripe event applied to it (an older event arriving late changes nothing), and the events
-- already processed (Stripe may send one more than once).
ALTER TABLE organizations
  ADD COLUMN stripe_customer_id text UNIQUE,
  ADD COLUMN stripe_subscription_id text,
  ADD COLUMN billing_event_at timestamptz;

CREATE TABLE stripe_events (
  id text PRIMARY KEY,
  type text NOT NULL,
  org_id uuid REFERENCES organizations (id) ON DELETE SET NULL,
  processed_at timestamptz NOT NULL DEFAULT now()
);
