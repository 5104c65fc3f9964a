-- Webhook subscriptions and the record of every delivery attempt (kept 7 days).
CREATE TABLE webhooks (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  url text NOT NULL,
  description text NOT NULL DEFAULT '',
  event_types text[] NOT NULL DEFAULT '{}',
  is_active boolean NOT NULL DEFAULT true,
  failure_count integer NOT NULL DEFAULT 0,
  -- The whsec_ signing secret (needed in clear to sign each attempt).
  secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (org_id, id)
);
CREATE INDEX webhooks_org_active ON webhooks (org_id) WHERE is_active;

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL,
  webhook_id uuid NOT NULL,
  -- The webhook-id header: the event's id, the same on every retry of it ('ping' attempts get their own).
  event_id uuid NOT NULL,
  event_type text NOT NULL,
  attempt integer NOT NULL,
  response_status integer,
  duration_ms integer NOT NULL,
  delivered_at timestamptz NOT NULL,
  FOREIGN KEY (org_id, webhook_id) REFERENCES webhooks (org_id, id) ON DELETE CASCADE
);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, delivered_at DESC);
CREATE INDEX webhook_deliveries_age ON webhook_deliveries (delivered_at);
