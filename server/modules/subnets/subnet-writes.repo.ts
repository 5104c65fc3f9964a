/**
 * The guarded writes of subnet creation and allocation, each a step of its pipeline: the references locked, the
 * insert that refuses by the hierarchy's rules with the check that names the refusal, and the adoption of what
 * a new subnet covers, and the overlaps in other VRFs a create warns of.
 */
import { columnsOf } from '../../db/columns';
import type { Db } from '../../db/connection';
import { pipeline } from '../../db/pipeline';
import { prepared } from '../../db/prepared';
import { subnets } from '../../db/schema';
import { OCCUPANCY } from './subnet-space.repo';
import type { SubnetRow, SubnetValues } from './subnets.repo';

/** A new subnet's values (every default set by the service) as a raw statement's parameters: custom fields as JSON text. */
const rowParams = ({ customFields, ...values }: SubnetValues) => ({
  ...values,
  customFields: customFields == null ? null : JSON.stringify(customFields),
});
type RowParams = ReturnType<typeof rowParams>;
type References = Pick<RowParams, 'folderId' | 'vlanId' | 'vrfId' | 'locationId'>;

/** Why a guarded subnet write refused: the first of its rules, in the order the API checks them, that failed. */
export type Refusal =
  | { rule: 'reference'; field: 'folder_id' | 'vlan_id' | 'vrf_id' | 'location_id' }
  | { rule: 'limit'; count: number }
  | { rule: 'duplicate'; id: string }
  | { rule: 'changed' };

// Each referenced row is locked against deletion (FOR KEY SHARE: a delete under way is waited for, and then the
// row is gone) until the transaction ends, before any subnet row or space: a delete locks its row, then the
// subnets it clears.
const referencesLocked = prepared<unknown, References & { orgId: string }>(
  'subnets_references_locked',
  `SELECT ipam_require(false, json_build_object('rule', 'reference', 'field', missing.field)::text) FROM (
     SELECT 'folder_id' AS field WHERE :folderId::uuid IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM folders WHERE org_id = :orgId AND id = :folderId FOR KEY SHARE)
     UNION ALL SELECT 'vlan_id' WHERE :vlanId::uuid IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM vlans WHERE org_id = :orgId AND id = :vlanId FOR KEY SHARE)
     UNION ALL SELECT 'vrf_id' WHERE :vrfId::uuid IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM vrfs WHERE org_id = :orgId AND id = :vrfId FOR KEY SHARE)
     UNION ALL SELECT 'location_id' WHERE :locationId::uuid IS NOT NULL AND NOT EXISTS (
       SELECT 1 FROM locations WHERE org_id = :orgId AND id = :locationId FOR KEY SHARE)
   ) missing`,
);

/**
 * The statements of a subnet create and allocation planned generically from their first call: their custom
 * plans cost more to make (0.2–1.5 ms each) than to run. Each was checked with the bench's large organisation
 * (100,000 subnets), where a generic plan that joins instead of looking up took 12–25 ms.
 */
const GENERIC = { genericPlan: true };

/**
 * Locks the folder, VLAN, VRF and location a new subnet refers to; fails (a Refusal) naming one that is gone.
 * No statement when it refers to none.
 */
export function lockReferencesSteps(orgId: string, refs: Partial<References>) {
  const ids = {
    folderId: refs.folderId ?? null,
    vlanId: refs.vlanId ?? null,
    vrfId: refs.vrfId ?? null,
    locationId: refs.locationId ?? null,
  };
  return Object.values(ids).some((id) => id !== null) ? [referencesLocked.step({ orgId, ...ids })] : [];
}

const GLOBAL = "'00000000-0000-0000-0000-000000000000'::uuid";
const SAME_NETWORK = `org_id = :orgId AND space_id = coalesce(:vrfId::uuid, ${GLOBAL}) AND network = :network::cidr`;
const AT_LIMIT = '(SELECT count(*) FROM subnets WHERE org_id = :orgId) >= :limit::int';

const insertIfNew = prepared<SubnetRow, RowParams & { orgId: string; id: string; limit: number | null }>(
  'subnets_insert_if_new',
  `INSERT INTO subnets (id, org_id, parent_id, folder_id, vlan_id, vrf_id, location_id, network, name, description,
     is_pool, gateway, dns_primary, dns_secondary, scan_enabled, tracked, custom_fields, tags)
   SELECT :id::uuid, :orgId::uuid,
     (SELECT c.id FROM subnets c
      WHERE c.org_id = :orgId AND c.space_id = coalesce(:vrfId::uuid, ${GLOBAL}) AND c.network >> :network::cidr
      ORDER BY masklen(c.network) DESC LIMIT 1),
     :folderId::uuid, :vlanId::uuid, :vrfId::uuid, :locationId::uuid, :network::cidr,
     :name::text, :description::text, :isPool::boolean, :gateway::inet, :dnsPrimary::inet, :dnsSecondary::inet,
     :scanEnabled::boolean, :tracked::boolean, :customFields::jsonb, :tags::text[]
   WHERE NOT EXISTS (SELECT 1 FROM subnets WHERE ${SAME_NETWORK})
     AND (:limit::int IS NULL OR NOT ${AT_LIMIT})
   RETURNING ${columnsOf(subnets)}`,
  GENERIC,
);

/**
 * Fails unless the subnet with this id exists, so the steps after the guarded insert do not run when it wrote
 * nothing; its message is then the Refusal, as JSON: the limit first, then the network already in the space.
 */
const subnetInserted = prepared<
  unknown,
  Pick<RowParams, 'network' | 'vrfId'> & { orgId: string; id: string; limit: number | null }
>(
  'subnets_inserted',
  `SELECT ipam_require(false, CASE
       WHEN :limit::int IS NOT NULL AND ${AT_LIMIT}
       THEN json_build_object('rule', 'limit', 'count', (SELECT count(*) FROM subnets WHERE org_id = :orgId))
       ELSE json_build_object('rule', 'duplicate', 'id', (SELECT id FROM subnets WHERE ${SAME_NETWORK} LIMIT 1))
     END::text)
   WHERE NOT EXISTS (SELECT 1 FROM subnets WHERE id = :id)`,
  GENERIC,
);

/**
 * Inserts a subnet with this id under its smallest container unless its space has its network already or the
 * organisation is at `limit` (null: none), then requires that it did (a Refusal otherwise): two steps of the
 * pipeline creating it, which holds its space's lock. What it covers is handed to it by `adoptionSteps`.
 */
export function insertIfNewSteps(orgId: string, id: string, values: SubnetValues, limit: number | null) {
  const params = { ...rowParams(values), orgId, id, limit };
  return {
    inserted: insertIfNew.step(params),
    check: subnetInserted.step({ orgId, id, limit, network: params.network, vrfId: params.vrfId }),
  };
}

/** The parent of an allocation as its blocks were chosen (the guard refuses if it has changed since). */
export type AllocationParent = Pick<SubnetRow, 'id' | 'network' | 'vrfId'>;

// The children and own addresses of the parent are found through the indexes: the subnets of the space
// overlapping a block (GiST), the parent's records within it (a range on (subnet_id, ip)). OFFSET 0 keeps each
// NOT EXISTS a lookup per block: as anti-joins, the generic plan hashed the organisation's subnets (25 ms
// among 100,000).
const insertAllocated = (guarded: boolean) =>
  prepared<
    { id: string; hash: string },
    Omit<RowParams, 'network' | 'vrfId'> & {
      orgId: string;
      parentId: string;
      parentNetwork: string;
      vrfId: string | null;
      networks: string[];
      ids: string[];
      bits: number;
      count: number;
      limit: number | null;
      occupancy?: string;
    }
  >(
    `subnets_insert_allocated${guarded ? '_guarded' : ''}`,
    `INSERT INTO subnets (id, org_id, parent_id, folder_id, vlan_id, vrf_id, location_id, network, name, description,
     is_pool, gateway, dns_primary, dns_secondary, scan_enabled, tracked, custom_fields)
   SELECT b.id, p.org_id, p.id, :folderId::uuid, :vlanId::uuid, p.vrf_id, :locationId::uuid, b.network, :name::text,
     :description::text, :isPool::boolean, :gateway::inet, :dnsPrimary::inet, :dnsSecondary::inet,
     :scanEnabled::boolean, :tracked::boolean, :customFields::jsonb
   FROM (SELECT * FROM subnets s WHERE org_id = :orgId AND id = :parentId AND network = :parentNetwork::cidr
           AND vrf_id IS NOT DISTINCT FROM :vrfId::uuid ${guarded ? `AND ${OCCUPANCY('s')} = :occupancy` : ''} OFFSET 0) p,
     ROWS FROM (unnest(:networks::cidr[]), unnest(:ids::uuid[])) AS b(network, id)
   WHERE NOT EXISTS (SELECT 1 FROM subnets c
       WHERE c.org_id = p.org_id AND c.space_id = p.space_id AND c.network && b.network AND c.network << p.network
       OFFSET 0)
     AND NOT EXISTS (SELECT 1 FROM addresses a WHERE a.subnet_id = p.id
       AND a.ip BETWEEN set_masklen(b.network::inet, :bits) AND set_masklen(broadcast(b.network), :bits) OFFSET 0)
     AND (:limit::int IS NULL OR (SELECT count(*) FROM subnets WHERE org_id = :orgId) + :count::int <= :limit)
   RETURNING id, hashinetextended(network, 0)::text AS hash`,
    GENERIC,
  );
const insertAllocatedStatements = [insertAllocated(false), insertAllocated(true)] as const;

/**
 * Fails unless every block was inserted; its message is then the Refusal, as JSON: the limit (counted without
 * the blocks), or `changed` when the parent or what lies in it changed since the blocks were chosen.
 */
const allocatedAll = prepared<unknown, { orgId: string; ids: string[]; count: number; limit: number | null }>(
  'subnets_allocated_all',
  `SELECT ipam_require(false, CASE
       WHEN :limit::int IS NOT NULL AND others.n + :count::int > :limit
       THEN json_build_object('rule', 'limit', 'count', others.n)
       ELSE json_build_object('rule', 'changed')
     END::text)
   FROM (SELECT count(*) AS n FROM subnets WHERE org_id = :orgId AND NOT id = ANY(:ids::uuid[])) others
   WHERE (SELECT count(*) FROM subnets WHERE id = ANY(:ids::uuid[])) < :count::int`,
  GENERIC,
);

/**
 * Inserts child subnets of `parent` at `blocks` (with their ids), provided the parent is still as read, none of
 * the blocks meets a subnet below it or one of its own address records, and the organisation stays within
 * `limit`; then requires that all were inserted (a Refusal otherwise, `changed` among them): two steps of the
 * pipeline allocating them, which holds the space's lock. Nothing is left to nest: a block meeting nothing
 * below the parent has the parent as its smallest container and covers no subnet or address.
 */
export function insertAllocatedSteps(
  orgId: string,
  parent: AllocationParent,
  blocks: { id: string; network: string }[],
  values: SubnetValues,
  bits: number,
  limit: number | null,
  occupancy?: string,
) {
  const ids = blocks.map((b) => b.id);
  const count = blocks.length;
  return {
    inserted: insertAllocatedStatements[occupancy === undefined ? 0 : 1].step({
      ...(occupancy !== undefined && { occupancy }),
      ...rowParams(values),
      orgId,
      parentId: parent.id,
      parentNetwork: parent.network,
      vrfId: parent.vrfId,
      networks: blocks.map((b) => b.network),
      ids,
      bits,
      count,
      limit,
    }),
    check: allocatedAll.step({ orgId, ids, count, limit }),
  };
}

/** The subnets just inserted, as `p`. */
const FRESH = 'p.org_id = :orgId AND p.id = ANY(:ids::uuid[])';
type Inserted = { orgId: string; ids: string[] };

const nestFresh = prepared<unknown, Inserted>(
  'subnets_nest_inserted',
  `UPDATE subnets p SET parent_id = (
     SELECT c.id FROM subnets c
     WHERE c.org_id = p.org_id AND c.space_id = p.space_id AND c.network >> p.network
     ORDER BY masklen(c.network) DESC LIMIT 1)
   WHERE ${FRESH}`,
);
// The subnets to move are listed first (an ARRAY, so the update finds them by id), then each takes the smallest
// new subnet containing it, like the addresses below: its generic plan is as good as its custom ones.
const nestUnderFresh = prepared<unknown, Inserted>(
  'subnets_nest_under_inserted',
  `UPDATE subnets g SET parent_id = (
     SELECT p.id FROM subnets p
     WHERE ${FRESH} AND p.space_id = g.space_id AND p.network >> g.network
     ORDER BY masklen(p.network) DESC LIMIT 1)
   WHERE g.org_id = :orgId AND g.id = ANY(ARRAY(
     SELECT c.id FROM subnets p CROSS JOIN LATERAL (
       SELECT c.id, c.parent_id FROM subnets c
       WHERE c.org_id = p.org_id AND c.space_id = p.space_id AND c.network << p.network OFFSET 0) c
     WHERE ${FRESH}
       AND (c.parent_id IS NULL OR masklen(p.network) > (SELECT masklen(network) FROM subnets WHERE id = c.parent_id))))`,
  GENERIC,
);
// Each new subnet looks up what it covers through the indexes (OFFSET 0 keeps the lateral subqueries from
// becoming joins the planner may hash, comparing every new subnet with every row of the organisation, which
// took seconds for 1,000 imported subnets once the statistics lagged). The addresses are found by an index
// range on (org_id, space_id, ip), as `ip <<= network` is no index condition there, and updated by id.
const moveAddressesIntoFresh = prepared<unknown, Inserted>(
  'subnets_nest_inserted_addresses',
  `UPDATE addresses a SET subnet_id = (
     SELECT p.id FROM subnets p
     WHERE p.org_id = a.org_id AND p.id = ANY(:ids::uuid[]) AND p.space_id = a.space_id AND p.network >>= a.ip
     ORDER BY masklen(p.network) DESC LIMIT 1)
   WHERE a.org_id = :orgId AND a.id = ANY(ARRAY(
     SELECT m.id FROM subnets p CROSS JOIN LATERAL (
       SELECT m.id, m.subnet_id FROM addresses m
       WHERE m.org_id = p.org_id AND m.space_id = p.space_id
         AND m.ip BETWEEN host(network(p.network))::inet AND host(broadcast(p.network))::inet OFFSET 0) m
     WHERE ${FRESH} AND masklen(p.network) > (SELECT masklen(s.network) FROM subnets s WHERE s.id = m.subnet_id)))`,
  GENERIC,
);

/**
 * Nests subnets just inserted (`ids`, with any parent_id) by the hierarchy's rule, however they lie among
 * themselves and the subnets already there: each takes its smallest strict container in its space as
 * parent; a subnet already there takes the most specific new one containing it when that is smaller than
 * its parent; an address takes the most specific new subnet containing it when that is smaller than its subnet.
 */
export async function nestInserted(db: Db, orgId: string, ids: string[]) {
  if (ids.length > 0) await pipeline(db, { nested: [nestFresh.step({ orgId, ids }), ...adoptionSteps(orgId, ids)] });
}

/** The subnets and addresses that subnets just inserted under their smallest containers cover, handed to them. */
export const adoptionSteps = (orgId: string, ids: string[]) => [
  nestUnderFresh.step({ orgId, ids }),
  moveAddressesIntoFresh.step({ orgId, ids }),
];

const overlapping = prepared<
  { id: string; network: string; name: string; vrfName: string },
  { orgId: string; network: string }
>(
  'subnets_overlapping_in_vrfs',
  `SELECT s.id, s.network, s.name, v.name AS "vrfName"
   FROM subnets s JOIN vrfs v ON v.org_id = s.org_id AND v.id = s.vrf_id
   WHERE s.org_id = :orgId AND s.network && :network::cidr
   ORDER BY s.network`,
  GENERIC,
);

/** Subnets of other VRFs meeting `network`: the warnings of a create without VRF, as a step of its pipeline. */
export const overlappingInVrfsStep = (orgId: string, network: string) => overlapping.step({ orgId, network });
