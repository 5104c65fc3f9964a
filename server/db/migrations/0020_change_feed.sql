-- The change feed (GET /changes): the activity entries of an organisation in commit order, without gaps.
--
-- An entry's id is taken when it is inserted, long before its transaction commits, so ids do not give commit
-- order: a reader could hand out a cursor past an id whose transaction commits later. Instead every
-- transaction that writes entries takes a commit number as the last thing it does (a deferred trigger, run
-- by COMMIT itself, after every statement of the transaction) while holding its organisation's feed lock in
-- shared mode until it ends. A reader takes that lock exclusively for an instant (change_horizon): every
-- transaction that had taken a number by then has ended, and those that take one later get a larger one. So
-- the entries up to the horizon are final and a cursor never passes a change still to come. A transaction
-- that read another's committed change took its number after that change's: the order of numbers is one
-- the commits could have had.

-- Cache 1 (the default): values in the order nextval is called, across sessions.
CREATE SEQUENCE change_seq;

-- Entries written before the feed existed have none and are not in it.
ALTER TABLE activity ADD COLUMN xid xid8;
ALTER TABLE activity ALTER COLUMN xid SET DEFAULT pg_current_xact_id();
CREATE INDEX activity_xid ON activity (xid);

-- One row per transaction and organisation that wrote entries: its commit number. `committed_at` is the
-- transaction's time, like its entries' `created_at`, so retention drops both together.
CREATE TABLE change_commits (
  org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  xid xid8 NOT NULL,
  committed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, seq)
);
CREATE INDEX change_commits_time ON change_commits (committed_at);

-- The last commit number the purge removed, per organisation: a cursor before it asks for changes no longer kept.
CREATE TABLE change_floors (
  org_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  seq bigint NOT NULL
);

-- Two-key advisory lock space 4005, keyed by the organisation.
CREATE FUNCTION stamp_change_commit() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  stamped text := coalesce(current_setting('ipam.change_stamped', true), '');
BEGIN
  IF position(NEW.org_id::text IN stamped) > 0 THEN
    RETURN NULL;
  END IF;
  PERFORM pg_advisory_xact_lock_shared(4005, hashtext(NEW.org_id::text));
  INSERT INTO change_commits (org_id, seq, xid) VALUES (NEW.org_id, nextval('change_seq'), pg_current_xact_id());
  PERFORM set_config('ipam.change_stamped', stamped || NEW.org_id::text || ',', true);
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER activity_change_commit AFTER INSERT ON activity
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION stamp_change_commit();

-- The commit number up to which the organisation's feed is final; run alone (its lock ends with the statement).
CREATE FUNCTION change_horizon(org uuid) RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(4005, hashtext(org::text));
  RETURN (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM change_seq);
END $$;
