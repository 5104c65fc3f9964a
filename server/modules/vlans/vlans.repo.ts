import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { orgRows } from '../../db/org-rows';
import { vlans } from '../../db/schema';
import { taggedAs } from '../../db/tag-filter';
import type { TagFilter } from '../shared/tags';

export type VlanRow = typeof vlans.$inferSelect;
export type VlanValues = {
  vlanNumber: number;
  name?: string;
  description?: string;
  locationId?: string | null;
  tags?: string[];
};

/** Subnets on a removed VLAN keep existing: the foreign key clears their vlan_id. */
export const { get, getForUpdate, getForReference, countInOrg, insert, update, remove } = orgRows<
  typeof vlans,
  VlanValues
>(vlans);

export const listWithCounts = (db: Db, orgId: string, tags: TagFilter | undefined) =>
  db
    .select({
      vlan: vlans,
      subnetCount:
        sql<number>`(SELECT count(*)::int FROM subnets s WHERE s.org_id = vlans.org_id AND s.vlan_id = vlans.id)`.mapWith(
          Number,
        ),
    })
    .from(vlans)
    .where(and(eq(vlans.orgId, orgId), taggedAs(vlans.tags, tags)))
    .orderBy(asc(vlans.vlanNumber));

/** The row with this number, kept from being deleted until the transaction ends (see getForReference). */
export const findByNumber = async (db: Db, orgId: string, vlanNumber: number) =>
  (
    await db
      .select()
      .from(vlans)
      .where(and(eq(vlans.orgId, orgId), eq(vlans.vlanNumber, vlanNumber)))
      .for('key share')
  )[0];
