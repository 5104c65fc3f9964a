-- Searches of a subnet's records by their tallies (migration 0017): the lowest address of a range holding no
-- record, found in one call (whole blocks of 256 passed by their tallies, the block holding the gap walked
-- record by record; first free sent a statement per step of a search before, five for a dense /16), and how
-- many records a range holds.

-- The lowest address of [p_low, p_high], a range inside one block, holding no record of the subnet; null when
-- every address holds one. The records are compared in order with the addresses they would hold had the
-- range no gap: the first that differs lies past the gap.
CREATE FUNCTION ipam_gap_in_block(p_subnet uuid, p_low inet, p_high inet) RETURNS inet
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  gap inet;
  held bigint;
BEGIN
  SELECT min(r.expected) FILTER (WHERE r.ip <> r.expected), count(*) INTO gap, held FROM (
    SELECT a.ip, p_low + (row_number() OVER (ORDER BY a.ip) - 1) AS expected
    FROM addresses a WHERE a.subnet_id = p_subnet AND a.ip >= p_low AND a.ip <= p_high
  ) r;
  IF gap IS NOT NULL THEN RETURN gap; END IF;
  RETURN CASE WHEN held <= p_high - p_low THEN p_low + held END;
END $$;

-- The lowest address of [p_from, p_last] holding no record of the subnet; null when every address holds one.
-- The rest of p_from's block is walked; then the first whole block after it whose tally is short of 256 (or
-- that has no tally: no record) holds the gap; past the whole blocks, the rest is p_last's block, walked.
-- A block whose tally is short of its records is walked and found full, and the search goes on after it.
CREATE FUNCTION ipam_next_unused(p_subnet uuid, p_from inet, p_last inet) RETURNS inet
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  bits constant int := CASE family(p_from) WHEN 4 THEN 32 ELSE 128 END;
  last_block constant inet := set_masklen(ipam_block(p_last), bits);
  next_block inet := set_masklen(ipam_block(p_from), bits);
  gap inet;
  found_block inet;
  position inet;
BEGIN
  IF p_from > p_last THEN RETURN NULL; END IF;
  IF next_block = last_block THEN RETURN ipam_gap_in_block(p_subnet, p_from, p_last); END IF;
  gap := ipam_gap_in_block(p_subnet, p_from, next_block + 255);
  IF gap IS NOT NULL THEN RETURN gap; END IF;
  next_block := next_block + 256;
  LOOP
    -- The whole blocks from next_block on numbered in order (k), and last_block after them with no records
    -- counted: the first that holds fewer than 256 records or is not where the k-th block after next_block
    -- would be (the blocks between hold no record).
    SELECT w.block, next_block + 256 * w.k INTO found_block, position FROM (
      SELECT b.block, b.held, row_number() OVER (ORDER BY b.block) - 1 AS k FROM (
        SELECT set_masklen(t.block, bits)::inet AS block, sum(t.n) AS held FROM address_tallies t
        WHERE t.subnet_id = p_subnet AND t.block >= ipam_block(next_block) AND t.block < ipam_block(last_block)
        GROUP BY t.block
        UNION ALL SELECT last_block, 0
      ) b
    ) w WHERE w.held < 256 OR w.block <> next_block + 256 * w.k
    ORDER BY w.block LIMIT 1;
    IF found_block <> position THEN RETURN position; END IF;
    IF found_block = last_block THEN RETURN ipam_gap_in_block(p_subnet, last_block, p_last); END IF;
    gap := ipam_gap_in_block(p_subnet, found_block, found_block + 255);
    IF gap IS NOT NULL THEN RETURN gap; END IF;
    next_block := found_block + 256;
  END LOOP;
END $$;

-- How many records of the subnet lie in [p_low, p_high]: the whole blocks of 256 inside by their tallies,
-- the addresses before the first and after the last of them one by one (fewer than a block each). A hinted
-- allocation's guard counts the records below its candidates with it: in a /16 of 60,000 that was an index
-- entry each.
CREATE FUNCTION ipam_count_records(p_subnet uuid, p_low inet, p_high inet) RETURNS bigint
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  bits constant int := CASE family(p_low) WHEN 4 THEN 32 ELSE 128 END;
  low_block constant inet := set_masklen(ipam_block(p_low), bits);
  high_block constant inet := set_masklen(ipam_block(p_high), bits);
  first_whole inet;
  last_whole inet;
  one_by_one bigint;
  tallied bigint;
BEGIN
  IF p_low > p_high THEN RETURN 0; END IF;
  IF low_block = high_block THEN
    RETURN (SELECT count(*) FROM addresses WHERE subnet_id = p_subnet AND ip >= p_low AND ip <= p_high);
  END IF;
  first_whole := CASE WHEN p_low = low_block THEN low_block ELSE low_block + 256 END;
  last_whole := CASE WHEN p_high = high_block + 255 THEN high_block ELSE high_block - 256 END;
  IF first_whole > last_whole THEN
    RETURN (SELECT count(*) FROM addresses WHERE subnet_id = p_subnet AND ip >= p_low AND ip <= p_high);
  END IF;
  one_by_one := (SELECT count(*) FROM addresses WHERE subnet_id = p_subnet AND ip >= p_low AND ip < first_whole)
    + (SELECT count(*) FROM addresses WHERE subnet_id = p_subnet AND ip > last_whole + 255 AND ip <= p_high);
  SELECT coalesce(sum(n), 0) INTO tallied FROM address_tallies WHERE subnet_id = p_subnet
    AND block >= ipam_block(first_whole) AND block <= ipam_block(last_whole);
  RETURN one_by_one + tallied;
END $$;
