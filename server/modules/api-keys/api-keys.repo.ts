import { and, count, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { apiKeys } from '../../db/schema';
import { first } from '../shared/rows';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

const columns = {
  id: apiKeys.id,
  name: apiKeys.name,
  keyPrefix: apiKeys.keyPrefix,
  permissions: apiKeys.permissions,
  createdAt: apiKeys.createdAt,
  lastUsedAt: apiKeys.lastUsedAt,
};

/** Keys of the organisation, newest first; only `userId`'s when given. */
export const list = (db: Db, orgId: string, userId: string | null) =>
  db
    .select(columns)
    .from(apiKeys)
    .where(and(eq(apiKeys.orgId, orgId), userId === null ? undefined : eq(apiKeys.userId, userId)))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));

export const get = async (db: Db, orgId: string, id: string) =>
  (
    await db
      .select(columns)
      .from(apiKeys)
      .where(and(eq(apiKeys.orgId, orgId), eq(apiKeys.id, id)))
  )[0];

export const countInOrg = async (db: Db, orgId: string) =>
  first(await db.select({ n: count() }).from(apiKeys).where(eq(apiKeys.orgId, orgId)), 'a count of API keys').n;

/** Deletes the key of the organisation (and of `userId` when given); answers its id when one was deleted. */
export const remove = async (db: Db, orgId: string, id: string, userId: string | null) =>
  (
    await db
      .delete(apiKeys)
      .where(
        and(eq(apiKeys.orgId, orgId), eq(apiKeys.id, id), userId === null ? undefined : eq(apiKeys.userId, userId)),
      )
      .returning({ id: apiKeys.id, name: apiKeys.name, permissions: apiKeys.permissions })
  )[0];
