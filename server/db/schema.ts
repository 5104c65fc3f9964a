/** Drizzle table definitions for querying. The SQL in migrations/ is the source of the schema. */
import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  cidr,
  customType,
  inet,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { Plan, Role } from '../../contract/common/enums';

const id = () => uuid('id').primaryKey().defaultRandom();
const orgId = () => uuid('org_id').notNull();
const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
const updatedAt = () => timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();
/** The names of a resource's tags (migration 0023), in the order they were given. */
const tagNames = () => text('tags').array().notNull().default(sql`'{}'`);

export const organizations = pgTable('organizations', {
  id: id(),
  name: text('name').notNull(),
  slug: text('slug').notNull(),
  plan: text('plan', { enum: Plan.options }).notNull(),
  limitOverrides: jsonb('limit_overrides').$type<Record<string, number | null>>().notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  stripeCustomerId: text('stripe_customer_id'),
  stripeSubscriptionId: text('stripe_subscription_id'),
  billingEventAt: timestamp('billing_event_at', { withTimezone: true, mode: 'date' }),
});

export const users = pgTable('users', {
  id: id(),
  orgId: orgId(),
  email: text('email').notNull(),
  name: text('name').notNull(),
  emailVerified: boolean('email_verified').notNull(),
  role: text('role', { enum: Role.options }).notNull(),
  acceptedAt: timestamp('accepted_at', { withTimezone: true }).notNull().defaultNow(),
  createdAt: createdAt(),
});

export const apiKeys = pgTable('api_keys', {
  id: id(),
  orgId: orgId(),
  userId: uuid('user_id').notNull(),
  name: text('name').notNull(),
  keyHash: text('key_hash').notNull(),
  keyPrefix: text('key_prefix').notNull(),
  permissions: text('permissions').array().$type<('read' | 'write')[]>().notNull(),
  createdAt: createdAt(),
  lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
});

export const sessions = pgTable('sessions', {
  id: id(),
  userId: uuid('user_id').notNull(),
  tokenHash: text('token_hash').notNull(),
  createdAt: createdAt(),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
});

export const folders = pgTable('folders', {
  id: id(),
  orgId: orgId(),
  name: text('name').notNull(),
  description: text('description').notNull().default(''),
  sortOrder: integer('sort_order').notNull().default(0),
  tags: tagNames(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const locations = pgTable('locations', {
  id: id(),
  orgId: orgId(),
  name: text('name').notNull(),
  address: text('address').notNull().default(''),
  tags: tagNames(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const vlans = pgTable('vlans', {
  id: id(),
  orgId: orgId(),
  vlanNumber: integer('vlan_number').notNull(),
  name: text('name').notNull().default(''),
  description: text('description').notNull().default(''),
  locationId: uuid('location_id'),
  tags: tagNames(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const vrfs = pgTable('vrfs', {
  id: id(),
  orgId: orgId(),
  name: text('name').notNull(),
  rd: text('rd').notNull().default(''),
  description: text('description').notNull().default(''),
  tags: tagNames(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const tags = pgTable('tags', {
  id: id(),
  orgId: orgId(),
  name: text('name').notNull(),
  colour: text('colour').notNull().default('#9e9e9e'),
  description: text('description').notNull().default(''),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const subnets = pgTable('subnets', {
  id: id(),
  orgId: orgId(),
  parentId: uuid('parent_id'),
  folderId: uuid('folder_id'),
  vrfId: uuid('vrf_id'),
  /** The VRF, or the nil UUID for the global space (generated). */
  spaceId: uuid('space_id').generatedAlwaysAs(sql`COALESCE(vrf_id, '00000000-0000-0000-0000-000000000000'::uuid)`),
  vlanId: uuid('vlan_id'),
  locationId: uuid('location_id'),
  network: cidr('network').notNull(),
  name: text('name').notNull().default(''),
  description: text('description').notNull().default(''),
  isPool: boolean('is_pool').notNull().default(false),
  gateway: inet('gateway'),
  dnsPrimary: inet('dns_primary'),
  dnsSecondary: inet('dns_secondary'),
  scanEnabled: boolean('scan_enabled').notNull().default(false),
  tracked: boolean('tracked').notNull().default(true),
  customFields: jsonb('custom_fields').$type<Record<string, unknown>>(),
  tags: tagNames(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const addresses = pgTable('addresses', {
  id: id(),
  orgId: orgId(),
  subnetId: uuid('subnet_id').notNull(),
  vrfId: uuid('vrf_id'),
  spaceId: uuid('space_id').generatedAlwaysAs(sql`COALESCE(vrf_id, '00000000-0000-0000-0000-000000000000'::uuid)`),
  ip: inet('ip').notNull(),
  hostname: text('hostname').notNull().default(''),
  macAddress: text('mac_address').notNull().default(''),
  description: text('description').notNull().default(''),
  status: text('status').notNull().default('assigned'),
  owner: text('owner').notNull().default(''),
  ptrRecord: text('ptr_record'),
  customFields: jsonb('custom_fields').$type<Record<string, unknown>>(),
  lastSeen: timestamp('last_seen', { withTimezone: true }),
  tags: tagNames(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  /** A hold's end (migration 0021): released by the service past it unless its status changed first. */
  expiresAt: timestamp('expires_at', { withTimezone: true }),
});

export const invitations = pgTable('invitations', {
  id: id(),
  orgId: orgId(),
  email: text('email').notNull(),
  role: text('role', { enum: Role.options }).notNull(),
  tokenHash: text('token_hash').notNull(),
  invitedBy: uuid('invited_by'),
  expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  acceptedAt: timestamp('accepted_at', { withTimezone: true }),
  createdAt: createdAt(),
});

/** Emailed sign-in links (migration 0004): only the token's SHA-256 is stored. */
export const magicLinks = pgTable('magic_links', {
  tokenHash: text('token_hash').primaryKey(),
  email: text('email').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
});

/** Google sign-ins in progress (migration 0004), keyed by the hash of the browser's flow cookie. */
export const oauthFlows = pgTable('oauth_flows', {
  idHash: text('id_hash').primaryKey(),
  state: text('state').notNull(),
  nonce: text('nonce').notNull(),
  codeVerifier: text('code_verifier').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
});

/** A transaction id (`pg_current_xact_id()`), as PostgreSQL writes it. */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/** The activity (audit) log (migration 0006): `changes` is {field: [old, new]} with the API's field names. */
export const activity = pgTable('activity', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  orgId: orgId(),
  userId: uuid('user_id'),
  action: text('action').notNull(),
  resourceType: text('resource_type').notNull(),
  resourceId: uuid('resource_id'),
  changes: jsonb('changes').$type<Record<string, unknown>>().notNull(),
  createdAt: createdAt(),
  /** Its transaction (migration 0020), which the change feed numbers at commit; null before the feed existed. */
  xid: xid8('xid'),
});

export const webhooks = pgTable('webhooks', {
  id: id(),
  orgId: orgId(),
  url: text('url').notNull(),
  description: text('description').notNull().default(''),
  eventTypes: text('event_types').array().notNull().default(sql`'{}'`),
  isActive: boolean('is_active').notNull().default(true),
  failureCount: integer('failure_count').notNull().default(0),
  secret: text('secret').notNull(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const webhookDeliveries = pgTable('webhook_deliveries', {
  id: id(),
  orgId: orgId(),
  webhookId: uuid('webhook_id').notNull(),
  eventId: uuid('event_id').notNull(),
  eventType: text('event_type').notNull(),
  attempt: integer('attempt').notNull(),
  responseStatus: integer('response_status'),
  durationMs: integer('duration_ms').notNull(),
  deliveredAt: timestamp('delivered_at', { withTimezone: true }).notNull(),
});

/** The webhook outbox (migration 0008): events written with their change, one row per subscription to deliver. */
export const webhookEvents = pgTable('webhook_events', {
  id: uuid('id').primaryKey(),
  orgId: orgId(),
  type: text('type').notNull(),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
  createdAt: createdAt(),
});

export const webhookOutbox = pgTable('webhook_outbox', {
  id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
  eventId: uuid('event_id').notNull(),
  orgId: orgId(),
  webhookId: uuid('webhook_id').notNull(),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
  state: text('state').$type<'pending' | 'delivered' | 'failed' | 'cancelled'>().notNull().default('pending'),
});

/** Idempotency-Key of POSTs (migration 0013): the request's claim, then its answer. */
export const idempotencyKeys = pgTable('idempotency_keys', {
  orgId: orgId(),
  userId: uuid('user_id').notNull(),
  key: text('key').notNull(),
  requestHash: text('request_hash').notNull(),
  lockedAt: timestamp('locked_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  status: integer('status'),
  response: text('response'),
  sealedSecret: text('sealed_secret'),
  createdAt: createdAt(),
});

/** Stripe events already processed (migration 0014): a redelivered one changes nothing. */
export const stripeEvents = pgTable('stripe_events', {
  id: text('id').primaryKey(),
  type: text('type').notNull(),
  orgId: uuid('org_id'),
  processedAt: timestamp('processed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
