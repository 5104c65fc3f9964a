/**
 * The plan and billing page against a server on loopback that speaks Stripe's wire format
 * (test/fixtures/stripe.ts): usage bars, the plans to choose from, upgrading through Checkout and landing back
 * on the new plan once Stripe's signed event arrives, the portal, the cooldown refusal, renaming the
 * organisation, and billing without Stripe configured.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiWriteAllowed, PLAN_LIMITS } from '../../server/modules/plans/limits';
import { type FakeStripe, startFakeStripe } from '../fixtures/stripe';
import { expectStatus } from '../support/observed';
import { browserMissing, expectAccessible, screenshot } from './support/browser';
import { type ConsoleFixture, orgIdOf, useConsole } from './support/console';

/** A console whose server sells plans through the fake Stripe, with the checkout cooldown given. */
function useBillingConsole(checkoutCooldownSeconds: number): { t: ConsoleFixture; stripe: () => FakeStripe } {
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await startFakeStripe();
  });
  afterAll(() => stripe?.close());
  const t = useConsole(() => ({
    config: {
      billing: {
        stripeSecretKey: stripe.secretKey,
        stripeWebhookSecret: stripe.webhookSecret,
        prices: stripe.prices,
        stripeApiBase: stripe.url,
        checkoutCooldownSeconds,
      },
    },
  }));
  return { t, stripe: () => stripe };
}

async function openBilling(page: Page, query = '') {
  await page.goto(`/billing${query}`);
  await page.getByRole('heading', { name: /^Usage on the / }).waitFor();
}

/** Where the browser was sent when `click` ran, the page there answered by the test (Stripe's own is not on loopback). */
async function sentTo(page: Page, host: string, click: () => Promise<void>): Promise<string> {
  await page.route(`https://${host}/**`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Stripe</title>' }),
  );
  await Promise.all([page.waitForURL(`https://${host}/**`), click()]);
  return page.url();
}

describe.skipIf(browserMissing)(`plan and billing${browserMissing}`, () => {
  const { t, stripe } = useBillingConsole(0);

  it('shows the plan with usage against each limit as bars, and no serious accessibility violation', async () => {
    const page = await t.newPage();
    await t.signIn(page);
    await openBilling(page);
    expect(await page.getByRole('heading', { name: 'Usage on the Free plan' }).isVisible()).toBe(true);
    expect(await page.getByRole('meter', { name: 'Subnets' }).getAttribute('max')).toBe('100');
    expect(await page.getByText('0 of 1,500').isVisible()).toBe(true);
    await expectAccessible(page);
  });

  it('lists what each plan holds as the server’s plan limits say', async () => {
    const page = await t.newPage();
    await t.signIn(page);
    await openBilling(page);
    const rows = await page
      .getByRole('table')
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent ?? '')));
    const shown = Object.fromEntries(rows.map(([label, ...figures]) => [label, figures.map(figureOf)]));
    const limits = (name: keyof (typeof PLAN_LIMITS)['free']) =>
      (['free', 'pro', 'teams'] as const).map((plan) => PLAN_LIMITS[plan][name]);
    expect(shown).toMatchObject({
      Users: limits('users'),
      Folders: limits('folders'),
      Subnets: limits('subnets'),
      'IP addresses': limits('addresses'),
      VLANs: limits('vlans'),
      VRFs: limits('vrfs'),
      Locations: limits('locations'),
      'API keys': limits('api_keys'),
      Webhooks: limits('webhooks'),
      'Requests per minute, per user': limits('rate_limit'),
      'Days of activity history': limits('activity_retention_days'),
      'API keys may write': (['free', 'pro', 'teams'] as const).map((plan) =>
        apiWriteAllowed(plan) ? 'yes' : 'no (read-only)',
      ),
    });
  });

  it('sends the browser to Stripe Checkout for the plan chosen', async () => {
    const page = await t.newPage();
    await t.signIn(page);
    await openBilling(page);
    const url = await sentTo(page, 'checkout.stripe.test', () =>
      page.getByRole('button', { name: 'Upgrade to Teams' }).click(),
    );
    expect({ url, session: lastCheckout(stripe()) }).toMatchObject({
      url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/),
      session: { line_items: { 0: { price: stripe().prices.teams } } },
    });
  });

  it('lands back from a paid checkout and shows the new plan once Stripe’s signed event arrives', async () => {
    const page = await t.newPage();
    const email = await t.signIn(page);
    await openBilling(page);
    const url = await sentTo(page, 'checkout.stripe.test', () =>
      page.getByRole('button', { name: 'Upgrade to Pro' }).click(),
    );
    const session = lastCheckout(stripe());
    const sessionId = url.split('/').at(-1) ?? '';
    // Stripe sends the browser to the success URL the server gave it.
    await page.goto(String(session.success_url).replace('{CHECKOUT_SESSION_ID}', sessionId));
    await page.getByText('Your plan changes as soon as Stripe confirms the payment').waitFor();
    await expectAccessible(page);
    const orgId = await orgIdOf(t.server, email);
    const { body, signature } = stripe().signed({
      id: `evt_${sessionId}`,
      type: 'checkout.session.completed',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id: sessionId,
          object: 'checkout.session',
          mode: 'subscription',
          client_reference_id: orgId,
          customer: session.customer,
          subscription: `sub_${orgId.slice(0, 8)}`,
          metadata: { org_id: orgId, plan: 'pro' },
        },
      },
    });
    const delivered = await t.server.anonymous.call('receiveStripeEvent', {
      rawBody: body,
      headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    });
    expectStatus(delivered, 200);
    await page.getByRole('status').filter({ hasText: 'you are on the Pro plan' }).waitFor({ timeout: 25_000 });
    expect(await page.getByRole('heading', { name: 'Usage on the Pro plan' }).isVisible()).toBe(true);
    await expectAccessible(page);
  });

  it('opens the billing portal once the organisation has a billing account', async () => {
    const page = await t.newPage();
    await t.signIn(page);
    await openBilling(page);
    expect(await page.getByRole('button', { name: 'Open the billing portal' }).count()).toBe(0);
    // A checkout makes the organisation's Stripe customer.
    await sentTo(page, 'checkout.stripe.test', () => page.getByRole('button', { name: 'Upgrade to Pro' }).click());
    await openBilling(page);
    const url = await sentTo(page, 'billing.stripe.test', () =>
      page.getByRole('button', { name: 'Open the billing portal' }).click(),
    );
    expect(url).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_/);
  });

  it('says nothing was charged when checkout was cancelled', async () => {
    const page = await t.newPage();
    await t.signIn(page);
    await openBilling(page, '?checkout=cancelled');
    await page.getByRole('status').filter({ hasText: 'Nothing was charged' }).waitFor();
    await expectAccessible(page);
  });

  it('renames the organisation, and puts the API’s refusal of 101 characters next to the field', async () => {
    const page = await t.newPage();
    await t.signIn(page);
    await openBilling(page);
    const field = page.getByLabel('Organisation name');
    await field.fill('n'.repeat(101));
    await page.getByRole('button', { name: 'Rename organisation' }).click();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    const errorId = errorIdOf(await field.getAttribute('aria-describedby'));
    const message = await page.locator(`[id="${errorId}"]`).textContent();
    expect(message).toMatch(/100/);
    await expectAccessible(page);
    await field.fill('n'.repeat(100));
    await page.getByRole('button', { name: 'Rename organisation' }).click();
    await page.getByRole('status').filter({ hasText: 'Renamed to' }).waitFor();
    expect(await page.getByRole('banner').getByText('n'.repeat(100)).isVisible()).toBe(true);
  });

  it('has a screenshot of the plan with its usage bars', async () => {
    const page = await t.newPage();
    await t.signIn(page);
    const post = (path: string, data: unknown) =>
      page.request.post(`/api/v1/${path}`, { data, headers: { 'x-requested-with': 'XMLHttpRequest' } });
    for (const name of ['Core', 'Branches', 'Lab']) await post('folders', { name });
    for (const network of ['10.0.0.0/16', '10.1.0.0/24', '10.2.0.0/24', '192.168.0.0/24']) {
      await post('subnets', { network, name: `Net ${network}` });
    }
    await openBilling(page);
    await page.getByText('3 of 5').waitFor();
    await screenshot(page, 'billing');
  });
});

describe.skipIf(browserMissing)(`checkout during the cooldown${browserMissing}`, () => {
  const { t } = useBillingConsole(600);

  it('explains the cooldown, and shows the refusal with its time as the API gave it', async () => {
    const page = await t.newPage();
    await t.signIn(page);
    await openBilling(page);
    await page.getByText('Checkout opens 10 min after an organisation is created').waitFor();
    const answer = page.waitForResponse((response) => response.url().endsWith('/api/v1/billing/checkout'));
    await page.getByRole('button', { name: 'Upgrade to Pro' }).click();
    const refusal = await (await answer).json();
    expect(refusal).toMatchObject({ code: 'checkout_cooldown' });
    const clock = await page.evaluate(
      (at) => new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }),
      refusal.available_at,
    );
    const alert = page.getByRole('alert').filter({ hasText: 'Checkout is not open yet' });
    expect(await alert.textContent()).toContain(`available from ${clock} (in 10 min)`);
    await expectAccessible(page);
  });
});

describe.skipIf(browserMissing)(`billing without Stripe configured${browserMissing}`, () => {
  const t = useConsole();

  it('shows the API’s 503 billing_unavailable where the upgrade was asked', async () => {
    const page = await t.newPage();
    await t.signIn(page);
    await openBilling(page);
    await page.getByRole('button', { name: 'Upgrade to Pro' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Unavailable for now' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Billing is not configured on this server');
    await expectAccessible(page);
  });
});

/** The body of the last Checkout session the server asked Stripe for. */
function lastCheckout(stripe: FakeStripe): Record<string, unknown> {
  const request = stripe.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1);
  if (!request) throw new Error('no checkout session was asked for');
  return request.body;
}

/** A figure of the plans table: a number, or null for unlimited. */
function figureOf(text: string): number | null | string {
  if (text === 'unlimited') return null;
  return /^[\d,]+$/.test(text) ? Number(text.replace(/,/g, '')) : text;
}

/** The id of the error paragraph among a field's `aria-describedby` ids. */
function errorIdOf(describedBy: string | null): string {
  return (describedBy ?? '').split(' ').find((id) => id.endsWith('-error')) ?? '';
}
