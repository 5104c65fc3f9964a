import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { vlans } from '../../db/schema';

export type VlanRow = typeof vlans.$inferSelect;
export type VlanValues = { vlanNumber: number; name?: string; description?: string; locationId?: string | null };

const inOrg = (orgId: string, id: string) => and(eq(vlans.orgId, orgId), eq(vlans.id, id));

export const listWithCounts = (db: Db, orgId: string) =>
  db
    .select({
      vlan: vlans,
      subnetCount:
        sql<number>`(SELECT count(*)::int FROM subnets s WHERE s.org_id = vlans.org_id AND s.vlan_id = vlans.id)`.mapWith(
          Number,
        ),
    })
    .from(vlans)
    .where(eq(vlans.orgId, orgId))
    .orderBy(asc(vlans.vlanNumber));

export const get = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(vlans).where(inOrg(orgId, id)))[0];

/** The row locked until the transaction ends, so its old values stay true while it is changed. */
export const getForUpdate = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(vlans).where(inOrg(orgId, id)).for('update'))[0];

export const countInOrg = async (db: Db, orgId: string) =>
  (await db.select({ n: count() }).from(vlans).where(eq(vlans.orgId, orgId)))[0].n;

export const insert = async (db: Db, orgId: string, values: VlanValues) =>
  (
    await db
      .insert(vlans)
      .values({ orgId, ...values })
      .returning()
  )[0];

export const update = async (db: Db, orgId: string, id: string, values: Partial<VlanValues>) =>
  (
    await db
      .update(vlans)
      .set({ ...values, updatedAt: new Date() })
      .where(inOrg(orgId, id))
      .returning()
  )[0];

/** Subnets on the VLAN keep existing: the foreign key clears their vlan_id. */
export const remove = async (db: Db, orgId: string, id: string) =>
  (await db.delete(vlans).where(inOrg(orgId, id)).returning())[0];

export const findByNumber = async (db: Db, orgId: string, vlanNumber: number) =>
  (
    await db
      .select()
      .from(vlans)
      .where(and(eq(vlans.orgId, orgId), eq(vlans.vlanNumber, vlanNumber)))
  )[0];
