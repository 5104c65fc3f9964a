import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { orgRows } from '../../db/org-rows';
import { folders } from '../../db/schema';
import { taggedAs } from '../../db/tag-filter';
import type { TagFilter } from '../shared/tags';

export type FolderRow = typeof folders.$inferSelect;
export type FolderValues = { name: string; description?: string; sortOrder?: number; tags?: string[] };

/** Subnets in a removed folder keep existing: the foreign key sets their folder_id to null. */
export const { get, getForUpdate, getForReference, countInOrg, insert, update, remove } = orgRows<
  typeof folders,
  FolderValues
>(folders);

export const list = (db: Db, orgId: string, tags: TagFilter | undefined) =>
  db
    .select()
    .from(folders)
    .where(and(eq(folders.orgId, orgId), taggedAs(folders.tags, tags)))
    .orderBy(asc(folders.sortOrder), asc(folders.name));

/** The row with this name, kept from being deleted until the transaction ends (see getForReference). */
export const findByName = async (db: Db, orgId: string, name: string) =>
  (
    await db
      .select()
      .from(folders)
      .where(and(eq(folders.orgId, orgId), eq(folders.name, name)))
      .for('key share')
  )[0];
