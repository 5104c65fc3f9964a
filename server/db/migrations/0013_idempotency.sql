-- Idempotency-Key of POSTs (server/modules/idempotency): per organisation, kept 24 hours. A row is claimed
-- when its request starts (status NULL, locked_at), and holds the answer once the request has finished: as
-- JSON text, since a body may echo what jsonb refuses (NUL, a lone surrogate).
CREATE TABLE idempotency_keys (
  org_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  key text NOT NULL,
  request_hash text NOT NULL,
  locked_at timestamptz NOT NULL DEFAULT now(),
  status integer,
  response text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);
