-- How many address records each subnet holds in each block of 256 addresses (a /24, or a /120 in IPv6),
-- kept by triggers in the writing statement's transaction: first free counts a dense subnet's records by
-- blocks (a /16 holding 60,000 is 235 rows) instead of one index entry each.
--
-- A row per block and writer (the backend's pid): a backend runs one transaction at a time, so concurrent
-- writers never update the same row and the tally adds no lock wait between them. The rows of backends that
-- are gone are merged into writer 0 and rows at zero deleted by the periodic maintenance
-- (`compact_address_tallies`), which skips rows a writer holds. No foreign key: a subnet's delete cascades to its addresses, whose trigger
-- then writes the subnet's tallies down to zero (deleted by that maintenance) after the subnet is gone.
CREATE TABLE address_tallies (
  subnet_id uuid NOT NULL,
  block cidr NOT NULL,
  writer int NOT NULL,
  n int NOT NULL,
  PRIMARY KEY (subnet_id, block, writer)
);

CREATE FUNCTION ipam_block(ip inet) RETURNS cidr LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT network(set_masklen(ip, CASE WHEN family(ip) = 4 THEN 24 ELSE 120 END)) $$;

-- Statement-level, over the transition tables: one upsert per block a statement touched, not per row.
CREATE FUNCTION address_tallies_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO address_tallies AS t (subnet_id, block, writer, n)
    SELECT subnet_id, ipam_block(ip), pg_backend_pid(), count(*) FROM added GROUP BY 1, 2
    ON CONFLICT (subnet_id, block, writer) DO UPDATE SET n = t.n + excluded.n;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO address_tallies AS t (subnet_id, block, writer, n)
    SELECT subnet_id, ipam_block(ip), pg_backend_pid(), -count(*) FROM removed GROUP BY 1, 2
    ON CONFLICT (subnet_id, block, writer) DO UPDATE SET n = t.n + excluded.n;
  ELSE
    -- An update moves a record only when it changes its subnet or its ip (a subnet adopting addresses).
    INSERT INTO address_tallies AS t (subnet_id, block, writer, n)
    SELECT subnet_id, block, pg_backend_pid(), sum(d) FROM (
      SELECT subnet_id, ipam_block(ip) AS block, 1 AS d FROM added
      UNION ALL SELECT subnet_id, ipam_block(ip), -1 FROM removed
    ) moved GROUP BY 1, 2 HAVING sum(d) <> 0
    ON CONFLICT (subnet_id, block, writer) DO UPDATE SET n = t.n + excluded.n;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER address_tallies_insert AFTER INSERT ON addresses REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION address_tallies_count();
CREATE TRIGGER address_tallies_delete AFTER DELETE ON addresses REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION address_tallies_count();
CREATE TRIGGER address_tallies_update AFTER UPDATE ON addresses REFERENCING OLD TABLE AS removed NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION address_tallies_count();

-- The rows of writers no longer connected merged into writer 0, and rows at zero deleted. Rows are taken
-- with SKIP LOCKED: a row a writer holds is left for the next run, so the compaction never waits on a writer
-- (a writer may wait on it, briefly) and the two cannot deadlock.
CREATE FUNCTION compact_address_tallies() RETURNS void LANGUAGE sql AS $$
  WITH gone AS (
    DELETE FROM address_tallies WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM address_tallies t
      WHERE writer <> 0 AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.pid = t.writer)
      FOR UPDATE SKIP LOCKED))
    RETURNING subnet_id, block, n
  )
  INSERT INTO address_tallies AS t (subnet_id, block, writer, n)
  SELECT subnet_id, block, 0, sum(n) FROM gone GROUP BY 1, 2
  ON CONFLICT (subnet_id, block, writer) DO UPDATE SET n = t.n + excluded.n;
  DELETE FROM address_tallies WHERE ctid = ANY(ARRAY(
    SELECT ctid FROM address_tallies WHERE n = 0 FOR UPDATE SKIP LOCKED));
$$;

INSERT INTO address_tallies (subnet_id, block, writer, n)
SELECT subnet_id, ipam_block(ip), 0, count(*) FROM addresses GROUP BY 1, 2;
