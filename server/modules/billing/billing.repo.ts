import { eq } from 'drizzle-orm';
import type { Plan } from '../../../contract/common/enums';
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';
import { organizations } from '../../db/schema';
import { first } from '../shared/rows';

/** What billing reads of an organisation. */
export interface BillingAccount {
  id: string;
  name: string;
  slug: string;
  plan: Plan;
  limitOverrides: Record<string, number | null>;
  createdAt: Date;
  updatedAt: Date;
  stripeCustomerId: string | null;
  stripeSubscriptionId: string | null;
}

const accountColumns = {
  id: organizations.id,
  name: organizations.name,
  slug: organizations.slug,
  plan: organizations.plan,
  limitOverrides: organizations.limitOverrides,
  createdAt: organizations.createdAt,
  updatedAt: organizations.updatedAt,
  stripeCustomerId: organizations.stripeCustomerId,
  stripeSubscriptionId: organizations.stripeSubscriptionId,
};

export async function account(db: Db, orgId: string): Promise<BillingAccount | undefined> {
  return (await db.select(accountColumns).from(organizations).where(eq(organizations.id, orgId)))[0];
}

/** The account, its row locked until the transaction ends (one plan change at a time). */
export async function lockAccount(tx: Db, orgId: string): Promise<BillingAccount | undefined> {
  return (
    await tx.select(accountColumns).from(organizations).where(eq(organizations.id, orgId)).for('no key update')
  )[0];
}

export async function accountOfCustomer(tx: Db, customerId: string): Promise<BillingAccount | undefined> {
  return (await tx.select(accountColumns).from(organizations).where(eq(organizations.stripeCustomerId, customerId)))[0];
}

const usageCounts = prepared<{ folders: number; subnets: number; addresses: number }, { orgId: string }>(
  'billing_usage',
  `SELECT (SELECT count(*) FROM folders WHERE org_id = :orgId)::int AS folders,
     (SELECT count(*) FROM subnets WHERE org_id = :orgId)::int AS subnets,
     (SELECT count(*) FROM addresses WHERE org_id = :orgId)::int AS addresses`,
);

export async function usage(db: Db, orgId: string) {
  return first(await usageCounts(db, { orgId }), 'the counts of the usage');
}

const customerKept = prepared<{ customer: string }, { orgId: string; customerId: string }>(
  'billing_keep_customer',
  `UPDATE organizations SET stripe_customer_id = coalesce(stripe_customer_id, :customerId)
   WHERE id = :orgId RETURNING stripe_customer_id AS customer`,
);

/** Records the organisation's customer unless it has one; answers the customer it has. */
export async function keepCustomer(db: Db, orgId: string, customerId: string): Promise<string> {
  return first(await customerKept(db, { orgId, customerId }), "the caller's organisation").customer;
}

const planApplied = prepared<
  { id: string },
  { orgId: string; plan: Plan; subscriptionId: string | null; customerId: string | null; at: string }
>(
  'billing_apply_plan',
  `UPDATE organizations SET plan = :plan, stripe_subscription_id = :subscriptionId,
     stripe_customer_id = coalesce(stripe_customer_id, :customerId), billing_event_at = :at::timestamptz,
     updated_at = now()
   WHERE id = :orgId AND (billing_event_at IS NULL OR billing_event_at <= :at::timestamptz)
   RETURNING id`,
);

/**
 * Sets the plan, the subscription and the customer an event says, unless an event newer than `at` was
 * applied already (Stripe does not promise order); answers whether it applied.
 */
export async function applyPlan(
  tx: Db,
  orgId: string,
  change: { plan: Plan; subscriptionId: string | null; customerId: string | null; at: Date },
): Promise<boolean> {
  const { plan, subscriptionId, customerId } = change;
  const rows = await planApplied(tx, { orgId, plan, subscriptionId, customerId, at: change.at.toISOString() });
  return rows.length > 0;
}

const eventProcessed = prepared<{ id: string }, { eventId: string; type: string }>(
  'billing_mark_processed',
  'INSERT INTO stripe_events (id, type) VALUES (:eventId, :type) ON CONFLICT DO NOTHING RETURNING id',
);

/** Marks an event processed; false when it was before (a redelivery). */
export async function markProcessed(tx: Db, eventId: string, type: string): Promise<boolean> {
  return (await eventProcessed(tx, { eventId, type })).length > 0;
}

const eventOrganizationSet = prepared<unknown, { eventId: string; orgId: string }>(
  'billing_mark_event_org',
  'UPDATE stripe_events SET org_id = :orgId WHERE id = :eventId',
);

export async function setEventOrganization(tx: Db, eventId: string, orgId: string) {
  await eventOrganizationSet(tx, { eventId, orgId });
}

export async function rename(db: Db, orgId: string, name: string): Promise<BillingAccount | undefined> {
  return (
    await db
      .update(organizations)
      .set({ name, updatedAt: new Date() })
      .where(eq(organizations.id, orgId))
      .returning(accountColumns)
  )[0];
}
