import { and, asc, count, eq } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { webhooks } from '../../db/schema';
import { first } from '../shared/rows';

export type WebhookRow = typeof webhooks.$inferSelect;
export type WebhookValues = {
  url: string;
  description: string;
  eventTypes: string[];
  isActive: boolean;
  failureCount: number;
  secret: string;
};

const inOrg = (orgId: string, id: string) => and(eq(webhooks.orgId, orgId), eq(webhooks.id, id));

export const list = (db: Db, orgId: string) =>
  db.select().from(webhooks).where(eq(webhooks.orgId, orgId)).orderBy(asc(webhooks.createdAt), asc(webhooks.id));

export const get = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(webhooks).where(inOrg(orgId, id)))[0];

/** The row locked until the transaction ends, so its old values stay true while it is changed. */
export const getForUpdate = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(webhooks).where(inOrg(orgId, id)).for('update'))[0];

export const countInOrg = async (db: Db, orgId: string) =>
  first(await db.select({ n: count() }).from(webhooks).where(eq(webhooks.orgId, orgId)), 'a count of webhooks').n;

export const insert = async (
  db: Db,
  orgId: string,
  values: Pick<WebhookValues, 'url' | 'description' | 'eventTypes' | 'secret'>,
) =>
  first(
    await db
      .insert(webhooks)
      .values({ orgId, ...values })
      .returning(),
    'the webhook inserted',
  );

/** Sets the given columns of the webhook; answers its row as changed (no row when there is no such webhook). */
export const update = async (db: Db, orgId: string, id: string, values: Partial<WebhookValues>) =>
  db
    .update(webhooks)
    .set({ ...values, updatedAt: new Date() })
    .where(inOrg(orgId, id))
    .returning();

/** The delivery history goes with it (foreign key, ON DELETE CASCADE). */
export const remove = async (db: Db, orgId: string, id: string) =>
  (await db.delete(webhooks).where(inOrg(orgId, id)).returning())[0];
