import { Plan } from '../../../contract/common/enums';
import { HttpError } from '../../errors';
import type { Principal } from '../../principal';

export type { Plan } from '../../../contract/common/enums';
export const PLANS = Plan.options;

/** Every limit a plan sets (and an enterprise organisation may override). */
export const LIMIT_NAMES = [
  'users',
  'folders',
  'subnets',
  'addresses',
  'vlans',
  'vrfs',
  'locations',
  'tags',
  'api_keys',
  'webhooks',
  'rate_limit',
  'activity_retention_days',
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];

export type Limits = Record<LimitName, number | null>;

const unlimited = { folders: null, subnets: null, vlans: null, vrfs: null, locations: null, tags: null } as const;

export const PLAN_LIMITS: Record<Plan, Limits> = {
  free: {
    users: 1,
    folders: 5,
    subnets: 100,
    addresses: 1500,
    vlans: 10,
    vrfs: 5,
    locations: 5,
    tags: 20,
    api_keys: 5,
    webhooks: 2,
    rate_limit: 600,
    activity_retention_days: 7,
  },
  pro: {
    ...unlimited,
    users: 2,
    addresses: 5000,
    api_keys: 100,
    webhooks: 10,
    rate_limit: 3000,
    activity_retention_days: 30,
  },
  teams: {
    ...unlimited,
    users: 10,
    addresses: 10000,
    api_keys: 100,
    webhooks: 25,
    rate_limit: 3000,
    activity_retention_days: 90,
  },
  enterprise: {
    ...unlimited,
    users: null,
    addresses: null,
    api_keys: null,
    webhooks: null,
    rate_limit: 3000,
    // "custom" for enterprise: 90 days unless the operator overrides it (`set-limits`; docs/decisions.md, Activity).
    activity_retention_days: 90,
  },
};

/** Plans whose API keys may write (the free plan's API access is read-only). */
export const apiWriteAllowed = (plan: Plan) => plan !== 'free';

export function effectiveLimits(plan: Plan, overrides: Partial<Record<string, number | null>>): Limits {
  const limits = { ...PLAN_LIMITS[plan] };
  for (const name of LIMIT_NAMES) {
    if (name in overrides) limits[name] = overrides[name] ?? null;
  }
  return limits;
}

const limitLabels: Record<LimitName, string> = {
  users: 'users',
  folders: 'folders',
  subnets: 'subnets',
  addresses: 'IP addresses',
  vlans: 'VLANs',
  vrfs: 'VRFs',
  locations: 'locations',
  tags: 'tags',
  api_keys: 'API keys',
  webhooks: 'webhooks',
  rate_limit: 'requests per minute',
  activity_retention_days: 'days of activity history',
};

/** An organisation's plan and the operator's overrides of its limits (`set-limits`). */
export type LimitedOrganization = { plan: Plan; limitOverrides: Partial<Record<string, number | null>> };

/** 402 when adding `adding` items to `current` would pass the organisation's limit of `name`. */
export function assertWithinLimit(org: LimitedOrganization, name: LimitName, current: number, adding = 1): void {
  const limit = effectiveLimits(org.plan, org.limitOverrides)[name];
  if (limit === null || current + adding <= limit) return;
  // No plan raises an enterprise organisation's limits or an override: only the operator does.
  const custom = org.plan === 'enterprise' || name in org.limitOverrides;
  throw new HttpError(
    402,
    'plan_limit',
    `Plan limit reached: ${limit} ${limitLabels[name]} (you have ${current}). ` +
      (custom
        ? "This is the organisation's custom limit: contact support to raise it."
        : upgradeAdvice(org.plan, name, current + adding)),
  );
}

/** The first plan above `plan` that holds `needed` of `name`, as advice to upgrade to it. */
function upgradeAdvice(plan: Plan, name: LimitName, needed: number): string {
  const higher = PLANS.slice(PLANS.indexOf(plan) + 1);
  const lifting = higher.find((p) => PLAN_LIMITS[p][name] === null || (PLAN_LIMITS[p][name] ?? 0) >= needed);
  if (!lifting || lifting === 'enterprise') return 'Upgrade the plan to add more (enterprise: contact sales).';
  const figure = PLAN_LIMITS[lifting][name];
  return `Upgrade to the ${lifting} plan (${figure === null ? 'unlimited' : figure} ${limitLabels[name]}) to add more.`;
}

/** The per-minute request limit of a caller: the plan's, or the organisation's override; null is unlimited. */
export const userRateLimit = (caller: Pick<Principal, 'plan' | 'limitOverrides'>) =>
  effectiveLimits(caller.plan, caller.limitOverrides ?? {}).rate_limit;
