import { and, asc, count, eq, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
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
 * How many address records a subnet holds itself: its address tallies summed (migration 0017; kept by the
 * writing transaction, so exact in the statement's snapshot), a row per block of 256 and writer where a count
 * would read an index entry per record.
 */
const ownRecords = () =>
  sql<number>`(SELECT coalesce(sum(t.n), 0)::int FROM address_tallies t WHERE t.subnet_id = ${subnets.id})`.mapWith(
    Number,
  );

/**
 * The subnet and every descendant a delete cascades to (through parent_id), each with the number of
 * address records it holds itself (a record belongs to one subnet, so the figures add up to the whole).
 */
export const subtreeWithAddressCounts = (db: Db, orgId: string, id: string) =>
  db
    .select({
      subnet: subnets,
      addressCount: ownRecords(),
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
  ownUsed: ownRecords(),
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
