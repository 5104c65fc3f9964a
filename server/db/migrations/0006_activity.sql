-- Activity (audit) log: one row per change, written in the transaction of the change. `changes` holds
-- {field: [old, new]} with the API's field names. The user reference is a plain foreign key (not the
-- composite (org_id, user_id) one) because a user who moves to another organisation keeps authorship of
-- the entries they made; a deleted user leaves their entries with user_id null.
CREATE TABLE activity (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  user_id uuid REFERENCES users (id) ON DELETE SET NULL,
  action text NOT NULL,
  resource_type text NOT NULL,
  resource_id uuid,
  changes jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Pages of the log (newest first), the retention cut-off and the purge all walk this index.
CREATE INDEX activity_org_created ON activity (org_id, created_at DESC, id DESC);
-- ON DELETE SET NULL of a user must not scan the whole log.
CREATE INDEX activity_user ON activity (user_id) WHERE user_id IS NOT NULL;
