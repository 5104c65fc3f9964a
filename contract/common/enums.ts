/** The enumerations the contract, the server and the database share: one definition each. */
import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

export const Role = extendApi(z.enum(['admin', 'editor', 'viewer']), {
  title: 'Role',
  description:
    'Role of a user in the organisation. viewer: read IPAM data, search, export, activity, plan, members, own keys; ' +
    'editor: viewer plus changes to IPAM data, imports and own API keys; admin: everything, including team, webhooks and billing',
  example: 'editor',
});
export type Role = z.infer<typeof Role>;

export const Plan = extendApi(z.enum(['free', 'pro', 'teams', 'enterprise']), {
  title: 'OrganizationPlan',
  description: 'Subscription plan of the organisation; a new organisation starts on free',
  example: 'pro',
});
export type Plan = z.infer<typeof Plan>;
