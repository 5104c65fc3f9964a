import { and, asc, count, eq } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { folders } from '../../db/schema';

export type FolderRow = typeof folders.$inferSelect;
export type FolderValues = { name: string; description?: string; sortOrder?: number };

const inOrg = (orgId: string, id: string) => and(eq(folders.orgId, orgId), eq(folders.id, id));

export const list = (db: Db, orgId: string) =>
  db.select().from(folders).where(eq(folders.orgId, orgId)).orderBy(asc(folders.sortOrder), asc(folders.name));

export const get = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(folders).where(inOrg(orgId, id)))[0];

/** The row locked until the transaction ends, so its old values stay true while it is changed. */
export const getForUpdate = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(folders).where(inOrg(orgId, id)).for('update'))[0];

export const countInOrg = async (db: Db, orgId: string) =>
  (await db.select({ n: count() }).from(folders).where(eq(folders.orgId, orgId)))[0].n;

export const insert = async (db: Db, orgId: string, values: FolderValues) =>
  (
    await db
      .insert(folders)
      .values({ orgId, ...values })
      .returning()
  )[0];

export const update = async (db: Db, orgId: string, id: string, values: Partial<FolderValues>) =>
  (
    await db
      .update(folders)
      .set({ ...values, updatedAt: new Date() })
      .where(inOrg(orgId, id))
      .returning()
  )[0];

/** Subnets in the folder keep existing: the foreign key sets their folder_id to null. */
export const remove = async (db: Db, orgId: string, id: string) =>
  (await db.delete(folders).where(inOrg(orgId, id)).returning())[0];
