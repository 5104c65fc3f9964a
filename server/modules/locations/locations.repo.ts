import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { locations } from '../../db/schema';

export type LocationRow = typeof locations.$inferSelect;
export type LocationValues = { name: string; address?: string };

const inOrg = (orgId: string, id: string) => and(eq(locations.orgId, orgId), eq(locations.id, id));

export const listWithCounts = (db: Db, orgId: string) =>
  db
    .select({
      location: locations,
      subnetCount:
        sql<number>`(SELECT count(*)::int FROM subnets s WHERE s.org_id = locations.org_id AND s.location_id = locations.id)`.mapWith(
          Number,
        ),
      vlanCount:
        sql<number>`(SELECT count(*)::int FROM vlans v WHERE v.org_id = locations.org_id AND v.location_id = locations.id)`.mapWith(
          Number,
        ),
    })
    .from(locations)
    .where(eq(locations.orgId, orgId))
    .orderBy(asc(locations.name));

export const get = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(locations).where(inOrg(orgId, id)))[0];

/** The row locked until the transaction ends, so its old values stay true while it is changed. */
export const getForUpdate = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(locations).where(inOrg(orgId, id)).for('update'))[0];

export const countInOrg = async (db: Db, orgId: string) =>
  (await db.select({ n: count() }).from(locations).where(eq(locations.orgId, orgId)))[0].n;

export const insert = async (db: Db, orgId: string, values: LocationValues) =>
  (
    await db
      .insert(locations)
      .values({ orgId, ...values })
      .returning()
  )[0];

export const update = async (db: Db, orgId: string, id: string, values: Partial<LocationValues>) =>
  (
    await db
      .update(locations)
      .set({ ...values, updatedAt: new Date() })
      .where(inOrg(orgId, id))
      .returning()
  )[0];

/** Subnets and VLANs at the location keep existing: the foreign keys clear their location_id. */
export const remove = async (db: Db, orgId: string, id: string) =>
  (await db.delete(locations).where(inOrg(orgId, id)).returning())[0];
