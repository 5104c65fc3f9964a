-- Holds that expire: an address created or allocated with `hold_seconds` is reserved until `expires_at`; a
-- change of its status confirms it (clears the time), and past it the service releases (deletes) it.
ALTER TABLE addresses ADD COLUMN expires_at timestamptz;
-- The release walks only the held addresses, oldest expiry first.
CREATE INDEX addresses_expiring ON addresses (expires_at) WHERE expires_at IS NOT NULL;
