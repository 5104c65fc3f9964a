import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { subnets, vrfs } from '../../db/schema';

export type VrfRow = typeof vrfs.$inferSelect;
export type VrfValues = { name: string; rd?: string; description?: string };

const inOrg = (orgId: string, id: string) => and(eq(vrfs.orgId, orgId), eq(vrfs.id, id));

export const listWithCounts = (db: Db, orgId: string) =>
  db
    .select({
      vrf: vrfs,
      subnetCount:
        sql<number>`(SELECT count(*)::int FROM subnets s WHERE s.org_id = vrfs.org_id AND s.vrf_id = vrfs.id)`.mapWith(
          Number,
        ),
    })
    .from(vrfs)
    .where(eq(vrfs.orgId, orgId))
    .orderBy(asc(vrfs.name));

export const get = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(vrfs).where(inOrg(orgId, id)))[0];

/** The row locked until the transaction ends, so its old values stay true while it is changed. */
export const getForUpdate = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(vrfs).where(inOrg(orgId, id)).for('update'))[0];

export const countInOrg = async (db: Db, orgId: string) =>
  (await db.select({ n: count() }).from(vrfs).where(eq(vrfs.orgId, orgId)))[0].n;

export const countSubnets = async (db: Db, orgId: string, id: string) =>
  (
    await db
      .select({ n: count() })
      .from(subnets)
      .where(and(eq(subnets.orgId, orgId), eq(subnets.vrfId, id)))
  )[0].n;

export const insert = async (db: Db, orgId: string, values: VrfValues) =>
  (
    await db
      .insert(vrfs)
      .values({ orgId, ...values })
      .returning()
  )[0];

export const update = async (db: Db, orgId: string, id: string, values: Partial<VrfValues>) =>
  (
    await db
      .update(vrfs)
      .set({ ...values, updatedAt: new Date() })
      .where(inOrg(orgId, id))
      .returning()
  )[0];

export const remove = async (db: Db, orgId: string, id: string) =>
  (await db.delete(vrfs).where(inOrg(orgId, id)).returning())[0];

export const findByName = async (db: Db, orgId: string, name: string) =>
  (
    await db
      .select()
      .from(vrfs)
      .where(and(eq(vrfs.orgId, orgId), eq(vrfs.name, name)))
  )[0];
