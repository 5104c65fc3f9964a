import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { Organization, Plan } from './auth.contract';
import { ApiError, CheckoutCooldownError, errors } from './common/errors';
import { IdempotencyHeaders, idempotent } from './common/idempotency';
import { access, type RouteMeta } from './common/meta';
import { FreeForm, requiredName, Timestamp } from './common/schemas';

const c = initContract();
const meta = access('Billing');

/** Stripe calls this endpoint itself: no session, no key, no per-IP limit; the signature authenticates it. */
const stripeWebhookMeta = { tag: 'Billing', access: 'public' } satisfies RouteMeta;

const Count = z.number().int().nonnegative();
const Limit = z.number().int().nonnegative().nullable();

export const BillingUsage = extendApi(
  z
    .object({
      folders: Count.describe('Number of folders in the organisation'),
      subnets: Count.describe('Number of subnets in the organisation'),
      addresses: Count.describe('Number of IP address records in the organisation'),
    })
    .strict(),
  {
    title: 'BillingUsage',
    description: 'What the organisation holds now',
    example: { folders: 3, subnets: 42, addresses: 1200 },
  },
);

export const BillingLimits = extendApi(
  z
    .object({
      folders: Limit.describe('Most folders allowed; null when unlimited'),
      subnets: Limit.describe('Most subnets allowed; null when unlimited'),
      addresses: Limit.describe('Most IP address records allowed; null when unlimited'),
    })
    .strict(),
  {
    title: 'BillingLimits',
    description: 'The plan’s limits; null means unlimited (fair use applies)',
    example: { folders: null, subnets: null, addresses: 5000 },
  },
);

export const BillingPlan = extendApi(
  z
    .object({
      plan: Plan,
      org_name: z.string().describe('Name of the organisation'),
      has_billing: z.boolean().describe('True when the organisation has a billing account (the portal is available)'),
      checkout_available_at: Timestamp.nullable().describe(
        'When checkout becomes possible; null once the cooldown has passed',
      ),
      checkout_cooldown_seconds: z
        .number()
        .int()
        .nonnegative()
        .describe('Cooldown after the organisation is created before a checkout is allowed'),
      usage: BillingUsage,
      limits: BillingLimits,
    })
    .strict(),
  {
    title: 'BillingPlan',
    description: 'Plan, usage against its limits, and checkout availability',
    example: {
      plan: 'pro',
      org_name: 'Acme Networks',
      has_billing: true,
      checkout_available_at: null,
      checkout_cooldown_seconds: 600,
      usage: { folders: 3, subnets: 42, addresses: 1200 },
      limits: { folders: null, subnets: null, addresses: 5000 },
    },
  },
);

/** Optional as a whole (`body: BillingCheckoutBody.optional()`): no body and `{}` both mean `pro`. */
export const BillingCheckoutBody = extendApi(
  z
    .object({
      plan: z.enum(['pro', 'teams']).default('pro').describe('Plan to buy; pro when omitted'),
    })
    .strict(),
  { title: 'BillingCheckoutBody', description: 'Optional; an empty body means pro', example: { plan: 'teams' } },
);

export const BillingSessionUrl = extendApi(
  z.object({ url: z.string().url().describe('Payment-provider page to send the browser to') }).strict(),
  {
    title: 'BillingSessionUrl',
    description: 'A payment-provider session to redirect the user to',
    example: { url: 'https://checkout.stripe.com/c/pay/cs_test_a1B2c3D4' },
  },
);

export const UpdateOrgNameBody = extendApi(
  z.object({ name: requiredName(100).describe('New organisation name, trimmed, 1 to 100 characters') }).strict(),
  { title: 'BillingOrgNameBody', description: 'The organisation’s new name', example: { name: 'Acme Networks GmbH' } },
);

/*
 * A Stripe event as Stripe sends it. Not `.strict()` on purpose: Stripe adds top-level fields
 * (object, api_version, created, livemode, pending_webhooks, request …) and new ones across API versions;
 * unknown keys are dropped, never refused. The signature is checked against the raw body.
 */
export const StripeEvent = extendApi(
  z
    .object({
      id: z.string().min(1).describe('Event id (evt_…); events are processed once per id'),
      type: z.string().min(1).describe('Event type, e.g. checkout.session.completed, customer.subscription.updated'),
      data: z
        .object({ object: FreeForm.describe('The Stripe object the event is about') })
        .strip()
        .describe('Event payload; `object` holds the Stripe object the event is about'),
    })
    .strip(),
  {
    title: 'BillingStripeEvent',
    description: 'A Stripe webhook event (only the fields the service reads are listed)',
    example: {
      id: 'evt_1QbC2dE3fG4hI5jK',
      type: 'customer.subscription.updated',
      data: { object: { id: 'sub_1QbC2dE3fG4hI5jK', object: 'subscription', status: 'active' } },
    },
  },
);

export const StripeWebhookAck = extendApi(
  z.object({ received: z.literal(true).describe('Always true: the event was accepted') }).strict(),
  {
    title: 'BillingStripeWebhookAck',
    description: 'The event was accepted (or had been processed before)',
    example: { received: true },
  },
);

export const StripeWebhookHeaders = z.object({
  'stripe-signature': z.string().min(1).describe('Stripe signature of the raw body (t=…,v1=…)'),
});

export const billingContract = c.router({
  getBillingPlan: {
    method: 'GET',
    path: '/billing/plan',
    summary: 'Get plan and usage',
    description: 'The organisation’s plan, its usage and limits, and when a checkout becomes possible.',
    metadata: meta.read,
    responses: { 200: BillingPlan, ...errors(401, 403, 429) },
  },
  createCheckoutSession: {
    method: 'POST',
    path: '/billing/checkout',
    summary: 'Start a checkout',
    description:
      'Creates a payment-provider checkout session for pro (default: empty body or `{}`) or teams and answers its `url`. ' +
      '400 when the organisation is already on a paid plan. 403 with `code: checkout_cooldown`, `retry_after_seconds`, ' +
      '`available_at` and a `Retry-After` header while the organisation is younger than the checkout cooldown ' +
      '(other 403s are ordinary errors). 503 when billing is not configured.',
    metadata: idempotent(meta.adminWrite),
    headers: IdempotencyHeaders,
    body: BillingCheckoutBody.optional(),
    responses: {
      200: BillingSessionUrl,
      ...errors(400, 401, 409, 413, 415, 422, 429, 503),
      403: z.union([CheckoutCooldownError, ApiError]),
    },
  },
  createPortalSession: {
    method: 'POST',
    path: '/billing/portal',
    summary: 'Open the billing portal',
    description:
      'Creates a payment-provider billing portal session and answers its `url`. 400 when the organisation has no ' +
      'billing account yet (`has_billing` false); 503 when billing is not configured.',
    metadata: idempotent(meta.adminWrite),
    headers: IdempotencyHeaders,
    body: c.noBody(),
    responses: { 200: BillingSessionUrl, ...errors(400, 401, 403, 409, 422, 429, 503) },
  },
  updateOrganizationName: {
    method: 'PATCH',
    path: '/billing/org-name',
    summary: 'Rename the organisation',
    description: 'Sets the organisation name (trimmed, 1 to 100 characters) and answers the updated organisation.',
    metadata: meta.adminWrite,
    body: UpdateOrgNameBody,
    responses: { 200: Organization, ...errors(400, 401, 403, 413, 415, 429) },
  },
  receiveStripeEvent: {
    method: 'POST',
    path: '/billing/stripe-webhook',
    summary: 'Receive a Stripe event',
    description:
      'Called by Stripe, not by users: authenticated by the `stripe-signature` header over the raw body (400 when ' +
      'missing or wrong). Applies plan changes; an event id seen before is acknowledged without effect. 503 when ' +
      'billing is not configured.',
    metadata: stripeWebhookMeta,
    headers: StripeWebhookHeaders,
    body: StripeEvent,
    responses: { 200: StripeWebhookAck, ...errors(400, 413, 415, 503) },
  },
});
