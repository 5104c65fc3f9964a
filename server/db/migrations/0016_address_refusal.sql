-- Why a guarded address insert (server/modules/addresses/addresses.repo.ts) wrote nothing: the first of its
-- rules, in the order the API checks them, that refuses the address, as JSON. A function of its own, so the
-- statement that calls it after every insert is planned in a moment: the rules' queries are planned only
-- when a refusal runs them.
CREATE FUNCTION ipam_address_refusal(p_org uuid, p_subnet uuid, p_ip inet, p_edge_prefixes int[], p_limit int)
RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  home subnets%ROWTYPE;
  held bigint;
  child record;
BEGIN
  SELECT * INTO home FROM subnets WHERE org_id = p_org AND id = p_subnet;
  IF NOT FOUND THEN
    RETURN json_build_object('rule', 'no_subnet')::text;
  END IF;
  IF p_limit IS NOT NULL THEN
    SELECT count(*) INTO held FROM addresses WHERE org_id = p_org;
    IF held >= p_limit THEN
      RETURN json_build_object('rule', 'limit', 'count', held)::text;
    END IF;
  END IF;
  IF NOT p_ip <<= home.network THEN
    RETURN json_build_object('rule', 'outside', 'network', home.network::text)::text;
  END IF;
  IF NOT (home.is_pool OR masklen(home.network) <> ALL(p_edge_prefixes)) THEN
    RETURN json_build_object('rule', 'edge', 'network', home.network::text)::text;
  END IF;
  SELECT c.network, c.id INTO child FROM subnets c
  WHERE c.org_id = p_org AND c.parent_id = p_subnet AND c.network >>= p_ip LIMIT 1;
  IF FOUND THEN
    RETURN json_build_object('rule', 'child', 'network', child.network::text, 'id', child.id)::text;
  END IF;
  RETURN json_build_object('rule', 'unknown')::text;
END;
$$;
