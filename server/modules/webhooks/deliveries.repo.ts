import { and, desc, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { webhookDeliveries } from '../../db/schema';

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;

/** Every attempt is recorded: the test endpoint's pings and the worker's deliveries alike. */
export async function insertDelivery(db: Db, values: Omit<typeof webhookDeliveries.$inferInsert, 'id'>) {
  return (await db.insert(webhookDeliveries).values(values).returning())[0];
}

/** A delivery's place in the newest-first order: its time as PostgreSQL's text (microseconds kept), attempt, id. */
export interface DeliveryPosition {
  at: string;
  attempt: number;
  id: string;
}

/**
 * A page of a subscription's deliveries, newest first, after `offset` of them or after a delivery's position (a
 * cursor's, keyset: stable while others write), each with its time as PostgreSQL's text for the next cursor.
 */
export const listDeliveries = (
  db: Db,
  orgId: string,
  webhookId: string,
  limit: number,
  start: { offset: number } | { after: DeliveryPosition },
) =>
  db
    .select({ delivery: webhookDeliveries, at: sql<string>`${webhookDeliveries.deliveredAt}::text` })
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.orgId, orgId),
        eq(webhookDeliveries.webhookId, webhookId),
        'after' in start
          ? sql`(${webhookDeliveries.deliveredAt}, ${webhookDeliveries.attempt}, ${webhookDeliveries.id}) <
              (${start.after.at}::timestamptz, ${start.after.attempt}, ${start.after.id}::uuid)`
          : undefined,
      ),
    )
    .orderBy(desc(webhookDeliveries.deliveredAt), desc(webhookDeliveries.attempt), desc(webhookDeliveries.id))
    .limit(limit)
    .offset('offset' in start ? start.offset : 0);

/** Deliveries are kept 7 days. */
export async function purgeDeliveriesBefore(db: Db, cutoff: Date) {
  await db.delete(webhookDeliveries).where(lt(webhookDeliveries.deliveredAt, cutoff));
}
