import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import {
  type Billing,
  CheckoutCooldown,
  getPlan,
  openPortal,
  receiveEvent,
  renameOrganization,
  startCheckout,
} from './billing.service';

const s = initServer();

export const billingRouter = (context: ServerContext) => {
  const billing: Billing = {
    db: context.db,
    config: { billing: context.config.billing, appUrl: context.config.appUrl },
    now: context.now,
  };
  return s.router(contract.billing, {
    getBillingPlan: async ({ req }) => ({ status: 200, body: await getPlan(billing, principalOf(req)) }),
    createCheckoutSession: async ({ req, res, body }) => {
      try {
        return { status: 200, body: await startCheckout(billing, principalOf(req), body?.plan ?? 'pro') };
      } catch (error) {
        if (!(error instanceof CheckoutCooldown)) throw error;
        res.set('Retry-After', String(error.retryAfterSeconds));
        return {
          status: 403,
          body: {
            error: error.message,
            code: 'checkout_cooldown' as const,
            retry_after_seconds: error.retryAfterSeconds,
            available_at: error.availableAt.toISOString(),
          },
        };
      }
    },
    createPortalSession: async ({ req }) => ({ status: 200, body: await openPortal(billing, principalOf(req)) }),
    updateOrganizationName: async ({ req, body }) => ({
      status: 200,
      body: await renameOrganization(billing, principalOf(req), body.name),
    }),
    receiveStripeEvent: async ({ req, headers }) => ({
      status: 200,
      body: await receiveEvent(billing, req.rawBody, headers['stripe-signature']),
    }),
  });
};
