import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/connection';
import { addresses, subnets } from '../../db/schema';

export type AddressRow = typeof addresses.$inferSelect;
export type AddressInsert = Omit<typeof addresses.$inferInsert, 'id' | 'orgId' | 'spaceId' | 'createdAt' | 'updatedAt'>;
export type AddressChanges = Partial<
  Pick<AddressInsert, 'hostname' | 'macAddress' | 'description' | 'status' | 'owner' | 'customFields'>
>;

const inOrg = (orgId: string, id: string) => and(eq(addresses.orgId, orgId), eq(addresses.id, id));

export const get = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(addresses).where(inOrg(orgId, id)))[0];

export const listInSubnet = (db: Db, orgId: string, subnetId: string, limit: number, offset: number) =>
  db
    .select()
    .from(addresses)
    .where(and(eq(addresses.orgId, orgId), eq(addresses.subnetId, subnetId)))
    .orderBy(asc(addresses.ip))
    .limit(limit)
    .offset(offset);

export const countInSubnet = async (db: Db, orgId: string, subnetId: string) =>
  (
    await db
      .select({ n: count() })
      .from(addresses)
      .where(and(eq(addresses.orgId, orgId), eq(addresses.subnetId, subnetId)))
  )[0].n;

export const countInOrg = async (db: Db, orgId: string) =>
  (await db.select({ n: count() }).from(addresses).where(eq(addresses.orgId, orgId)))[0].n;

/** For each of `ips`, the child subnet of `subnetId` containing it (the address belongs there instead). */
export async function childrenContaining(db: Db, orgId: string, subnetId: string, ips: string[]) {
  if (ips.length === 0) return [];
  const result = await db.execute(sql`
    SELECT host(ip.value) AS ip, c.id, c.network::text AS network
    FROM unnest(${`{${ips.join(',')}}`}::inet[]) AS ip(value)
    JOIN subnets c ON c.org_id = ${orgId} AND c.parent_id = ${subnetId} AND c.network >>= ip.value
    ORDER BY ip.value`);
  return rowsOf<{ ip: string; id: string; network: string }>(result);
}

/** How many of `ips` already hold a record in the space (a batch skips them). */
export async function countAssigned(db: Db, orgId: string, spaceId: string, ips: string[]) {
  const result = await db.execute(sql`
    SELECT count(*)::int AS n FROM addresses
    WHERE org_id = ${orgId} AND space_id = ${spaceId} AND ip = ANY(${`{${ips.join(',')}}`}::inet[])`);
  return rowsOf<{ n: number }>(result)[0].n;
}

export const insert = async (db: Db, orgId: string, values: AddressInsert) =>
  (
    await db
      .insert(addresses)
      .values({ orgId, ...values })
      .returning()
  )[0];

/** Inserts the rows whose ip is free in the space; answers how many were created. */
export async function insertSkippingAssigned(db: Db, orgId: string, rows: AddressInsert[]) {
  const created = await db
    .insert(addresses)
    .values(rows.map((r) => ({ orgId, ...r })))
    .onConflictDoNothing()
    .returning({ id: addresses.id });
  return created.length;
}

export const update = async (db: Db, orgId: string, id: string, values: AddressChanges) =>
  (
    await db
      .update(addresses)
      .set({ ...values, updatedAt: new Date() })
      .where(inOrg(orgId, id))
      .returning()
  )[0];

export const remove = async (db: Db, orgId: string, id: string) =>
  (await db.delete(addresses).where(inOrg(orgId, id)).returning({ id: addresses.id }))[0];

export async function updateMany(db: Db, orgId: string, ids: string[], values: AddressChanges) {
  const rows = await db
    .update(addresses)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(addresses.orgId, orgId), inArray(addresses.id, ids)))
    .returning({ id: addresses.id });
  return rows.length;
}

export async function removeMany(db: Db, orgId: string, ids: string[]) {
  const rows = await db
    .delete(addresses)
    .where(and(eq(addresses.orgId, orgId), inArray(addresses.id, ids)))
    .returning({ id: addresses.id });
  return rows.length;
}

export const subnetOf = async (db: Db, orgId: string, id: string) =>
  (
    await db
      .select()
      .from(subnets)
      .where(and(eq(subnets.orgId, orgId), eq(subnets.id, id)))
  )[0];
