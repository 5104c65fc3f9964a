import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { orgRows } from '../../db/org-rows';
import { subnets, vrfs } from '../../db/schema';
import { taggedAs } from '../../db/tag-filter';
import { first } from '../shared/rows';
import type { TagFilter } from '../shared/tags';

export type VrfRow = typeof vrfs.$inferSelect;
export type VrfValues = { name: string; rd?: string; description?: string; tags?: string[] };

/** A VRF that subnets use is not removed: the foreign key refuses (see deleteVrf). */
export const { get, getForUpdate, getForReference, countInOrg, insert, update, remove } = orgRows<
  typeof vrfs,
  VrfValues
>(vrfs);

export const listWithCounts = (db: Db, orgId: string, tags: TagFilter | undefined) =>
  db
    .select({
      vrf: vrfs,
      subnetCount:
        sql<number>`(SELECT count(*)::int FROM subnets s WHERE s.org_id = vrfs.org_id AND s.vrf_id = vrfs.id)`.mapWith(
          Number,
        ),
    })
    .from(vrfs)
    .where(and(eq(vrfs.orgId, orgId), taggedAs(vrfs.tags, tags)))
    .orderBy(asc(vrfs.name));

export const countSubnets = async (db: Db, orgId: string, id: string) =>
  first(
    await db
      .select({ n: count() })
      .from(subnets)
      .where(and(eq(subnets.orgId, orgId), eq(subnets.vrfId, id))),
    "a count of the VRF's subnets",
  ).n;

/** The row with this name, kept from being deleted until the transaction ends (see getForReference). */
export const findByName = async (db: Db, orgId: string, name: string) =>
  (
    await db
      .select()
      .from(vrfs)
      .where(and(eq(vrfs.orgId, orgId), eq(vrfs.name, name)))
      .for('key share')
  )[0];
