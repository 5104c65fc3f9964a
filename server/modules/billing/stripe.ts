/** The Stripe client of a configuration: null when billing is not configured (the routes then answer 503). */
import Stripe from 'stripe';
import type { BillingConfig } from '../../config';

const clients = new WeakMap<BillingConfig, Stripe>();

export function stripeOf(config: BillingConfig): Stripe | null {
  if (!config.stripeSecretKey) return null;
  let client = clients.get(config);
  if (!client) {
    const base = config.stripeApiBase ? new URL(config.stripeApiBase) : null;
    client = new Stripe(config.stripeSecretKey, {
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

/** The event a webhook delivers, after its signature over the raw body is checked (throws when it is wrong). */
export const verifiedEvent = (rawBody: Buffer, signature: string, secret: string): Stripe.Event =>
  Stripe.webhooks.constructEvent(rawBody, signature, secret);

export const isStripeError = (error: unknown): error is Stripe.errors.StripeError =>
  error instanceof Stripe.errors.StripeError;
