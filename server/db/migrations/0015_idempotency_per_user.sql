-- An Idempotency-Key belongs to the user whose key or session sent it (server/modules/idempotency): another
-- member's request with the same key is a request of its own, never a replay of someone else's answer. A
-- secret in an answer (a new API key, a webhook signing secret) is not kept in clear: `response` holds the
-- answer without it, `sealed_secret` the secret encrypted with the server's key (AES-256-GCM).
-- The keys stored so far cannot be given an owner; they only serve retries within 24 hours, so they go.
DELETE FROM idempotency_keys;
ALTER TABLE idempotency_keys ADD COLUMN user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE;
ALTER TABLE idempotency_keys ADD COLUMN sealed_secret text;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (org_id, user_id, key);
