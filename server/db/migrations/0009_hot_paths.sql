-- Untracked subnets are few; the usage of a subnet subtracts the addresses inside them, so finding those
-- inside a large subnet must not walk all its descendants.
CREATE INDEX subnets_untracked_network ON subnets USING gist (org_id, space_id, network inet_ops) WHERE NOT tracked;

-- Servers cache who a key or session belongs to (role, plan, permissions); every change that could alter
-- or end that answer notifies them, inside the changing transaction, so it reaches them at its commit.
CREATE FUNCTION notify_principals_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('principals_changed', '');
  RETURN NULL;
END $$;
CREATE TRIGGER api_keys_principals AFTER UPDATE OF org_id, user_id, key_hash, permissions OR DELETE ON api_keys
  FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed();
CREATE TRIGGER sessions_principals AFTER UPDATE OF user_id, token_hash, expires_at OR DELETE ON sessions
  FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed();
CREATE TRIGGER users_principals AFTER UPDATE OF id, org_id, role OR DELETE ON users
  FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed();
CREATE TRIGGER organizations_principals AFTER UPDATE OF id, plan, limit_overrides OR DELETE ON organizations
  FOR EACH STATEMENT EXECUTE FUNCTION notify_principals_changed();
