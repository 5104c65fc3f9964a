/**
 * Billing through Stripe: the plan with its usage and limits, checkout and the billing portal (Stripe's
 * hosted pages), the organisation's name, and the Stripe events that move the plan. A plan change commits
 * with an activity entry and holds from the next request on (the callers' cache hears the organisation's
 * change), limits, key write access and rate limits included; a cancelled subscription returns the
 * organisation to free, keeping its data (writes past the free limits then get 402).
 */
import type Stripe from 'stripe';
import type { z } from 'zod';
import type { Organization } from '../../../contract/auth.contract';
import type { BillingPlan } from '../../../contract/billing.contract';
import type { Plan } from '../../../contract/common/enums';
import type { BillingConfig } from '../../config';
import type { Db } from '../../db/connection';
import { transaction } from '../../db/pipeline';
import { badRequest, HttpError, notFound } from '../../errors';
import type { Principal } from '../../principal';
import { recordActivity } from '../activity/activity.service';
import { effectiveLimits } from '../plans/limits';
import { commitTransaction } from '../writes/writes';
import * as repo from './billing.repo';
import { isStripeError, stripeOf, verifiedEvent } from './stripe';

/** What billing needs of the app's context. */
export interface Billing {
  db: Db;
  config: { billing: BillingConfig; appUrl: string };
  now: () => Date;
}

const PAID_PLANS = ['pro', 'teams'] as const;
type PaidPlan = (typeof PAID_PLANS)[number];

const unavailable = (message: string) => new HttpError(503, 'billing_unavailable', message);

async function stripeOrUnavailable(config: BillingConfig): Promise<Stripe> {
  const stripe = await stripeOf(config);
  if (!stripe) throw unavailable('Billing is not configured on this server (STRIPE_SECRET_KEY is not set)');
  return stripe;
}

/** A Stripe call whose failure (the API unreachable, or refusing this server's configuration) is a 503. */
async function viaStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (isStripeError(error)) throw unavailable(`The payment provider refused to ${what}: ${error.message}`);
    throw error;
  }
}

async function accountOf(db: Db, orgId: string) {
  const account = await repo.account(db, orgId);
  if (!account) throw notFound('Organization');
  return account;
}

/** When the organisation may first check out; null once that time has passed. */
function checkoutAvailableAt(account: repo.BillingAccount, config: BillingConfig, now: Date): Date | null {
  const at = new Date(account.createdAt.getTime() + config.checkoutCooldownSeconds * 1000);
  return at > now ? at : null;
}

export async function getPlan(context: Billing, caller: Principal): Promise<z.infer<typeof BillingPlan>> {
  const [account, usage] = await Promise.all([
    accountOf(context.db, caller.orgId),
    repo.usage(context.db, caller.orgId),
  ]);
  const limits = effectiveLimits(account.plan, account.limitOverrides);
  const availableAt = checkoutAvailableAt(account, context.config.billing, context.now());
  return {
    plan: account.plan,
    org_name: account.name,
    has_billing: account.stripeCustomerId !== null,
    checkout_available_at: availableAt?.toISOString() ?? null,
    checkout_cooldown_seconds: context.config.billing.checkoutCooldownSeconds,
    usage,
    limits: { folders: limits.folders, subnets: limits.subnets, addresses: limits.addresses },
  };
}

/** 403 `checkout_cooldown`: the organisation is younger than the checkout cooldown. */
export class CheckoutCooldown extends Error {
  constructor(
    readonly availableAt: Date,
    readonly retryAfterSeconds: number,
    cooldownSeconds: number,
  ) {
    super(
      `Checkout is available from ${availableAt.toISOString()} (in ${retryAfterSeconds} s), ` +
        `${cooldownSeconds} s after the organisation was created`,
    );
  }
}

/** A Stripe Checkout page selling `plan` to the organisation, its customer made once (and kept). */
export async function startCheckout(context: Billing, caller: Principal, plan: PaidPlan): Promise<{ url: string }> {
  const config = context.config.billing;
  const stripe = await stripeOrUnavailable(config);
  const price = config.prices[plan];
  if (!price)
    throw unavailable(`Billing has no price for the ${plan} plan (STRIPE_PRICE_${plan.toUpperCase()} is not set)`);
  const account = await accountOf(context.db, caller.orgId);
  if (account.plan !== 'free') {
    throw badRequest(`The organisation is already on the paid ${account.plan} plan; change it in the billing portal`);
  }
  const now = context.now();
  const availableAt = checkoutAvailableAt(account, config, now);
  if (availableAt) {
    const retryAfter = Math.ceil((availableAt.getTime() - now.getTime()) / 1000);
    throw new CheckoutCooldown(availableAt, retryAfter, config.checkoutCooldownSeconds);
  }
  const customer = account.stripeCustomerId ?? (await newCustomer(context, stripe, account));
  const session = await viaStripe('start a checkout', () =>
    stripe.checkout.sessions.create({
      mode: 'subscription',
      customer,
      client_reference_id: account.id,
      line_items: [{ price, quantity: 1 }],
      metadata: { org_id: account.id, plan },
      subscription_data: { metadata: { org_id: account.id, plan } },
      success_url: `${context.config.appUrl}/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${context.config.appUrl}/billing?checkout=cancelled`,
    }),
  );
  if (!session.url) throw unavailable('The payment provider answered a checkout session without a page');
  return { url: session.url };
}

/**
 * The organisation's Stripe customer, made once: Stripe's idempotency key makes two checkouts at once get
 * one customer, and the first one recorded stays.
 */
async function newCustomer(context: Billing, stripe: Stripe, account: repo.BillingAccount): Promise<string> {
  const customer = await viaStripe('create a customer', () =>
    stripe.customers.create(
      { name: account.name, metadata: { org_id: account.id } },
      { idempotencyKey: `customer-of-${account.id}` },
    ),
  );
  return repo.keepCustomer(context.db, account.id, customer.id);
}

export async function openPortal(context: Billing, caller: Principal): Promise<{ url: string }> {
  const stripe = await stripeOrUnavailable(context.config.billing);
  const account = await accountOf(context.db, caller.orgId);
  if (!account.stripeCustomerId) {
    throw badRequest('The organisation has no billing account yet (has_billing is false): start with a checkout');
  }
  const customer = account.stripeCustomerId;
  const session = await viaStripe('open the billing portal', () =>
    stripe.billingPortal.sessions.create({ customer, return_url: `${context.config.appUrl}/billing` }),
  );
  return { url: session.url };
}

export async function renameOrganization(
  context: Billing,
  caller: Principal,
  name: string,
): Promise<z.infer<typeof Organization>> {
  return commitTransaction(context.db, async (tx) => {
    const before = await repo.lockAccount(tx, caller.orgId);
    const after = await repo.rename(tx, caller.orgId, name);
    if (!before || !after) throw notFound('Organization');
    if (before.name !== after.name) {
      await recordActivity(tx, caller, {
        action: 'update',
        resourceType: 'organization',
        resourceId: caller.orgId,
        changes: { name: [before.name, after.name] },
      });
    }
    return {
      id: after.id,
      name: after.name,
      slug: after.slug,
      plan: after.plan,
      created_at: after.createdAt.toISOString(),
      updated_at: after.updatedAt.toISOString(),
    };
  });
}

/** The plan an event puts the organisation on, and the organisation (by its id in metadata, else its customer). */
interface PlanChange {
  orgId: string | null;
  customerId: string | null;
  subscriptionId: string | null;
  plan: Plan;
}

const idOf = (value: string | { id: string } | null | undefined) =>
  value == null ? null : typeof value === 'string' ? value : value.id;
const asPaidPlan = (value: unknown): PaidPlan | null =>
  (PAID_PLANS as readonly unknown[]).includes(value) ? (value as PaidPlan) : null;

/** Subscription states that keep the plan paid for; canceled, unpaid and incomplete_expired end it. */
const PAYING = new Set(['active', 'trialing', 'past_due']);
const ENDED = new Set(['canceled', 'unpaid', 'incomplete_expired']);

function planChangeOf(event: Stripe.Event, config: BillingConfig): PlanChange | null {
  if (event.type === 'checkout.session.completed') {
    const session = event.data.object;
    const plan = asPaidPlan(session.metadata?.plan);
    if (session.mode !== 'subscription' || !plan) return null;
    return {
      orgId: session.client_reference_id ?? session.metadata?.org_id ?? null,
      customerId: idOf(session.customer),
      subscriptionId: idOf(session.subscription),
      plan,
    };
  }
  if (
    event.type === 'customer.subscription.created' ||
    event.type === 'customer.subscription.updated' ||
    event.type === 'customer.subscription.deleted'
  ) {
    const subscription = event.data.object;
    const base = { orgId: subscription.metadata?.org_id ?? null, customerId: idOf(subscription.customer) };
    if (event.type === 'customer.subscription.deleted' || ENDED.has(subscription.status)) {
      return { ...base, subscriptionId: null, plan: 'free' };
    }
    if (!PAYING.has(subscription.status)) return null;
    const price = subscription.items?.data?.[0]?.price?.id;
    const plan =
      (price && PAID_PLANS.find((p) => config.prices[p] === price)) || asPaidPlan(subscription.metadata?.plan);
    return plan ? { ...base, subscriptionId: subscription.id, plan } : null;
  }
  return null;
}

/**
 * A Stripe webhook delivery: its signature checked over the raw body first (400, nothing read or written
 * when wrong), then, in one transaction, the event recorded by id (a redelivery changes nothing) and the
 * plan change it carries applied with its activity entry. Other event types are acknowledged and ignored.
 */
export async function receiveEvent(context: Billing, rawBody: Buffer | undefined, signature: string) {
  const config = context.config.billing;
  if (!config.stripeWebhookSecret) {
    throw unavailable('Billing webhooks are not configured on this server (STRIPE_WEBHOOK_SECRET is not set)');
  }
  let event: Stripe.Event;
  try {
    event = await verifiedEvent(rawBody ?? Buffer.alloc(0), signature, config.stripeWebhookSecret);
  } catch {
    throw badRequest('stripe-signature: does not match the body with this server’s webhook secret');
  }
  await transaction(context.db, async (tx) => {
    if (!(await repo.markProcessed(tx, event.id, event.type))) return;
    const change = planChangeOf(event, config);
    if (!change) return;
    const found =
      (change.orgId && (await repo.lockAccount(tx, change.orgId))) ||
      (change.customerId && (await repo.accountOfCustomer(tx, change.customerId))) ||
      undefined;
    if (!found) return;
    const account = change.orgId ? found : await repo.lockAccount(tx, found.id);
    if (!account || account.plan === 'enterprise') return;
    await repo.setEventOrganization(tx, event.id, account.id);
    const at = new Date(event.created * 1000);
    const applied = await repo.applyPlan(tx, account.id, { ...change, at });
    if (applied && account.plan !== change.plan) {
      await recordActivity(
        tx,
        { orgId: account.id, userId: null },
        {
          action: 'update',
          resourceType: 'organization',
          resourceId: account.id,
          changes: { plan: [account.plan, change.plan] },
        },
      );
    }
  });
  return { received: true as const };
}
