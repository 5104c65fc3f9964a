/**
 * The Stripe client of a configuration: null when billing is not configured (the routes then answer 503).
 * The stripe package (18 MB resident, 0.3 s to load) is loaded by the first billing call that needs it, not
 * at start: most processes never make one.
 */
import type Stripe from 'stripe';
import type { BillingConfig } from '../../config';

let stripeModule: Promise<typeof Stripe> | undefined;
/** The Stripe class once loaded: no StripeError can exist before. */
let loaded: typeof Stripe | undefined;
const loadStripe = () =>
  (stripeModule ??= import('stripe').then(({ default: StripeClass }) => {
    loaded = StripeClass;
    return StripeClass;
  }));

const clients = new WeakMap<BillingConfig, Stripe>();

export async function stripeOf(config: BillingConfig): Promise<Stripe | null> {
  if (!config.stripeSecretKey) return null;
  const StripeClass = await loadStripe();
  let client = clients.get(config);
  if (!client) {
    const base = config.stripeApiBase ? new URL(config.stripeApiBase) : null;
    client = new StripeClass(config.stripeSecretKey, {
      ...(base
        ? { host: base.hostname, port: base.port || undefined, protocol: base.protocol === 'http:' ? 'http' : 'https' }
        : {}),
      maxNetworkRetries: 2,
      timeout: 15_000,
      telemetry: false,
    });
    clients.set(config, client);
  }
  return client;
}

/** The event a webhook delivers, after its signature over the raw body is checked (rejects when it is wrong). */
export const verifiedEvent = async (rawBody: Buffer, signature: string, secret: string): Promise<Stripe.Event> =>
  (await loadStripe()).webhooks.constructEvent(rawBody, signature, secret);

export const isStripeError = (error: unknown): error is Stripe.errors.StripeError =>
  loaded !== undefined && error instanceof loaded.errors.StripeError;
