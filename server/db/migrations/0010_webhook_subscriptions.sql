-- Servers cache each organisation's active webhook subscriptions (every change of a folder, subnet,
-- address … looks them up to write its events); every change of a subscription notifies them, inside the
-- changing transaction, so it reaches them at its commit.
CREATE FUNCTION notify_webhooks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('webhooks_changed', '');
  RETURN NULL;
END $$;
CREATE TRIGGER webhooks_subscriptions AFTER INSERT OR UPDATE OF org_id, is_active, event_types OR DELETE ON webhooks
  FOR EACH STATEMENT EXECUTE FUNCTION notify_webhooks_changed();
