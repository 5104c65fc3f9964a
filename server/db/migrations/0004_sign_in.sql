-- Sign-in: emailed magic links and the server-side state of Google (OpenID Connect) sign-ins. Only the
-- SHA-256 of a link's token is stored; a link is consumed once by setting used_at. Rows are purged a day
-- after they expire (the send-link route does it as it goes), so a used or expired link can still be told
-- apart from a bad one for a day.
CREATE TABLE magic_links (
  token_hash text PRIMARY KEY,
  email text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
-- The per-address limit (3 links per 15 minutes) counts an address's recent links.
CREATE INDEX magic_links_email ON magic_links (lower(email), created_at);
CREATE INDEX magic_links_expires ON magic_links (expires_at);

-- One row per Google sign-in in progress, keyed by the SHA-256 of a random id kept in a short-lived
-- HttpOnly cookie of the browser that started it; consumed (deleted) by the callback, 10 minutes at most.
CREATE TABLE oauth_flows (
  id_hash text PRIMARY KEY,
  state text NOT NULL,
  nonce text NOT NULL,
  code_verifier text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX oauth_flows_expires ON oauth_flows (expires_at);
