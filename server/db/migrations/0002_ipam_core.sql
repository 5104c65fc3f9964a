-- IPAM core: a subnet's or address's space is its VRF, or the global space (the nil UUID) when it has
-- none. A stored, non-null space key lets one GiST index answer containment within (org, space):
-- parent lookup (network >> x), children (network << x) and overlaps (network && x).
CREATE EXTENSION IF NOT EXISTS btree_gist;

ALTER TABLE subnets
  ADD COLUMN space_id uuid GENERATED ALWAYS AS (COALESCE(vrf_id, '00000000-0000-0000-0000-000000000000'::uuid)) STORED;
CREATE INDEX subnets_space_network ON subnets USING gist (org_id, space_id, network inet_ops);

ALTER TABLE addresses
  ADD COLUMN space_id uuid GENERATED ALWAYS AS (COALESCE(vrf_id, '00000000-0000-0000-0000-000000000000'::uuid)) STORED;

-- Children of a subnet in address order (free blocks, first free, split) without a sort.
DROP INDEX subnets_parent;
CREATE INDEX subnets_parent_network ON subnets (org_id, parent_id, network);
-- Address records inside a range of a space: a subnet's used count is one index range scan.
CREATE INDEX addresses_space_ip ON addresses (org_id, space_id, ip);
