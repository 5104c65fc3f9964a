/**
 * The audit of limits: every limit of the specification (its "Limits" section and the limits it states
 * elsewhere), with the figures the design fixes where the specification leaves them open, and the tests that
 * check each at its boundary (the limit passes, one more fails with the documented status: 402 naming the
 * limit, 400 for list and batch sizes, 429 with Retry-After for rate limits, 413 for body sizes).
 *
 * The table is checked, so it cannot drift: (a) every test it names exists in its file with that exact title
 * (an `it.each` by its title template, and the case named by a snippet of its table); (b) its figures are the
 * ones the server and the contract use (their constants, or their schemas probed at the boundary); (c) no
 * limit is left without a test.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ZodTypeAny } from 'zod';
import { ACTIVITY_EXPORT_MAX_ROWS } from '../../contract/activity.contract';
import { ALLOCATE_MAX_ADDRESSES } from '../../contract/addresses.contract';
import { IDEMPOTENCY_KEY_TTL_HOURS, IdempotencyHeaders } from '../../contract/common/idempotency';
import {
  CUSTOM_FIELDS_MAX_BYTES,
  CUSTOM_FIELDS_MAX_DEPTH,
  CUSTOM_FIELDS_MAX_KEYS,
  CustomFields,
} from '../../contract/common/schemas';
import { IMPORT_MAX_ROWS, ImportSubnetRow } from '../../contract/import-export.contract';
import { RANGES_PER_SUBNET_MAX } from '../../contract/ranges.contract';
import type { OperationId } from '../../contract/routes';
import { SEARCH_MAX_RESULTS } from '../../contract/search.contract';
import { ALLOCATE_MAX_SUBNETS } from '../../contract/subnets.schemas';
import { TAG_NAME_MAX, TAGS_PER_RESOURCE_MAX } from '../../contract/tags.contract';
import { DEFAULT_CHECKOUT_COOLDOWN_SECONDS } from '../../server/config';
import { IP_LIMITS, RATE_LIMIT_WINDOW_MS } from '../../server/http/rate-limit-middleware';
import { FREE_BLOCKS_CAP } from '../../server/ipam/free';
import { SPLIT_PARTS_MAX, SPLIT_PARTS_MIN } from '../../server/ipam/split';
import {
  MAGIC_LINK_TTL_MS,
  MAGIC_LINK_WINDOW_MS,
  MAGIC_LINKS_PER_WINDOW,
} from '../../server/modules/auth/magic-link.service';
import {
  apiWriteAllowed,
  effectiveLimits,
  LIMIT_NAMES,
  type LimitName,
  PLAN_LIMITS,
  PLANS,
  type Plan,
} from '../../server/modules/plans/limits';
import { INVITATIONS_PER_HOUR } from '../../server/modules/team/invitations.service';
import { SPF_LOOKUP_LIMIT } from '../../server/modules/tools/spf';
import { MAX_CONSECUTIVE_FAILURES, RETENTION_MS } from '../../server/modules/webhooks/events/worker';
import { route } from '../support/routes';

// ---------------------------------------------------------------------------------------------------------
// The table
// ---------------------------------------------------------------------------------------------------------

/** A test by file and exact title; for an `it.each`, its title template and a snippet of its table naming the case. */
interface TestRef {
  file: string;
  title: string;
  each?: string;
}

type PlanFigure = number | 'unlimited' | 'custom' | 'read-only' | 'read/write';

interface Limit {
  name: string;
  /** Where the figure is stated: the specification, or the design where the specification leaves it open. */
  where: string;
  /** The figure per plan, or the single figure (with its default, for a list size). */
  figure: Record<Plan, PlanFigure> | Record<string, number> | number;
  /** For a plan limit: the server's name of it, and its figure on the enterprise plan when no override is set. */
  plan?: { name: LimitName; enterpriseDefault: number | 'unlimited' };
  /** The same figure as the server and the contract use it; absent only where neither exports one. */
  server?: () => unknown;
  tests: TestRef[];
  note?: string;
}

const file = (name: string) => `test/api/${name}.test.ts`;
const ref = (name: string, title: string, each?: string): TestRef => ({ file: file(name), title, each });

/** The plan-table figures the server uses: PLAN_LIMITS for the fixed plans, "custom" where an override applies. */
function planFigures(name: LimitName): Record<Plan, PlanFigure> {
  const overridden = effectiveLimits('enterprise', { [name]: 7 })[name] === 7;
  return Object.fromEntries(
    PLANS.map((plan) => [
      plan,
      plan === 'enterprise' && overridden ? 'custom' : (PLAN_LIMITS[plan][name] ?? 'unlimited'),
    ]),
  ) as Record<Plan, PlanFigure>;
}

const planLimit = (name: LimitName, enterpriseDefault: number | 'unlimited') => ({
  plan: { name, enterpriseDefault },
  server: () => planFigures(name),
});

const LIMITS: Limit[] = [
  // --- The plan table (Limits: "exceeding returns 402") ----------------------------------------------------
  {
    name: 'Users (seats: members and pending invitations)',
    where: 'Limits, plan table "Users"; Endpoints › Team ("402 at the plan’s seat limit")',
    figure: { free: 1, pro: 2, teams: 10, enterprise: 'custom' },
    ...planLimit('users', 'unlimited'),
    tests: [
      ref('invitations', 'answers 402 to a free organisation’s first invitation, sending nothing'),
      ref('invitations', 'lets a pro organisation of one member invite one, and answers 402 to the second'),
      ref('invitations', 'counts a teams organisation’s members and pending invitations against 10 seats'),
      ref('invitations', 'follows an enterprise override of users'),
    ],
  },
  {
    name: 'Folders',
    where: 'Limits, plan table "Folders"',
    figure: { free: 5, pro: 'unlimited', teams: 'unlimited', enterprise: 'custom' },
    ...planLimit('folders', 'unlimited'),
    tests: [
      ref('folders', 'allows 5 folders on the free plan through a session and refuses the sixth (402)'),
      ref('folders', 'sets no folder limit on the %s plan: a sixth folder is created', "'pro'"),
      ref('folders', 'sets no folder limit on the %s plan: a sixth folder is created', "'teams'"),
      ref('folders', 'honours an enterprise override at its boundary'),
    ],
    note: '"Unlimited" is checked as one past the free figure',
  },
  {
    name: 'Subnets',
    where: 'Limits, plan table "Subnets"',
    figure: { free: 100, pro: 'unlimited', teams: 'unlimited', enterprise: 'custom' },
    ...planLimit('subnets', 'unlimited'),
    tests: [
      ref('subnets', 'allows 100 subnets on the free plan through a session and refuses the 101st (402)'),
      ref('subnets', 'sets no subnet limit on the %s plan: a 101st subnet is created', "'pro'"),
      ref('subnets', 'sets no subnet limit on the %s plan: a 101st subnet is created', "'teams'"),
      ref('subnets', 'honours an enterprise override at its boundary'),
      ref('subnet-space', 'refuses a split that would pass the subnet limit (402)'),
      ref('imports', 'reports rows past the plan limit as errors and keeps the rows before them'),
    ],
    note: 'the pro and teams tests seed the free plan’s 100 subnets in SQL',
  },
  {
    name: 'IP addresses',
    where: 'Limits, plan table "IP addresses"',
    figure: { free: 1500, pro: 5000, teams: 10_000, enterprise: 'custom' },
    ...planLimit('addresses', 'unlimited'),
    tests: [
      ref('address-batches', 'allows 1,500 addresses on the free plan through a session and refuses one more (402)'),
      ref('address-batches', 'refuses a free-plan batch that would cross 1,500 and creates nothing'),
      ref('address-batches', 'allows the %s plan %i addresses and refuses one more (402)', "['pro', 5000]"),
      ref('address-batches', 'allows the %s plan %i addresses and refuses one more (402)', "['teams', 10_000]"),
      ref('address-batches', 'honours an enterprise override at its boundary'),
      ref('address-batches', 'refuses an enterprise batch of 2 when 2 of 3 exist and creates nothing'),
    ],
    note: 'the pro and teams tests seed all but the last address in SQL and create the last one and the one too many through HTTP',
  },
  {
    name: 'VLANs',
    where: 'Limits, plan table "VLANs"',
    figure: { free: 10, pro: 'unlimited', teams: 'unlimited', enterprise: 'custom' },
    ...planLimit('vlans', 'unlimited'),
    tests: [
      ref('vlans', 'allows 10 VLANs on the free plan through a session and refuses the eleventh (402)'),
      ref('vlans', 'sets no VLAN limit on the %s plan: an eleventh VLAN is created', "'pro'"),
      ref('vlans', 'sets no VLAN limit on the %s plan: an eleventh VLAN is created', "'teams'"),
      ref('vlans', 'honours an enterprise override at its boundary'),
      ref('subnets', 'refuses to auto-create an 11th VLAN on the free plan (402)'),
    ],
  },
  {
    name: 'VRFs',
    where: 'Limits, plan table "VRFs"',
    figure: { free: 5, pro: 'unlimited', teams: 'unlimited', enterprise: 'custom' },
    ...planLimit('vrfs', 'unlimited'),
    tests: [
      ref('vrfs', 'allows 5 VRFs on the free plan through a session and refuses the sixth (402)'),
      ref('vrfs', 'sets no VRF limit on the %s plan: a sixth VRF is created', "'pro'"),
      ref('vrfs', 'sets no VRF limit on the %s plan: a sixth VRF is created', "'teams'"),
      ref('vrfs', 'honours an enterprise override at its boundary'),
      ref('subnets', 'refuses to auto-create a 6th VRF on the free plan (402)'),
    ],
  },
  {
    name: 'Locations',
    where: 'Limits, plan table "Locations"',
    figure: { free: 5, pro: 'unlimited', teams: 'unlimited', enterprise: 'custom' },
    ...planLimit('locations', 'unlimited'),
    tests: [
      ref('locations', 'allows 5 locations on the free plan through a session and refuses the sixth (402)'),
      ref('locations', 'sets no location limit on the %s plan: a sixth location is created', "'pro'"),
      ref('locations', 'sets no location limit on the %s plan: a sixth location is created', "'teams'"),
      ref('locations', 'honours an enterprise override at its boundary'),
    ],
  },
  {
    name: 'Tags',
    where:
      'issue 24 (tags "counted against a plan limit you choose and state"); docs/decisions.md › Tags fixes 20 on Free',
    figure: { free: 20, pro: 'unlimited', teams: 'unlimited', enterprise: 'custom' },
    ...planLimit('tags', 'unlimited'),
    tests: [
      ref('tags', 'holds the free plan to its tag limit: the last one passes, one more is a 402'),
      ref('tags', 'sets no tag limit on the %s plan: a 21st tag is created', "'pro'"),
      ref('tags', 'sets no tag limit on the %s plan: a 21st tag is created', "'teams'"),
      ref('tags', 'honours an enterprise override at its boundary'),
      ref('tags', 'a row whose tag would pass the plan’s tag limit is an error, and the other rows import'),
    ],
    note: '"Unlimited" is checked as one past the free figure',
  },
  {
    name: 'Tags per resource, and a tag name’s length',
    where: 'issue 24 (tags); docs/decisions.md › Tags fixes 20 tags and 50 characters',
    figure: { tags: 20, name: 50 },
    server: () => ({ tags: TAGS_PER_RESOURCE_MAX, name: TAG_NAME_MAX }),
    tests: [
      ref('tags', 'a resource carries at most 20 tags: that many pass, one more is a 400'),
      ref('tags', 'refuses a duplicate name, a comma, a bad colour, and a name past its length (400 naming the field)'),
      ref(
        'tag-filters',
        'refuses an empty tag name, a name past its length, a bad tag_match and too many names (400 naming it)',
      ),
    ],
  },
  {
    name: 'IP ranges per subnet',
    where: 'issue 24 (ranges); docs/decisions.md › IP ranges fixes 100',
    figure: 100,
    server: () => RANGES_PER_SUBNET_MAX,
    tests: [
      ref('ranges', 'a subnet holds 100 ranges; the next is a 400 naming the limit'),
      ref('ranges', 'an import stops a subnet at 100 ranges: later rows are errors, earlier ones kept'),
    ],
  },
  {
    name: 'API keys (per organisation)',
    where:
      'Limits, plan table "API keys" (5, 100, 100; the key-creation guidance’s 25 and 50 disagree); docs/decisions.md › Plans fixes 5/100/100',
    figure: { free: 5, pro: 100, teams: 100, enterprise: 'custom' },
    ...planLimit('api_keys', 'unlimited'),
    tests: [
      ref('api-keys', 'lets a free organisation hold 5 keys and refuses the 6th (402)'),
      ref('api-keys', 'lets a %s organisation hold 100 keys and refuses the 101st', "'pro'"),
      ref('api-keys', 'lets a %s organisation hold 100 keys and refuses the 101st', "'teams'"),
      ref('api-keys', 'follows an enterprise override of api_keys'),
      ref('api-keys', 'counts every member’s keys against the organisation’s limit'),
    ],
    note: 'the pro and teams tests seed 98 keys through the service and create the 100th through HTTP',
  },
  {
    name: 'Webhooks',
    where: 'Limits ("webhook counts per plan: not shown"); docs/decisions.md › Plans fixes 2/10/25',
    figure: { free: 2, pro: 10, teams: 25, enterprise: 'custom' },
    ...planLimit('webhooks', 'unlimited'),
    tests: [
      ref('webhooks', 'lets a free organisation hold 2 webhooks and refuses the 3rd (402)'),
      ref('webhooks', 'lets a %s organisation hold %i webhooks and refuses one more', "['pro', 10]"),
      ref('webhooks', 'lets a %s organisation hold %i webhooks and refuses one more', "['teams', 25]"),
      ref('webhooks', 'follows an enterprise override of webhooks'),
    ],
  },
  {
    name: 'API access with an API key',
    where: 'Limits, plan table "API access"; Authentication › Rules (a write with a key on the free plan is a 403)',
    figure: { free: 'read-only', pro: 'read/write', teams: 'read/write', enterprise: 'read/write' },
    server: () => Object.fromEntries(PLANS.map((p) => [p, apiWriteAllowed(p) ? 'read/write' : 'read-only'])),
    tests: [
      ref('auth-middleware', 'refuses a write with a key on the free plan'),
      ref('auth-middleware', 'lets a key on the free plan read'),
      ref('auth-middleware', 'lets a key on the %s plan write', "'pro'"),
      ref('auth-middleware', 'lets a key on the %s plan write', "'teams'"),
      ref('auth-middleware', 'lets a key on the %s plan write', "'enterprise'"),
    ],
  },
  {
    name: 'Rate limit per user (requests per minute)',
    where:
      'Limits, plan table "Rate limit per user" (10 req/s, 50 req/s, 50 req/s, custom) and Limits › rate limits (a 1-minute window); docs/decisions.md › Rate limits fixes 600 and 3,000 a minute',
    figure: { free: 600, pro: 3000, teams: 3000, enterprise: 'custom' },
    ...planLimit('rate_limit', 3000),
    tests: [
      ref(
        'rate-limits',
        'lets the %s plan’s %i requests of a minute pass and answers the next 429 with Retry-After',
        "['free', 600]",
      ),
      ref(
        'rate-limits',
        'lets the %s plan’s %i requests of a minute pass and answers the next 429 with Retry-After',
        "['pro', 3000]",
      ),
      ref(
        'rate-limits',
        'lets the %s plan’s %i requests of a minute pass and answers the next 429 with Retry-After',
        "['teams', 3000]",
      ),
      ref('rate-limits', 'lets the limit pass and answers the next request 429 with Retry-After'),
      ref('rate-limits', 'allows the %s plan %s requests per minute by default', "['enterprise', '3000']"),
      ref('rate-limits', 'takes an enterprise override over the plan figure'),
    ],
    note: 'the enterprise boundary is checked through an override of 5; its default figure (3,000) by the headers',
  },
  {
    name: 'Activity log retention (days)',
    where: 'Limits, plan table "Activity log retention"',
    figure: { free: 7, pro: 30, teams: 90, enterprise: 'custom' },
    ...planLimit('activity_retention_days', 90),
    tests: [
      ref('activity-log', 'still returns it within 7 days on the free plan'),
      ref('activity-log', 'does not return an entry older than 7 days on the free plan'),
      ref('activity-log', 'keeps 30 days on the pro plan'),
      ref('activity-log', 'keeps 90 days on the teams plan'),
      ref('activity-log', 'follows an enterprise override of the retention at its boundary'),
      ref('activity-log', 'the purge deletes entries past the free plan’s 7 days and keeps newer ones'),
    ],
  },

  // --- Rate limits per IP, per email address and per organisation; link validity ------------------------------
  {
    name: 'Sign-in ("auth") endpoints per IP (per minute)',
    where: 'Authentication › Rules; Limits ("Auth endpoints: 5 requests per minute per IP")',
    figure: 5,
    server: () => (RATE_LIMIT_WINDOW_MS === 60_000 ? IP_LIMITS.signIn.limit : 'not per minute'),
    tests: [
      ref('rate-limits', 'lets 5 sign-in requests per minute pass and answers the 6th 429 with Retry-After'),
      ref('rate-limits', 'counts every sign-in route in one limit'),
    ],
  },
  {
    name: 'Magic links per email address (per 15 minutes)',
    where: 'Authentication › Rules; Limits ("Magic links: 3 per email per 15 minutes")',
    figure: { links: 3, minutes: 15 },
    server: () => ({ links: MAGIC_LINKS_PER_WINDOW, minutes: MAGIC_LINK_WINDOW_MS / 60_000 }),
    tests: [
      ref(
        'sign-in',
        'sends 3 links to an address within 15 minutes; the 4th (any letter case) is a 429 with Retry-After',
      ),
      ref('sign-in', 'counts the last 15 minutes: a 4th link one second early is refused, on time it is sent'),
    ],
  },
  {
    name: 'Magic link validity (minutes)',
    where: 'Endpoints › Auth (send-link); Authentication › Rules; Limits ("magic link valid 15 minutes")',
    figure: 15,
    server: () => MAGIC_LINK_TTL_MS / 60_000,
    tests: [ref('sign-in', 'is valid for 15 minutes: a millisecond before it works, at 15 minutes it is expired_link')],
  },
  {
    name: 'Invitations per organisation (per hour)',
    where: 'Limits ("Invitations: 10 per organization per hour")',
    figure: 10,
    server: () => INVITATIONS_PER_HOUR,
    tests: [
      ref('invitations', 'allows 10 invitations per organisation per hour, then 429 with Retry-After'),
      ref('invitations', 'allows invitations again in the next hour'),
    ],
  },
  {
    name: 'Network tool lookups per IP (per minute)',
    where: 'Limits ("10 requests per minute for lookups"; 429 with Retry-After)',
    figure: 10,
    server: () => (RATE_LIMIT_WINDOW_MS === 60_000 ? IP_LIMITS.toolLookups.limit : 'not per minute'),
    tests: [ref('rate-limits', 'lets 10 network tool lookups per minute pass and answers the 11th 429')],
  },
  {
    name: 'Network tool active probes per IP (ping, ports, traceroute; per minute)',
    where: 'Limits ("3 per minute for active probes"; 429 with Retry-After)',
    figure: 3,
    server: () => (RATE_LIMIT_WINDOW_MS === 60_000 ? IP_LIMITS.toolProbes.limit : 'not per minute'),
    tests: [ref('rate-limits', 'lets 3 active probes per minute pass and answers the 4th 429, apart from lookups')],
  },

  // --- Operation limits ----------------------------------------------------------------------------------------
  {
    name: 'Batch-create addresses (ips)',
    where: 'States (batch-create "up to 500 ips"); Endpoints › Addresses; Limits › Operation limits',
    figure: 500,
    server: () => largestAccepted((n) => accepts(body('batchCreateAddresses'), { ips: ips(n) })),
    tests: [ref('address-batches', 'accepts 500 ips and refuses 501, naming ips')],
  },
  {
    name: 'Batch-update addresses (ids)',
    where: 'Endpoints › Addresses ("up to 500 ids"); Limits › Operation limits',
    figure: 500,
    server: () => largestAccepted((n) => accepts(body('batchUpdateAddresses'), { ids: ids(n), owner: 'x' })),
    tests: [ref('address-batches', 'batch-update accepts 500 ids and refuses 501, naming ids')],
  },
  {
    name: 'Batch-delete addresses (ids)',
    where: 'Endpoints › Addresses ("up to 500 ids"); Limits › Operation limits',
    figure: 500,
    server: () => largestAccepted((n) => accepts(body('batchDeleteAddresses'), { ids: ids(n) })),
    tests: [ref('address-batches', 'batch-delete accepts 500 ids and refuses 501, naming ids')],
  },
  {
    name: 'Import rows',
    where: 'Endpoints › Import and export ("up to 1,000 rows", both imports); Limits › Operation limits',
    figure: { subnets: 1000, addresses: 1000 },
    server: () => ({
      subnets: uniform([
        IMPORT_MAX_ROWS,
        largestAccepted((n) => accepts(body('importSubnets'), { subnets: rows(n, { network: '10.0.0.0/24' }) })),
      ]),
      addresses: uniform([
        IMPORT_MAX_ROWS,
        largestAccepted((n) =>
          accepts(body('importAddresses'), { addresses: rows(n, { ip: '10.0.0.1', subnet: '10.0.0.0/24' }) }),
        ),
      ]),
    }),
    tests: [
      ref('imports', 'accepts 1,000 rows and refuses 1,001, naming the field'),
      ref('imports', 'accepts 1,000 rows and refuses 1,001'),
    ],
  },
  {
    name: 'Import body size (MB)',
    where:
      'Endpoints › Import and export ("body up to 10 MB"); Limits › Operation limits; docs/decisions.md › HTTP (413)',
    figure: 10,
    tests: [
      ref('imports', '%s accepts a body of exactly 10 MB and answers 413 to one byte more', "'importSubnets'"),
      ref('imports', '%s accepts a body of exactly 10 MB and answers 413 to one byte more', "'importAddresses'"),
      { file: 'test/api/contract-statuses.test.ts', title: '%s answers 413 to a body over the limit' },
    ],
    note: 'server/http/body.ts exports no constant: the HTTP tests are the only check of the figure',
  },
  {
    name: 'Split parts (a power of 2)',
    where: 'Endpoints › Subnets (split "power of 2, from 2 up to 1024"); Limits › Operation limits',
    figure: { min: 2, max: 1024 },
    server: () => {
      const parts = (n: number) => accepts(body('splitSubnet'), { parts: n });
      return {
        min: uniform([SPLIT_PARTS_MIN, lowestAccepted(parts)]),
        max: uniform([SPLIT_PARTS_MAX, 2 ** largestAccepted((k) => parts(2 ** k))]),
      };
    },
    tests: [
      ref('subnet-space', 'splits a subnet into 1,024 parts, the most allowed'),
      ref('subnet-space', 'refuses %i parts, naming the field', '2048'),
      ref('subnet-space', 'refuses %i parts, naming the field', '[1, 3'),
      ref('subnet-space', 'deletes the original and its own addresses'),
    ],
    note: '2,048 is the next power of two past 1,024; 3 is not a power of two; the last test splits into 2',
  },
  {
    name: 'Addresses list limit',
    where: 'Endpoints › Addresses ("limit default and max 1,000"); Limits › Operation limits',
    figure: { max: 1000, default: 1000 },
    server: () => queryLimit('listSubnetAddresses'),
    tests: [
      ref('addresses', 'returns 1,000 by default and accepts limit 1000'),
      ref('addresses', 'refuses limit %i, naming limit', '1001'),
    ],
  },
  {
    name: 'Free-blocks limit',
    where: 'Endpoints › Subnets (free-blocks "limit default 5, max 50"); Limits › Operation limits',
    figure: { max: 50, default: 5 },
    server: () => queryLimit('getSubnetFreeBlocks', { prefix: '64' }),
    tests: [
      ref('subnet-space', 'caps the total of an IPv6 /32 asked for up to 50 /64 blocks at 1,000,000'),
      ref('subnet-space', 'refuses %s, naming the field', "'limit 51'"),
      ref('subnet-space', 'counts the exact total of an IPv4 /16 with some children'),
    ],
    note: 'the last test asks without a limit and gets 5 of 238 blocks',
  },
  {
    name: 'Free-blocks total cap',
    where: 'Endpoints › Subnets (free-blocks "reporting cap of 1,000,000"); Limits › Operation limits',
    figure: 1_000_000,
    server: () => FREE_BLOCKS_CAP,
    tests: [
      ref('subnet-space', 'reports 1,000,000 free blocks as the capped total and 999,999 exactly'),
      { file: 'test/unit/ipam-free-blocks.test.ts', title: '%s into /%s with %s free blocks reports %s (capped: %s)' },
    ],
  },
  {
    name: 'Webhook deliveries list limit',
    where: 'Endpoints › Webhooks (deliveries "limit default 50, max 100"); Limits › Operation limits',
    figure: { max: 100, default: 50 },
    server: () => queryLimit('listWebhookDeliveries'),
    tests: [
      ref('webhooks', 'lists 50 by default, newest first'),
      ref('webhooks', 'answers 100 with limit=100 and refuses limit=101 (400)'),
    ],
  },
  {
    name: 'Activity list limit',
    where: 'Endpoints › Activity ("limit default 50, max 500"); Limits › Operation limits',
    figure: { max: 500, default: 50 },
    server: () => queryLimit('listActivity'),
    tests: [
      ref('activity-log', 'answers 50 entries by default'),
      ref('activity-log', 'accepts a limit of 500'),
      ref('activity-log', 'refuses a limit of 501 or 0 (400 naming limit)'),
    ],
  },
  {
    name: 'Activity export rows',
    where: 'Endpoints › Activity (export "up to 10,000 rows"); Limits › Operation limits',
    figure: 10_000,
    server: () => ACTIVITY_EXPORT_MAX_ROWS,
    tests: [ref('activity-log', 'stops at the 10,000 newest entries')],
  },
  {
    name: 'Search query length (characters)',
    where: 'Endpoints › Search ("q required, max 500 characters"); Limits › Operation limits',
    figure: 500,
    server: () => largestAccepted((n) => accepts(query('searchIpam'), { q: 'x'.repeat(n) })),
    tests: [ref('search', 'accepts a query of 500 characters and refuses 501, naming q')],
  },
  {
    name: 'Search results of each kind',
    where: 'Endpoints › Search ("up to 50 of each"); Limits › Operation limits',
    figure: 50,
    server: () => SEARCH_MAX_RESULTS,
    tests: [
      ref('search', 'shows 50 when exactly 50 match'),
      ref('search', 'answers at most 50 of each kind when more match'),
    ],
  },
  {
    name: 'Webhook delivery history (days)',
    where: 'Events ("kept for 7 days"); Limits › Operation limits ("delivery history kept 7 days")',
    figure: 7,
    server: () => RETENTION_MS / (24 * 3600_000),
    tests: [
      { file: 'test/api/webhook-retries.test.ts', title: 'purges deliveries older than 7 days and keeps younger ones' },
    ],
  },
  {
    name: 'VLAN number',
    where: 'Resources › VLAN ("integer 1 to 4094"); Endpoints › Subnets (PATCH vlan "1 to 4094")',
    figure: { min: 1, max: 4094 },
    server: () => {
      const create = (n: number) => accepts(body('createVlan'), { vlan_number: n });
      const patch = (n: number) => accepts(body('updateSubnet'), { vlan: String(n) });
      const imported = (n: number) => accepts(ImportSubnetRow, { network: '10.0.0.0/24', vlan: n });
      return {
        min: uniform([create, patch, imported].map(lowestAccepted)),
        max: uniform([create, patch, imported].map(largestAccepted)),
      };
    },
    tests: [
      ref('vlans', 'accepts vlan_number %i at the boundary', '[1, 4094]'),
      ref('vlans', 'refuses vlan_number %i, naming the field', '[0, 4095]'),
      ref('subnets', 'refuses vlan "%s", naming the field', "'4095'"),
    ],
  },

  // --- Network tools ---------------------------------------------------------------------------------------------
  {
    name: 'Port scan custom list (ports)',
    where: 'Endpoints › Network tools (/tools/ports "max 25"); Limits › Operation limits',
    figure: 25,
    server: () =>
      largestAccepted((n) =>
        accepts(query('scanPorts'), {
          host: 'example.com',
          ports: Array.from({ length: n }, (_, i) => i + 1).join(','),
        }),
      ),
    tests: [
      ref('tools-probes', 'scans a list of 25 ports'),
      ref('tools-probes', 'refuses a list of 26 ports with 400 naming `ports`'),
    ],
  },
  {
    name: 'SPF DNS lookups (dns_lookup_limit)',
    where: 'Endpoints › Network tools (/tools/spf "dns_lookup_limit (10)"); RFC 7208 4.6.4',
    figure: 10,
    server: () => SPF_LOOKUP_LIMIT,
    tests: [
      ref('tools-mail', 'accepts exactly 10 lookups'),
      ref('tools-mail', 'counts lookups through nested includes: 11 is over the limit'),
    ],
  },
  {
    name: 'Organisation name (characters)',
    where: 'Resources › Organization ("max 100 characters"); Endpoints › Billing (org-name); Limits › Operation limits',
    figure: 100,
    server: () => largestAccepted((n) => accepts(body('updateOrganizationName'), { name: 'x'.repeat(n) })),
    tests: [ref('billing', 'accepts 100 characters and refuses 101, an empty name, and editors')],
  },
  {
    name: 'Checkout cooldown (minutes, default)',
    where: 'Errors ("10 minutes by default"); Limits › Operation limits ("checkout cooldown default 10 minutes")',
    figure: 10,
    server: () => DEFAULT_CHECKOUT_COOLDOWN_SECONDS / 60,
    tests: [
      ref('billing', 'opens checkout at the cooldown exactly: a second before, 403; from then on, a page'),
      ref(
        'billing',
        'answers 403 checkout_cooldown with Retry-After while the organisation is younger than the cooldown',
      ),
    ],
  },

  // --- Figures of the design, beyond the specification -----------------------------------------------------------
  {
    name: 'JSON body size on other routes (MB)',
    where: 'docs/decisions.md › HTTP ("413 payload_too_large (JSON bodies over 1 MB, 10 MB on `/import/*`)")',
    figure: 1,
    tests: [
      ref('errors', 'accepts a body of exactly 1 MB and answers 413 to one byte more'),
      { file: 'test/api/contract-statuses.test.ts', title: '%s answers 413 to a body over the limit' },
    ],
    note: 'server/http/body.ts exports no constant: the HTTP tests are the only check of the figure',
  },
  {
    name: 'Webhook deactivation (consecutive failures)',
    where:
      'Events ("the failure count at which a subscription stops: not shown"); docs/decisions.md › Webhooks: delivery fixes 50',
    figure: 50,
    server: () => MAX_CONSECUTIVE_FAILURES,
    tests: [
      { file: 'test/api/webhook-retries.test.ts', title: 'keeps a subscription active at 49 consecutive failures' },
      {
        file: 'test/api/webhook-retries.test.ts',
        title: 'deactivates a subscription at its 50th consecutive failure and sends it nothing more',
      },
    ],
  },
  {
    name: 'Allocation counts (beyond the specification)',
    where: 'README › Status (allocate-address 1–500, allocate-subnet 1–64)',
    figure: { addresses: 500, subnets: 64 },
    server: () => ({
      addresses: uniform([
        ALLOCATE_MAX_ADDRESSES,
        largestAccepted((n) => accepts(body('allocateAddress'), { count: n })),
      ]),
      subnets: uniform([
        ALLOCATE_MAX_SUBNETS,
        largestAccepted((n) => accepts(body('allocateSubnet'), { prefix_length: 24, count: n })),
      ]),
    }),
    tests: [
      ref('allocation', 'accepts a count of 500 and refuses 501'),
      ref('allocation', 'accepts a count of 64 and refuses 65'),
    ],
  },
  {
    name: 'Idempotency-Key (characters; hours kept)',
    where: 'README › Status and docs/decisions.md › Idempotency-Key (24 hours)',
    figure: { characters: 255, hours: 24 },
    server: () => ({
      characters: largestAccepted((n) => accepts(IdempotencyHeaders, { 'idempotency-key': 'k'.repeat(n) })),
      hours: IDEMPOTENCY_KEY_TTL_HOURS,
    }),
    tests: [
      ref('idempotency', 'accepts a key of 255 visible characters and refuses 256, or one with a space (400)'),
      ref('idempotency', 'forgets a key after 24 hours: the same request then runs again'),
    ],
  },
  {
    name: 'custom_fields (levels deep; bytes as JSON; top-level keys)',
    where: 'Design (docs/decisions.md › Hardening): the specification leaves custom_fields free-form',
    figure: { depth: 8, bytes: 16_384, keys: 100 },
    server: () => ({
      depth: uniform([
        CUSTOM_FIELDS_MAX_DEPTH,
        largestAccepted((n) => accepts(CustomFields, JSON.parse(`${'{"a":'.repeat(n)}1${'}'.repeat(n)}`))),
      ]),
      // `{"k":""}` is 8 bytes.
      bytes: uniform([
        CUSTOM_FIELDS_MAX_BYTES,
        8 + largestAccepted((n) => accepts(CustomFields, { k: 'x'.repeat(n) })),
      ]),
      keys: uniform([
        CUSTOM_FIELDS_MAX_KEYS,
        largestAccepted((n) => accepts(CustomFields, Object.fromEntries(Array.from({ length: n }, (_, i) => [i, i])))),
      ]),
    }),
    tests: [
      ref('custom-fields', '%s accepts custom_fields nested 8 deep and refuses 9, naming the field', 'PATCHES'),
      ref('custom-fields', '%s accepts custom_fields of 16,384 bytes as JSON and refuses 16,385', 'PATCHES'),
      ref('custom-fields', '%s accepts 100 top-level keys in custom_fields and refuses 101', 'PATCHES'),
      ref(
        'custom-fields',
        'a %s row with custom_fields nested 8 deep is created; 9 deep is an error row naming custom_fields',
        "'addresses'",
      ),
      ref(
        'custom-fields',
        'a %s row with 16,384 bytes of custom_fields is created; 16,385 is an error row',
        "'subnets'",
      ),
      ref(
        'custom-fields',
        'a %s row with 100 top-level keys in custom_fields is created; 101 is an error row',
        "'subnets'",
      ),
    ],
  },
];

// ---------------------------------------------------------------------------------------------------------
// Probing the contract's schemas
// ---------------------------------------------------------------------------------------------------------

const body = (id: OperationId) => (route(id) as unknown as { body: ZodTypeAny }).body;
const query = (id: OperationId) => (route(id) as unknown as { query: ZodTypeAny }).query;
const accepts = (schema: ZodTypeAny, value: unknown) => schema.safeParse(value).success;
const ips = (n: number) => Array.from({ length: n }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
const ids = (n: number) => Array<string>(n).fill('8f1d6c4e-2b7a-4c3e-9d5f-0a1b2c3d4e5f');
const rows = (n: number, row: Record<string, unknown>) => Array.from({ length: n }, () => ({ ...row }));

/** The largest n ≥ 1 that `accepted` takes (it must take 1, and every n below one it takes): doubling, then bisection. */
function largestAccepted(accepted: (n: number) => boolean): number {
  if (!accepted(1)) throw new Error('the schema refuses 1 already');
  let [low, high] = [1, 2];
  while (accepted(high)) {
    [low, high] = [high, high * 2];
    if (high > 2 ** 24) throw new Error('no upper limit up to 2^24');
  }
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (accepted(middle)) low = middle;
    else high = middle;
  }
  return low;
}

/** The smallest n from -10 on that `accepted` takes. */
function lowestAccepted(accepted: (n: number) => boolean): number {
  for (let n = -10; n <= 10; n++) if (accepted(n)) return n;
  throw new Error('nothing from -10 to 10 is accepted');
}

/** The one value all sources agree on, or every value when they do not (so the comparison fails, showing them). */
const uniform = (values: unknown[]) =>
  values.every((v) => JSON.stringify(v) === JSON.stringify(values[0])) ? values[0] : values;

/** A list's `limit`: its largest accepted value and its default, from the route's query schema. */
function queryLimit(id: OperationId, required: Record<string, string> = {}) {
  const schema = query(id);
  return {
    max: largestAccepted((n) => accepts(schema, { ...required, limit: String(n) })),
    default: (schema.parse(required) as { limit: number }).limit,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Reading the test files
// ---------------------------------------------------------------------------------------------------------

interface DeclaredTest {
  title: string;
  /** The source of an `it.each` table, or null for a plain `it`. */
  table: string | null;
}

/** Every `it(title, …)` and `it.each(table)(title, …)` of a test file, read from its text. */
function declaredTests(source: string): DeclaredTest[] {
  const found: DeclaredTest[] = [];
  for (const match of source.matchAll(/(?<![\w.$])it(\.each)?\(/g)) {
    let at = (match.index ?? 0) + match[0].length;
    let table: string | null = null;
    if (match[1]) {
      const end = closing(source, at);
      table = source.slice(at, end);
      at = skipSpace(source, end + 1);
      if (source[at] !== '(') continue;
      at++;
    }
    at = skipSpace(source, at);
    const quote = source[at];
    if (quote !== "'" && quote !== '"' && quote !== '`') continue;
    const end = endOfString(source, at);
    found.push({ title: unquote(source.slice(at + 1, end)), table });
  }
  return found;
}

const skipSpace = (source: string, at: number) => {
  while (/\s/.test(source[at] ?? '')) at++;
  return at;
};

/** The index of the quote closing the string literal that opens at `at`. */
function endOfString(source: string, at: number): number {
  const quote = source[at];
  for (let i = at + 1; i < source.length; i++) {
    if (source[i] === '\\') i++;
    else if (source[i] === quote) return i;
  }
  throw new Error(`unterminated string at ${at}`);
}

/** The index of the bracket closing the one just before `at`, skipping strings, comments and regular expressions. */
function closing(source: string, at: number): number {
  let depth = 1;
  for (let i = at; i < source.length; i++) {
    const c = source.charAt(i);
    if (c === "'" || c === '"' || c === '`') i = endOfString(source, i);
    else if (c === '/' && source[i + 1] === '/') i = endOf(source, '\n', i);
    else if (c === '/' && source[i + 1] === '*') i = endOf(source, '*/', i) + 1;
    else if (c === '/' && /[(,=:[!&|?{};]/.test(source.slice(0, i).trimEnd().at(-1) ?? '')) {
      for (i++; source[i] !== '/'; i++) if (source[i] === '\\') i++;
    } else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c) && --depth === 0) return i;
  }
  throw new Error(`unbalanced brackets from ${at}`);
}

/** Where `text` next starts from `at`, or the end of the source. */
const endOf = (source: string, text: string, at: number) => {
  const found = source.indexOf(text, at);
  return found === -1 ? source.length : found;
};

const unquote = (text: string) => text.replace(/\\(.)/g, '$1');

const sources = new Map<string, DeclaredTest[]>();
function testsOf(path: string): DeclaredTest[] {
  let tests = sources.get(path);
  if (!tests) {
    tests = declaredTests(readFileSync(path, 'utf8'));
    sources.set(path, tests);
  }
  return tests;
}

/** Why a reference does not name a test, or null when it does. */
function problemOf({ file, title, each }: TestRef): string | null {
  if (!/^test\/.+\.test\.ts$/.test(file)) return `${file} is not a test file`;
  const candidates = testsOf(file).filter((t) => t.title === title);
  if (candidates.length === 0) return `${file} has no test titled "${title}"`;
  if (each !== undefined && !candidates.some((t) => t.table?.includes(each)))
    return `${file}: no it.each titled "${title}" has ${each} in its table`;
  return null;
}

// ---------------------------------------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------------------------------------

describe('the audit of limits', () => {
  it.each(LIMITS.filter((l) => l.tests.length > 0).map((l) => [l.name, l] as const))(
    '%s: every test it names exists with that title',
    (_, limit) => {
      const problems = limit.tests.map(problemOf).filter(Boolean);
      expect(problems, problems.join('; ')).toEqual([]);
    },
  );

  it.each(LIMITS.filter((l) => l.server).map((l) => [l.name, l] as const))(
    '%s: the figures are the server’s',
    (_, limit) => {
      expect(limit.server?.()).toEqual(limit.figure);
    },
  );

  it('gives the enterprise plan the server’s default figures where no override is set', () => {
    const planRows = LIMITS.filter((l) => l.plan);
    expect(Object.fromEntries(planRows.map((l) => [l.plan?.name, l.plan?.enterpriseDefault]))).toEqual(
      Object.fromEntries(planRows.map((l) => [l.plan?.name, PLAN_LIMITS.enterprise[l.plan!.name] ?? 'unlimited'])),
    );
  });

  it('covers every limit the server knows: each plan limit and each per-IP limit', () => {
    expect(LIMITS.flatMap((l) => (l.plan ? [l.plan.name] : [])).sort()).toEqual([...LIMIT_NAMES].sort());
    expect(Object.keys(IP_LIMITS).sort()).toEqual(['signIn', 'toolLookups', 'toolProbes']);
  });

  it('leaves no limit without a test', () => {
    expect(LIMITS.filter((l) => l.tests.length === 0).map((l) => l.name)).toEqual([]);
  });

  it('checks every figure against the server, but for those it has no constant of', () => {
    expect(LIMITS.filter((l) => !l.server).map((l) => l.name)).toEqual([
      'Import body size (MB)',
      'JSON body size on other routes (MB)',
    ]);
  });
});

describe('reading test titles', () => {
  it('finds plain and it.each titles with their tables, past strings, comments and regular expressions', () => {
    const source = [
      "it('plain ’title’', async () => {});",
      'it.each([',
      "  ['a (b', /^x\\/[(]/, 'c)'], // a comment )",
      '  /* ] */ [1, 2],',
      "])('%s then %i', async () => {});",
      'it.skip("skipped", () => {});',
      'split("not a test");',
      "it(\n  'on a new line',\n  () => {},\n);",
    ].join('\n');
    expect(declaredTests(source)).toEqual([
      { title: 'plain ’title’', table: null },
      {
        title: '%s then %i',
        table: "[\n  ['a (b', /^x\\/[(]/, 'c)'], // a comment )\n  /* ] */ [1, 2],\n]",
      },
      { title: 'on a new line', table: null },
    ]);
  });
});
