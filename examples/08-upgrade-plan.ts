/**
 * 08 — Upgrade the plan. Read the plan with its usage and limits; when the organisation is on free, start
 * a Stripe Checkout for pro and print the page to open in a browser (the plan changes when Stripe tells
 * the service the payment went through); on a paid plan, open the billing portal instead. Checkout opens
 * a few minutes after the organisation is made (`checkout_available_at`); billing answers 503
 * `billing_unavailable` on a server without Stripe configured.
 *
 * An API key of a free organisation may only read (the specification's API access rule), so on free the
 * checkout is made as the signed-in admin: with the session cookie of `npm run admin -- create-session`.
 *
 *   IPAM_SESSION=… npx tsx examples/08-upgrade-plan.ts     # or IPAM_API_KEY=svc_… on a paid plan
 */
import { ApiError, createClient, PermissionDeniedError, ServiceUnavailableError } from '../clients/typescript/src';

const apiKey = process.env.IPAM_API_KEY;
const session = process.env.IPAM_SESSION;
if (!apiKey && !session) throw new Error('Set IPAM_SESSION (create-session) or IPAM_API_KEY (create-key)');
const baseUrl = process.env.IPAM_BASE_URL ?? 'http://localhost:3000';
// A session writes with the CSRF header; the client sends both with every request.
const ipam = session
  ? createClient({ baseUrl, headers: { cookie: `service_session=${session}`, 'x-requested-with': 'XMLHttpRequest' } })
  : createClient({ baseUrl, apiKey });

// 1. Where the organisation stands: its plan, what it holds, and the plan's limits (null: unlimited).
const plan = await ipam.billing.plan();
console.log(`${plan.org_name} is on ${plan.plan}`);
for (const what of ['folders', 'subnets', 'addresses'] as const) {
  const limit = plan.limits[what];
  console.log(`  ${what}: ${plan.usage[what]} of ${limit === null ? 'unlimited' : limit}`);
}

// 2. Free: buy pro through a Checkout page. Paid: manage the subscription in the billing portal.
try {
  if (plan.plan === 'free') {
    if (plan.checkout_available_at) console.log(`checkout opens at ${plan.checkout_available_at}`);
    const { url } = await ipam.billing.checkout({ plan: 'pro' });
    console.log(`open ${url} to pay; the plan becomes pro once Stripe confirms it`);
  } else if (plan.has_billing) {
    const { url } = await ipam.billing.portal();
    console.log(`open ${url} to manage the subscription`);
  } else {
    console.log('this plan is not billed through Stripe (set by the operator): nothing to manage');
  }
} catch (error) {
  // A checkout during the cooldown is a 403 whose body says when; billing off on this server is a 503.
  if (error instanceof PermissionDeniedError && error.code === 'checkout_cooldown') {
    console.log(`too early: ${error.message}`);
  } else if (error instanceof ServiceUnavailableError) {
    console.log(`billing is not available on this server: ${error.message}`);
  } else if (error instanceof ApiError) {
    console.log(`billing refused: ${error.status} ${error.code} — ${error.message}`);
  } else {
    throw error;
  }
}
