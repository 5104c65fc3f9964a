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

/** The row locked until the transaction ends, so its old values stay true while it is changed. */
export const getForUpdate = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(addresses).where(inOrg(orgId, id)).for('update'))[0];

/** The organisation's rows among `ids`, locked in id order (two batches never wait on each other in a cycle). */
export const lockMany = (db: Db, orgId: string, ids: string[]) =>
  db
    .select()
    .from(addresses)
    .where(and(eq(addresses.orgId, orgId), inArray(addresses.id, ids)))
    .orderBy(asc(addresses.id))
    .for('update');

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

/** Inserts the rows whose ip is free in the space; answers the rows created. */
export const insertSkippingAssigned = (db: Db, orgId: string, rows: AddressInsert[]) =>
  db
    .insert(addresses)
    .values(rows.map((r) => ({ orgId, ...r })))
    .onConflictDoNothing()
    .returning();

export const update = async (db: Db, orgId: string, id: string, values: AddressChanges) =>
  (
    await db
      .update(addresses)
      .set({ ...values, updatedAt: new Date() })
      .where(inOrg(orgId, id))
      .returning()
  )[0];

export const remove = async (db: Db, orgId: string, id: string) =>
  (await db.delete(addresses).where(inOrg(orgId, id)).returning())[0];

/** Updates the organisation's rows among `ids`; answers the rows as updated. */
export const updateMany = (db: Db, orgId: string, ids: string[], values: AddressChanges) =>
  db
    .update(addresses)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(addresses.orgId, orgId), inArray(addresses.id, ids)))
    .returning();

/** Deletes the organisation's rows among `ids`; answers the rows deleted. */
export const removeMany = (db: Db, orgId: string, ids: string[]) =>
  db
    .delete(addresses)
    .where(and(eq(addresses.orgId, orgId), inArray(addresses.id, ids)))
    .returning();

export const subnetOf = async (db: Db, orgId: string, id: string) =>
  (
    await db
      .select()
      .from(subnets)
      .where(and(eq(subnets.orgId, orgId), eq(subnets.id, id)))
  )[0];
