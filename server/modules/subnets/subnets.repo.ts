import { and, asc, count, eq, isNull, ne, sql } from 'drizzle-orm';
import { columnsOf } from '../../db/columns';
import type { Db } from '../../db/connection';
import { pipeline } from '../../db/pipeline';
import { prepared } from '../../db/prepared';
import { addresses, folders, locations, subnets, vlans, vrfs } from '../../db/schema';
import { first } from '../shared/rows';

export type SubnetRow = typeof subnets.$inferSelect;
export type SubnetInsert = Omit<typeof subnets.$inferInsert, 'id' | 'orgId' | 'spaceId' | 'createdAt' | 'updatedAt'>;
/** Every value of a new subnet but those the database sets (its id, space, parent and times). */
export type SubnetValues = Omit<SubnetRow, 'id' | 'orgId' | 'parentId' | 'spaceId' | 'createdAt' | 'updatedAt'>;

const inOrg = (orgId: string, id: string) => and(eq(subnets.orgId, orgId), eq(subnets.id, id));
const inSpace = (orgId: string, spaceId: string) => and(eq(subnets.orgId, orgId), eq(subnets.spaceId, spaceId));

export const get = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(subnets).where(inOrg(orgId, id)))[0];

/** The row locked until the transaction ends (after any space lock: spaces first, then rows). */
export const getForUpdate = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(subnets).where(inOrg(orgId, id)).for('update'))[0];

/**
 * The subnet and every descendant a delete cascades to (through parent_id), each with the number of
 * address records it holds itself (a record belongs to one subnet, so the figures add up to the whole).
 */
export const subtreeWithAddressCounts = (db: Db, orgId: string, id: string) =>
  db
    .select({
      subnet: subnets,
      addressCount: sql<number>`(SELECT count(*)::int FROM addresses a WHERE a.subnet_id = subnets.id)`.mapWith(Number),
    })
    .from(subnets)
    .where(
      and(
        eq(subnets.orgId, orgId),
        sql`${subnets.id} IN (
          WITH RECURSIVE tree AS (
            SELECT id FROM subnets WHERE org_id = ${orgId} AND id = ${id}
            UNION ALL
            SELECT s.id FROM subnets s JOIN tree t ON s.parent_id = t.id WHERE s.org_id = ${orgId})
          SELECT id FROM tree)`,
      ),
    )
    .orderBy(asc(subnets.network));

export const countInOrg = async (db: Db, orgId: string) =>
  first(await db.select({ n: count() }).from(subnets).where(eq(subnets.orgId, orgId)), 'a count of subnets').n;

export const findByNetwork = async (db: Db, orgId: string, spaceId: string, network: string) =>
  (
    await db
      .select({ id: subnets.id, network: subnets.network })
      .from(subnets)
      .where(and(inSpace(orgId, spaceId), sql`${subnets.network} = ${network}::cidr`))
  )[0];

/** The smallest subnet of the space strictly containing `network`: the parent a new subnet nests under. */
export const smallestContaining = async (db: Db, orgId: string, spaceId: string, network: string) =>
  (
    await db
      .select({ id: subnets.id, network: subnets.network })
      .from(subnets)
      .where(and(inSpace(orgId, spaceId), sql`${subnets.network} >> ${network}::cidr`))
      .orderBy(sql`masklen(${subnets.network}) DESC`)
      .limit(1)
  )[0];

export async function insertMany(db: Db, orgId: string, values: SubnetInsert[]) {
  return db
    .insert(subnets)
    .values(values.map((v) => ({ orgId, ...v })))
    .returning();
}

/** A new subnet's columns as a raw statement's parameters (custom fields as JSON text). */
const rowParams = (v: SubnetInsert) => ({
  network: v.network,
  folderId: v.folderId ?? null,
  vlanId: v.vlanId ?? null,
  vrfId: v.vrfId ?? null,
  locationId: v.locationId ?? null,
  name: v.name ?? '',
  description: v.description ?? '',
  isPool: v.isPool ?? false,
  gateway: v.gateway ?? null,
  dnsPrimary: v.dnsPrimary ?? null,
  dnsSecondary: v.dnsSecondary ?? null,
  scanEnabled: v.scanEnabled ?? false,
  tracked: v.tracked ?? true,
  customFields: v.customFields == null ? null : JSON.stringify(v.customFields),
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
     is_pool, gateway, dns_primary, dns_secondary, scan_enabled, tracked, custom_fields)
   SELECT :id::uuid, :orgId::uuid,
     (SELECT c.id FROM subnets c
      WHERE c.org_id = :orgId AND c.space_id = coalesce(:vrfId::uuid, ${GLOBAL}) AND c.network >> :network::cidr
      ORDER BY masklen(c.network) DESC LIMIT 1),
     :folderId::uuid, :vlanId::uuid, :vrfId::uuid, :locationId::uuid, :network::cidr,
     :name::text, :description::text, :isPool::boolean, :gateway::inet, :dnsPrimary::inet, :dnsSecondary::inet,
     :scanEnabled::boolean, :tracked::boolean, :customFields::jsonb
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
export function insertIfNewSteps(orgId: string, id: string, values: SubnetInsert, limit: number | null) {
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
const insertAllocated = prepared<
  { id: string },
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
  }
>(
  'subnets_insert_allocated',
  `INSERT INTO subnets (id, org_id, parent_id, folder_id, vlan_id, vrf_id, location_id, network, name, description,
     is_pool, gateway, dns_primary, dns_secondary, scan_enabled, tracked, custom_fields)
   SELECT b.id, p.org_id, p.id, :folderId::uuid, :vlanId::uuid, p.vrf_id, :locationId::uuid, b.network, :name::text,
     :description::text, :isPool::boolean, :gateway::inet, :dnsPrimary::inet, :dnsSecondary::inet,
     :scanEnabled::boolean, :tracked::boolean, :customFields::jsonb
   FROM (SELECT * FROM subnets WHERE org_id = :orgId AND id = :parentId AND network = :parentNetwork::cidr
           AND vrf_id IS NOT DISTINCT FROM :vrfId::uuid OFFSET 0) p,
     ROWS FROM (unnest(:networks::cidr[]), unnest(:ids::uuid[])) AS b(network, id)
   WHERE NOT EXISTS (SELECT 1 FROM subnets c
       WHERE c.org_id = p.org_id AND c.space_id = p.space_id AND c.network && b.network AND c.network << p.network
       OFFSET 0)
     AND NOT EXISTS (SELECT 1 FROM addresses a WHERE a.subnet_id = p.id
       AND a.ip BETWEEN set_masklen(b.network::inet, :bits) AND set_masklen(broadcast(b.network), :bits) OFFSET 0)
     AND (:limit::int IS NULL OR (SELECT count(*) FROM subnets WHERE org_id = :orgId) + :count::int <= :limit)
   RETURNING id`,
  GENERIC,
);

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
) {
  const ids = blocks.map((b) => b.id);
  const count = blocks.length;
  return {
    inserted: insertAllocated.step({
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

const existingPairs = prepared<{ i: number }, { orgId: string; spaceIds: string[]; networks: string[] }>(
  'subnets_existing_networks',
  `SELECT pair.n::int - 1 AS i
   FROM unnest(:spaceIds::uuid[], :networks::cidr[]) WITH ORDINALITY AS pair(space_id, network, n)
   WHERE EXISTS (SELECT 1 FROM subnets s
                 WHERE s.org_id = :orgId AND s.space_id = pair.space_id AND s.network = pair.network)`,
);

/** The positions (from 0) of the (space, network) pairs the organisation already has a subnet for. */
export async function existingNetworks(db: Db, orgId: string, pairs: { spaceId: string; network: string }[]) {
  if (pairs.length === 0) return new Set<number>();
  const rows = await existingPairs(db, {
    orgId,
    spaceIds: pairs.map((p) => p.spaceId),
    networks: pairs.map((p) => p.network),
  });
  return new Set(rows.map((r) => Number(r.i)));
}

/** Subnets inside `network` whose parent was `formerParentId` now have `newParentId` as their smallest container. */
export async function adoptContained(
  db: Db,
  orgId: string,
  spaceId: string,
  network: string,
  newParentId: string,
  formerParentId: string | null,
) {
  await db
    .update(subnets)
    .set({ parentId: newParentId })
    .where(
      and(
        inSpace(orgId, spaceId),
        sql`${subnets.network} << ${network}::cidr`,
        formerParentId ? eq(subnets.parentId, formerParentId) : isNull(subnets.parentId),
        ne(subnets.id, newParentId),
      ),
    );
}

export async function reparentChildren(db: Db, orgId: string, fromParentId: string, toParentId: string | null) {
  await db
    .update(subnets)
    .set({ parentId: toParentId })
    .where(and(eq(subnets.orgId, orgId), eq(subnets.parentId, fromParentId)));
}

/** Addresses of `fromSubnetId` inside `network` move to the subnet now owning them. */
export async function moveAddressesInto(db: Db, orgId: string, fromSubnetId: string, network: string, toId: string) {
  await db
    .update(addresses)
    .set({ subnetId: toId })
    .where(
      and(eq(addresses.orgId, orgId), eq(addresses.subnetId, fromSubnetId), sql`${addresses.ip} <<= ${network}::cidr`),
    );
}

/** Sets the given columns of the subnet; answers its row as changed (no row when there is no such subnet). */
export async function update(db: Db, orgId: string, id: string, values: Partial<SubnetInsert>) {
  return db
    .update(subnets)
    .set({ ...values, updatedAt: new Date() })
    .where(inOrg(orgId, id))
    .returning();
}

/** Moves a subnet's own addresses along with it into another space. */
export async function setAddressesSpace(db: Db, orgId: string, subnetId: string, vrfId: string | null) {
  await db
    .update(addresses)
    .set({ vrfId })
    .where(and(eq(addresses.orgId, orgId), eq(addresses.subnetId, subnetId)));
}

/** Deleting cascades to child subnets (parent foreign key) and to addresses (subnet foreign key). */
export const remove = async (db: Db, orgId: string, id: string) =>
  (await db.delete(subnets).where(inOrg(orgId, id)).returning({ id: subnets.id }))[0];

const deleteAddressesOf = prepared<{ n: number }, { orgId: string; subnetId: string }>(
  'subnets_delete_own_addresses',
  `WITH removed AS (DELETE FROM addresses WHERE org_id = :orgId AND subnet_id = :subnetId RETURNING 1)
   SELECT count(*)::int AS n FROM removed`,
);

/** Deletes a subnet's own address records; answers how many. */
export async function deleteOwnAddresses(db: Db, orgId: string, subnetId: string) {
  return first(await deleteAddressesOf(db, { orgId, subnetId }), 'a count of deleted addresses').n;
}

/** A subnet's resolved names and address counts, for one subnet or a whole organisation. */
const withNames = {
  subnet: subnets,
  folderName: folders.name,
  vlanNumber: vlans.vlanNumber,
  vrfName: vrfs.name,
  locationName: locations.name,
  ownUsed: sql<number>`(SELECT count(*)::int FROM addresses a WHERE a.subnet_id = subnets.id)`.mapWith(Number),
};

function selectWithNames(db: Db) {
  return db
    .select(withNames)
    .from(subnets)
    .leftJoin(folders, and(eq(folders.orgId, subnets.orgId), eq(folders.id, subnets.folderId)))
    .leftJoin(vlans, and(eq(vlans.orgId, subnets.orgId), eq(vlans.id, subnets.vlanId)))
    .leftJoin(vrfs, and(eq(vrfs.orgId, subnets.orgId), eq(vrfs.id, subnets.vrfId)))
    .leftJoin(locations, and(eq(locations.orgId, subnets.orgId), eq(locations.id, subnets.locationId)));
}
/** A subnet with the names of what it refers to, as the API shows it. */
export interface SubnetWithNames {
  subnet: SubnetRow;
  folderName: string | null;
  vlanNumber: number | null;
  vrfName: string | null;
  locationName: string | null;
}

export const listWithNames = (db: Db, orgId: string) =>
  selectWithNames(db)
    .where(eq(subnets.orgId, orgId))
    .orderBy(asc(subnets.vrfId), sql`family(${subnets.network})`, asc(subnets.network));

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

export interface OverlapRow {
  a_id: string;
  a_network: string;
  a_vrf: string | null;
  b_id: string;
  b_network: string;
  b_vrf: string | null;
}

const overlaps = prepared<OverlapRow, { orgId: string }>(
  'subnets_overlap_pairs',
  `SELECT a.id AS a_id, a.network::text AS a_network, va.name AS a_vrf,
          b.id AS b_id, b.network::text AS b_network, vb.name AS b_vrf
   FROM subnets a
   JOIN subnets b ON b.org_id = a.org_id AND b.network && a.network AND a.space_id < b.space_id
   LEFT JOIN vrfs va ON va.org_id = a.org_id AND va.id = a.vrf_id
   LEFT JOIN vrfs vb ON vb.org_id = b.org_id AND vb.id = b.vrf_id
   WHERE a.org_id = :orgId
   ORDER BY a.network, b.network, a_vrf NULLS FIRST, b_vrf`,
);

/** Pairs of subnets in different spaces whose ranges meet. */
export const overlapPairs = (db: Db, orgId: string): Promise<OverlapRow[]> => overlaps(db, { orgId });

// The first sub-window starts at :low (inclusive), each later one right after the previous end. Only the
// branch of the CASE a sub-window takes is run: one index range scan on (subnet_id, ip) per sub-window.
const addressCounts = prepared<{ n: number }, { subnetId: string; low: string; ends: string[] }>(
  'subnets_count_addresses_up_to',
  `SELECT CASE WHEN part.n = 1
     THEN (SELECT count(*)::int FROM addresses
           WHERE subnet_id = :subnetId AND ip >= :low::inet AND ip <= part.ip)
     ELSE (SELECT count(*)::int FROM addresses
           WHERE subnet_id = :subnetId AND ip > part.previous AND ip <= part.ip)
   END AS n
   FROM (SELECT bound.ip, bound.n, lag(bound.ip) OVER (ORDER BY bound.n) AS previous
         FROM unnest(:ends::inet[]) WITH ORDINALITY AS bound(ip, n)) part
   ORDER BY part.n`,
);

/**
 * For each of `ends`, how many address records a subnet holds in [low, end]: each sub-window between two
 * ends is counted by an index range scan of its own (one pass over the window, no per-record comparisons),
 * in one statement.
 */
export async function countAddressesUpTo(db: Db, subnetId: string, low: string, ends: string[]) {
  let total = 0;
  return (await addressCounts(db, { subnetId, low, ends })).map(({ n }) => {
    total += Number(n);
    return total;
  });
}

const addressesInWindow = prepared<{ ip: string }, { subnetId: string; low: string; high: string }>(
  'subnets_addresses_between',
  // Ordered by the inet column, not by the text alias (which would put 10.0.0.10 before 10.0.0.2).
  `SELECT host(ip) AS ip FROM addresses WHERE subnet_id = :subnetId AND ip >= :low::inet AND ip <= :high::inet
   ORDER BY addresses.ip`,
);

export async function addressesBetween(db: Db, subnetId: string, low: string, high: string) {
  return (await addressesInWindow(db, { subnetId, low, high })).map((r) => r.ip);
}

/** One row per child of `parent` that starts or ends a run of adjacent children, in order (see childRuns). */
const boundariesOf = (orgId: string, parent: string, bits: string) =>
  `SELECT network, host(network) AS first, host(broadcast(network)) AS last, starts, ends FROM (
     SELECT network, starts, coalesce(lead(starts) OVER (ORDER BY network), true) AS ends FROM (
       -- A child starts a run unless it begins right after the previous one ends (no child follows one
       -- ending at the family's last address, so the + 1 cannot overflow).
       SELECT network,
         lag(set_masklen(broadcast(network), ${bits})) OVER (ORDER BY network) + 1
           IS DISTINCT FROM set_masklen(network::inet, ${bits}) AS starts
       FROM subnets WHERE org_id = ${orgId} AND parent_id = ${parent}
     ) marked
   ) boundaries WHERE starts OR ends`;

type Boundary = { first: string; last: string; starts: boolean; ends: boolean };

const childBoundaries = prepared<Boundary, { orgId: string; parentId: string; bits: number }>(
  'subnets_child_runs',
  `${boundariesOf(':orgId', ':parentId', ':bits')} ORDER BY network`,
);

/** The runs the boundaries of childBoundaries make (first and last address of each), in order. */
function runsOf(boundaries: Boundary[]) {
  const runs: { first: string; last: string }[] = [];
  // The first child always starts a run (it has no previous one), so a run is open at every end.
  let run: { first: string; last: string } | undefined;
  for (const row of boundaries) {
    if (row.starts) {
      run = { first: row.first, last: row.last };
      runs.push(run);
    }
    if (row.ends && run) run.last = row.last;
  }
  return runs;
}

/**
 * A subnet's direct children merged into runs of adjacent ranges (first and last address), in order:
 * contiguous allocations, however many, come back as one run. Only the children that start or end a run
 * leave the database (one window pass; addresses compared at full length so masks do not matter).
 */
export async function childRuns(db: Db, orgId: string, parentId: string, bits: number) {
  return runsOf(await childBoundaries(db, { orgId, parentId, bits }));
}

const allocationBasis = prepared<
  SubnetRow & { boundaries: Boundary[]; records: string[] },
  { orgId: string; id: string }
>(
  'subnets_allocation_basis',
  `SELECT ${columnsOf(subnets, 's')},
     (SELECT coalesce(json_agg(json_build_object('first', b.first, 'last', b.last, 'starts', b.starts, 'ends', b.ends)
                               ORDER BY b.network), '[]')
      FROM (${boundariesOf('s.org_id', 's.id', 'CASE WHEN family(s.network) = 4 THEN 32 ELSE 128 END')}) b) AS boundaries,
     ARRAY(SELECT host(a.ip) FROM addresses a WHERE a.subnet_id = s.id ORDER BY a.ip) AS records
   FROM subnets s WHERE s.org_id = :orgId AND s.id = :id`,
);

/**
 * What allocating child subnets reads of a subnet, in one statement: its row, its children's runs (as
 * childRuns) and its own address records; undefined when the organisation has no such subnet.
 */
export async function allocationBasisOf(db: Db, orgId: string, id: string) {
  const [row] = await allocationBasis(db, { orgId, id });
  if (!row) return undefined;
  const { boundaries, records, ...subnet } = row;
  return { subnet, runs: runsOf(boundaries), records };
}

/** A subnet of the space strictly inside `network` with this prefix length: what a split part would duplicate. */
export const findInsideWithPrefix = async (db: Db, orgId: string, spaceId: string, network: string, prefix: number) =>
  (
    await db
      .select({ id: subnets.id, network: subnets.network })
      .from(subnets)
      .where(
        and(
          inSpace(orgId, spaceId),
          sql`${subnets.network} << ${network}::cidr`,
          sql`masklen(${subnets.network}) = ${prefix}`,
        ),
      )
      .orderBy(asc(subnets.network))
      .limit(1)
  )[0];

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

const moveToChildren = prepared<unknown, { orgId: string; subnetId: string }>(
  'subnets_move_addresses_to_children',
  `UPDATE addresses a SET subnet_id = c.id FROM subnets c
   WHERE a.org_id = :orgId AND a.subnet_id = :subnetId
     AND c.org_id = :orgId AND c.parent_id = :subnetId AND a.ip <<= c.network`,
);

/** Addresses of a subnet that lie inside one of its children belong to that child. */
export async function moveAddressesToChildren(db: Db, orgId: string, subnetId: string) {
  await moveToChildren(db, { orgId, subnetId });
}
