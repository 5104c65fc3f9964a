import { and, desc, eq, lt } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { webhookDeliveries } from '../../db/schema';

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Every attempt is recorded: the test endpoint's pings and the worker's deliveries alike. */
export async function insertDelivery(db: Db, values: Omit<typeof webhookDeliveries.$inferInsert, 'id'>) {
  return (await db.insert(webhookDeliveries).values(values).returning())[0];
}

export const listDeliveries = (db: Db, orgId: string, webhookId: string, limit: number, offset: number) =>
  db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.orgId, orgId), eq(webhookDeliveries.webhookId, webhookId)))
    .orderBy(desc(webhookDeliveries.deliveredAt), desc(webhookDeliveries.attempt))
    .limit(limit)
    .offset(offset);

/** Deliveries are kept 7 days. */
export async function purgeDeliveriesBefore(db: Db, cutoff: Date) {
  await db.delete(webhookDeliveries).where(lt(webhookDeliveries.deliveredAt, cutoff));
}
