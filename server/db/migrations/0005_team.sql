-- Team invitations. Only the SHA-256 of the emailed token is stored. A pending invitation (not accepted,
-- not expired) holds a seat; an accepted one is kept with accepted_at set, so its link cannot be reused.
CREATE TABLE invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'editor', 'viewer')),
  token_hash text NOT NULL UNIQUE,
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invitations_org_pending ON invitations (org_id, created_at) WHERE accepted_at IS NULL;
