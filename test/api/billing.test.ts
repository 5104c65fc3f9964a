/**
 * Billing against a server on loopback that speaks Stripe's wire format (test/fixtures/stripe.ts), with the
 * real `stripe` client: the plan and its usage, checkout with its cooldown, the portal, the organisation's
 * name, and the signed events that move the plan.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import { type FakeStripe, startFakeStripe } from '../fixtures/stripe';
import { defined } from '../support/defined';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import type { TestOrg } from '../support/server';

const COOLDOWN_S = 600;
let stripe: FakeStripe;
let clockOffsetMs = COOLDOWN_S * 1000 + 60_000; // organisations made now are past their cooldown
beforeAll(async () => {
  stripe = await startFakeStripe();
});
afterAll(() => stripe?.close());

const t = useTestServer(() => ({
  now: () => new Date(Date.now() + clockOffsetMs),
  config: {
    billing: {
      stripeSecretKey: stripe.secretKey,
      stripeWebhookSecret: stripe.webhookSecret,
      prices: stripe.prices,
      stripeApiBase: stripe.url,
      checkoutCooldownSeconds: COOLDOWN_S,
    },
  },
}));

const freeOrg = () => t.server.newOrg({ plan: 'free' });
/** When the organisation was created, in ms since the epoch, as the database recorded it. */
async function createdAtOf(org: TestOrg) {
  const [row] = rowsOf<{ created: string }>(
    await t.server.database.db.execute(
      sql`SELECT created_at::text AS created FROM organizations WHERE id = ${org.orgId}`,
    ),
  );
  const { created } = defined(row, 'the organisation');
  return Date.parse(created.replace(' ', 'T').replace(/\+00$/, 'Z'));
}
const planOf = async (org: TestOrg) => expectStatus(await org.web.call('getBillingPlan'), 200);
const checkout = (org: TestOrg, body?: unknown) => org.web.call('createCheckoutSession', { body });

/** Delivers a signed Stripe event to the service. */
async function deliver(event: Record<string, unknown>, secret?: string) {
  const { body, signature } = stripe.signed(event, secret);
  return t.server.anonymous.call('receiveStripeEvent', {
    rawBody: body,
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
  });
}

const event = (type: string, object: Record<string, unknown>, created = Math.floor(Date.now() / 1000)) => ({
  id: `evt_${randomUUID().replace(/-/g, '')}`,
  type,
  created,
  data: { object },
});
const completed = (org: TestOrg, plan: string, extra: Record<string, unknown> = {}) =>
  event('checkout.session.completed', {
    id: `cs_${randomUUID()}`,
    object: 'checkout.session',
    mode: 'subscription',
    client_reference_id: org.orgId,
    customer: `cus_${org.orgId.slice(0, 8)}`,
    subscription: `sub_${org.orgId.slice(0, 8)}`,
    metadata: { org_id: org.orgId, plan },
    ...extra,
  });
const subscription = (org: TestOrg, status: string, price: string) => ({
  id: `sub_${org.orgId.slice(0, 8)}`,
  object: 'subscription',
  status,
  customer: `cus_${org.orgId.slice(0, 8)}`,
  metadata: { org_id: org.orgId },
  items: { object: 'list', data: [{ id: 'si_1', price: { id: price } }] },
});

describe('GET /billing/plan', () => {
  it('answers the plan, the name, usage and the plan’s limits (null: unlimited)', async () => {
    const org = await freeOrg();
    await org.web.call('createFolder', { body: { name: 'DC' } });
    const subnet = await createSubnet(org.web, '10.1.0.0/24');
    await org.web.call('createAddress', { params: { id: subnet.id }, body: { ip: '10.1.0.5' } });
    const plan = await planOf(org);
    expect(plan).toMatchObject({
      plan: 'free',
      has_billing: false,
      checkout_available_at: null,
      checkout_cooldown_seconds: COOLDOWN_S,
      usage: { folders: 1, subnets: 1, addresses: 1 },
      limits: { folders: 5, subnets: 100, addresses: 1500 },
    });
    const pro = await planOf(await t.server.newOrg({ plan: 'pro' }));
    expect(pro.limits).toEqual({ folders: null, subnets: null, addresses: 5000 });
  });

  it('gives when checkout becomes possible while the organisation is younger than the cooldown', async () => {
    const org = await freeOrg();
    clockOffsetMs = 0;
    try {
      const plan = await planOf(org);
      const at = Date.parse(plan.checkout_available_at ?? '');
      expect(at - Date.now()).toBeGreaterThan((COOLDOWN_S - 30) * 1000);
      expect(at - Date.now()).toBeLessThanOrEqual(COOLDOWN_S * 1000);
    } finally {
      clockOffsetMs = COOLDOWN_S * 1000 + 60_000;
    }
  });
});

describe('POST /billing/checkout', () => {
  it('answers a Stripe Checkout page for pro, its customer made with the organisation in metadata', async () => {
    const org = await freeOrg();
    const { url } = expectStatus(await checkout(org), 200);
    expect(url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);
    const session = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1);
    expect(session?.body).toMatchObject({
      mode: 'subscription',
      client_reference_id: org.orgId,
      line_items: { 0: { price: stripe.prices.pro, quantity: '1' } },
      metadata: { org_id: org.orgId, plan: 'pro' },
      success_url: 'http://app.test/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}',
      cancel_url: 'http://app.test/billing?checkout=cancelled',
    });
    const customer = stripe.customers.get(String(session?.body.customer));
    expect(customer?.metadata).toEqual({ org_id: org.orgId });
    expect((await planOf(org)).has_billing).toBe(true);
  });

  it('sells teams when asked, and makes the customer once for every checkout', async () => {
    const org = await freeOrg();
    expectStatus(await checkout(org, { plan: 'teams' }), 200);
    expectStatus(await checkout(org, {}), 200);
    const sessions = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').slice(-2);
    expect(sessions.map((r) => (r.body.line_items as Record<string, { price: string }>)['0']?.price)).toEqual([
      stripe.prices.teams,
      stripe.prices.pro,
    ]);
    expect(sessions[0]?.body.customer).toBe(defined(sessions[1], 'the second session').body.customer);
    const made = stripe.requests.filter(
      (r) => r.path === '/v1/customers' && (r.body.metadata as Record<string, string>)?.org_id === org.orgId,
    );
    expect(made).toHaveLength(1);
    expect(made[0]?.idempotencyKey).toBe(`customer-of-${org.orgId}`);
  });

  it('answers 400 to an organisation already on a paid plan', async () => {
    const error = expectStatus(await checkout(await t.server.newOrg({ plan: 'pro' })), 400);
    expect(error.error).toMatch(/already on the paid pro plan/);
  });

  it('answers 403 checkout_cooldown with Retry-After while the organisation is younger than the cooldown', async () => {
    const org = await freeOrg();
    clockOffsetMs = 100_000;
    try {
      const response = await checkout(org);
      const error = expectStatus(response, 403);
      expect(error).toMatchObject({ code: 'checkout_cooldown', retry_after_seconds: expect.any(Number) });
      if (!('retry_after_seconds' in error)) throw new Error('not a cooldown error');
      expect(error.retry_after_seconds).toBeGreaterThan(COOLDOWN_S - 100 - 30);
      expect(error.retry_after_seconds).toBeLessThanOrEqual(COOLDOWN_S - 100 + 1);
      expect(response.headers.get('retry-after')).toBe(String(error.retry_after_seconds));
      expect(Date.parse(error.available_at)).toBeGreaterThan(Date.now());
      // Nothing else is held back during the wait.
      expectStatus(await org.web.call('createFolder', { body: { name: 'DC' } }), 201);
    } finally {
      clockOffsetMs = COOLDOWN_S * 1000 + 60_000;
    }
  });

  it('opens checkout at the cooldown exactly: a second before, 403; from then on, a page', async () => {
    const org = await freeOrg();
    const createdAt = await createdAtOf(org);
    try {
      clockOffsetMs = createdAt + (COOLDOWN_S - 1) * 1000 - Date.now();
      const early = expectStatus(await checkout(org), 403);
      expect(early).toMatchObject({ code: 'checkout_cooldown', retry_after_seconds: 1 });
      clockOffsetMs = createdAt + COOLDOWN_S * 1000 - Date.now();
      expectStatus(await checkout(org), 200);
    } finally {
      clockOffsetMs = COOLDOWN_S * 1000 + 60_000;
    }
  });

  it('says in the cooldown refusal when checkout opens, how long from now, and the cooldown after creation', async () => {
    const org = await freeOrg();
    const createdAt = await createdAtOf(org);
    try {
      clockOffsetMs = createdAt + 589_000 - Date.now();
      const error = expectStatus(await checkout(org), 403);
      if (!('available_at' in error)) throw new Error('not a cooldown error');
      expect(Date.parse(error.available_at) - createdAt).toBeGreaterThanOrEqual(COOLDOWN_S * 1000 - 1);
      expect(Date.parse(error.available_at) - createdAt).toBeLessThanOrEqual(COOLDOWN_S * 1000);
      expect(error.error).toBe(
        `Checkout is available from ${error.available_at} (in 11 s), 600 s after the organisation was created`,
      );
    } finally {
      clockOffsetMs = COOLDOWN_S * 1000 + 60_000;
    }
  });

  it('answers 503 when Stripe cannot be reached, and 403 to an editor or a viewer', async () => {
    const org = await freeOrg();
    stripe.failWith = 500;
    try {
      expect(expectStatus(await checkout(org), 503).code).toBe('billing_unavailable');
    } finally {
      stripe.failWith = null;
    }
    for (const role of ['editor', 'viewer'] as const) {
      const member = await org.member(role);
      expectStatus(await member.web.call('createCheckoutSession', { body: {} }), 403);
    }
  });
});

describe('POST /billing/portal', () => {
  it('answers the portal of the organisation’s customer, and 400 before it has one', async () => {
    const org = await freeOrg();
    expect(expectStatus(await org.web.call('createPortalSession'), 400).error).toMatch(/no billing account/);
    expectStatus(await checkout(org), 200);
    const { url } = expectStatus(await org.web.call('createPortalSession'), 200);
    expect(url).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_/);
    expect(stripe.requests.at(-1)?.body.return_url).toBe('http://app.test/billing');
  });
});

describe('PATCH /billing/org-name', () => {
  it('renames the organisation, trimmed, and logs it', async () => {
    const org = await freeOrg();
    const renamed = expectStatus(
      await org.web.call('updateOrganizationName', { body: { name: '  Acme Networks  ' } }),
      200,
    );
    expect(renamed).toMatchObject({ id: org.orgId, name: 'Acme Networks', plan: 'free' });
    expect((await planOf(org)).org_name).toBe('Acme Networks');
    const log = expectStatus(await org.web.call('listActivity', { query: { resource_type: 'organization' } }), 200);
    expect(log.entries[0]).toMatchObject({
      action: 'update',
      changes: { name: [expect.any(String), 'Acme Networks'] },
    });
  });

  it('accepts 100 characters and refuses 101, an empty name, and editors', async () => {
    const org = await freeOrg();
    expectStatus(await org.web.call('updateOrganizationName', { body: { name: 'n'.repeat(100) } }), 200);
    const long = expectStatus(await org.web.call('updateOrganizationName', { body: { name: 'n'.repeat(101) } }), 400);
    expect(long.error).toMatch(/name/);
    expectStatus(await org.web.call('updateOrganizationName', { body: { name: '   ' } }), 400);
    const editor = await org.member('editor');
    expectStatus(await editor.web.call('updateOrganizationName', { body: { name: 'x' } }), 403);
  });
});

describe('Stripe events', () => {
  const planInDb = async (org: TestOrg) =>
    defined(
      rowsOf<{ plan: string }>(
        await t.server.database.db.execute(sql`SELECT plan FROM organizations WHERE id = ${org.orgId}`),
      )[0],
      'the organisation',
    ).plan;

  it('moves the plan on a completed checkout, logs it, and the next request sees it', async () => {
    const org = await freeOrg();
    // A free plan's key may not write.
    expectStatus(await org.api.call('createFolder', { body: { name: 'before' } }), 403);
    expect(expectStatus(await deliver(completed(org, 'pro')), 200)).toEqual({ received: true });
    expect(await planInDb(org)).toBe('pro');
    expectStatus(await org.api.call('createFolder', { body: { name: 'after' } }), 201);
    const log = expectStatus(await org.web.call('listActivity', { query: { resource_type: 'organization' } }), 200);
    expect(log.entries[0]).toMatchObject({ action: 'update', user_id: null, changes: { plan: ['free', 'pro'] } });
    expect((await planOf(org)).has_billing).toBe(true);
  });

  it('changes nothing when an event is delivered again', async () => {
    const org = await freeOrg();
    const once = completed(org, 'teams');
    expectStatus(await deliver(once), 200);
    await t.server.database.db.execute(sql`UPDATE organizations SET plan = 'free' WHERE id = ${org.orgId}`);
    expectStatus(await deliver(once), 200);
    expect(await planInDb(org)).toBe('free');
  });

  it('follows subscription updates by price, and returns a cancelled one to free, keeping its data', async () => {
    const org = await freeOrg();
    const now = Math.floor(Date.now() / 1000);
    expectStatus(
      await deliver(event('customer.subscription.updated', subscription(org, 'active', stripe.prices.teams), now)),
      200,
    );
    expect(await planInDb(org)).toBe('teams');
    for (let i = 0; i < 6; i++) expectStatus(await org.api.call('createFolder', { body: { name: `f${i}` } }), 201);
    expectStatus(
      await deliver(
        event('customer.subscription.deleted', subscription(org, 'canceled', stripe.prices.teams), now + 1),
      ),
      200,
    );
    expect(await planInDb(org)).toBe('free');
    expect((await planOf(org)).usage.folders).toBe(6);
    expect(expectStatus(await org.web.call('createFolder', { body: { name: 'seventh' } }), 402).code).toBe(
      'plan_limit',
    );
  });

  it('ignores an event older than the last one applied (Stripe does not promise order)', async () => {
    const org = await freeOrg();
    const now = Math.floor(Date.now() / 1000);
    expectStatus(
      await deliver(event('customer.subscription.deleted', subscription(org, 'canceled', stripe.prices.pro), now)),
      200,
    );
    expectStatus(
      await deliver(event('customer.subscription.updated', subscription(org, 'active', stripe.prices.pro), now - 60)),
      200,
    );
    expect(await planInDb(org)).toBe('free');
  });

  it('acknowledges event types it does not act on', async () => {
    expect(expectStatus(await deliver(event('invoice.paid', { id: 'in_1', object: 'invoice' })), 200)).toEqual({
      received: true,
    });
  });

  it('answers 400 to a wrong signature and touches nothing', async () => {
    const org = await freeOrg();
    const forged = await deliver(completed(org, 'pro'), 'whsec_not_the_secret');
    expect(expectStatus(forged, 400).error).toMatch(/stripe-signature/);
    expect(await planInDb(org)).toBe('free');
    const unsigned = await t.server.anonymous.call('receiveStripeEvent', {
      rawBody: JSON.stringify(completed(org, 'pro')),
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
    });
    expectStatus(unsigned, 400);
    expect(await planInDb(org)).toBe('free');
  });
});

describe('billing without Stripe configured', () => {
  const bare = useTestServer({}, false);

  it('answers 503 billing_unavailable where Stripe is needed, and still answers the plan', async () => {
    const org = await bare.server.newOrg({ plan: 'free' });
    expectStatus(await org.web.call('getBillingPlan'), 200);
    expect(expectStatus(await org.web.call('createCheckoutSession', { body: {} }), 503).code).toBe(
      'billing_unavailable',
    );
    expect(expectStatus(await org.web.call('createPortalSession'), 503).code).toBe('billing_unavailable');
    const webhook = await bare.server.anonymous.call('receiveStripeEvent', {
      rawBody: JSON.stringify({ id: 'evt_1', type: 'invoice.paid', data: { object: {} } }),
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' },
    });
    expect(expectStatus(webhook, 503).code).toBe('billing_unavailable');
  });
});

describe('402 plan_limit messages', () => {
  /** The refusal of one folder more than the `limit` the organisation has made. */
  const refusal = async (org: TestOrg, limit: number) => {
    for (let i = 0; i < limit; i++) expectStatus(await org.web.call('createFolder', { body: { name: `f${i}` } }), 201);
    return expectStatus(await org.web.call('createFolder', { body: { name: 'one more' } }), 402).error;
  };

  it('tells a plan’s organisation which plan lifts the limit', async () => {
    expect(await refusal(await freeOrg(), 5)).toBe(
      'Plan limit reached: 5 folders (you have 5). Upgrade to the pro plan (unlimited folders) to add more.',
    );
  });

  it('names the first plan that holds what is asked for, past the next one', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    await org.member('viewer'); // pro: 2 users, the admin and this member; teams holds 10
    const invite = () =>
      org.web.call('createTeamInvitation', { body: { email: `x-${Math.random()}@example.test`, role: 'viewer' } });
    expect(expectStatus(await invite(), 402).error).toBe(
      'Plan limit reached: 2 users (you have 2). Upgrade to the teams plan (10 users) to add more.',
    );
  });

  it.each(['enterprise', 'pro'] as const)(
    'tells an organisation on %s with a custom limit to contact support, not to upgrade',
    async (plan) => {
      const org = await t.server.newOrg({ plan, limits: { folders: 2 } });
      expect(await refusal(org, 2)).toBe(
        "Plan limit reached: 2 folders (you have 2). This is the organisation's custom limit: contact support to raise it.",
      );
    },
  );
});
