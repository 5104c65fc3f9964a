import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { orgRows } from '../../db/org-rows';
import { locations } from '../../db/schema';
import { taggedAs } from '../../db/tag-filter';
import type { TagFilter } from '../shared/tags';

export type LocationRow = typeof locations.$inferSelect;
export type LocationValues = { name: string; address?: string; tags?: string[] };

/** Subnets and VLANs at a removed location keep existing: the foreign keys clear their location_id. */
export const { get, getForUpdate, getForReference, countInOrg, insert, update, remove } = orgRows<
  typeof locations,
  LocationValues
>(locations);

export const listWithCounts = (db: Db, orgId: string, tags: TagFilter | undefined) =>
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
    .where(and(eq(locations.orgId, orgId), taggedAs(locations.tags, tags)))
    .orderBy(asc(locations.name));

/** The row with this name, kept from being deleted until the transaction ends (see getForReference). */
export const findByName = async (db: Db, orgId: string, name: string) =>
  (
    await db
      .select()
      .from(locations)
      .where(and(eq(locations.orgId, orgId), eq(locations.name, name)))
      .for('key share')
  )[0];
