import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors } from './common/errors';
import { IdempotencyHeaders, idempotent } from './common/idempotency';
import { access } from './common/meta';
import { describedUuid, IdParams, Offset, PageCursor, queryInt, Timestamp, text } from './common/schemas';
import { IfMatchHeaders, IfNoneMatchHeaders, versioned } from './common/versions';

const c = initContract();
const meta = access('Webhooks');

/** Every event type the service emits: `<resource>.created|updated|deleted`, `subnet.split`, and `ping` (test). */
export const WEBHOOK_EVENT_TYPES = [
  'folder.created',
  'folder.updated',
  'folder.deleted',
  'subnet.created',
  'subnet.updated',
  'subnet.deleted',
  'subnet.split',
  'address.created',
  'address.updated',
  'address.deleted',
  'address.released',
  'vlan.created',
  'vlan.updated',
  'vlan.deleted',
  'vrf.created',
  'vrf.updated',
  'vrf.deleted',
  'location.created',
  'location.updated',
  'location.deleted',
  'ping',
] as const;

export const WebhookEventType = extendApi(z.enum(WEBHOOK_EVENT_TYPES), {
  title: 'WebhookEventType',
  description: 'An event type; `ping` is sent only by the test endpoint',
  example: 'subnet.created',
});
export type WebhookEventType = z.infer<typeof WebhookEventType>;

const WebhookUrl = z
  .string()
  .max(2048)
  .url()
  .regex(/^https?:\/\//i, 'must be an http(s) URL')
  .describe(
    'HTTPS endpoint that receives the events. The server refuses http (allowed only for operator-allowed test ' +
      'addresses) and any host resolving to a private, loopback or otherwise internal address (400).',
  );

const EventTypes = extendApi(
  z
    .array(WebhookEventType)
    .max(WEBHOOK_EVENT_TYPES.length)
    .refine((list) => new Set(list).size === list.length, 'event_types must not repeat a value')
    .describe('Event types delivered; an empty array means all'),
  { uniqueItems: true },
);

const EXAMPLE_ID = '4b5c6d7e-8f9a-4b0c-9d1e-2f3a4b5c6d7e';
const EXAMPLE_URL = 'https://hooks.example.com/ipam';

export const Webhook = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the webhook (UUID)'),
      url: z.string().url().describe('Endpoint receiving the events'),
      description: z.string().describe('Free-text description of the webhook; empty when unset'),
      event_types: z.array(WebhookEventType).describe('Event types delivered; an empty array means all'),
      is_active: z.boolean().describe('False when switched off, or deactivated after 50 consecutive failures or a 410'),
      failure_count: z.number().int().nonnegative().describe('Consecutive failed delivery attempts; reset on success'),
      created_at: Timestamp,
    })
    .strict(),
  {
    title: 'Webhook',
    description: 'A webhook subscription (its secret is never shown here)',
    example: {
      id: EXAMPLE_ID,
      url: EXAMPLE_URL,
      description: 'Sync to CMDB',
      event_types: ['subnet.created', 'subnet.deleted'],
      is_active: true,
      failure_count: 0,
      created_at: '2026-11-22T10:00:00.000Z',
    },
  },
);

const WebhookSecretValue = z
  .string()
  .startsWith('whsec_')
  .describe(
    'Signing secret (`whsec_` + base64 key) for the Standard Webhooks `webhook-signature` header; shown only here',
  );

export const CreatedWebhook = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the webhook (UUID)'),
      url: z.string().url().describe('HTTPS endpoint receiving the events, e.g. https://hooks.example.com/ipam'),
      secret: WebhookSecretValue,
      description: z.string().describe('Free-text description of the webhook; empty when unset'),
      event_types: z.array(WebhookEventType).describe('Event types delivered to the endpoint, e.g. subnet.created'),
      is_active: z.boolean().describe('Whether events are currently delivered'),
    })
    .strict(),
  {
    title: 'WebhookCreated',
    description: 'A new subscription with its signing secret, shown once',
    example: {
      id: EXAMPLE_ID,
      url: EXAMPLE_URL,
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      description: 'Sync to CMDB',
      event_types: ['subnet.created', 'subnet.deleted'],
      is_active: true,
    },
  },
);

export const CreateWebhookBody = extendApi(
  z
    .object({
      url: WebhookUrl,
      description: text().optional().describe('Free-text description of the webhook'),
      event_types: EventTypes.default([]),
    })
    .strict(),
  {
    title: 'CreateWebhookBody',
    description: 'event_types omitted or empty subscribes to every event type',
    example: { url: EXAMPLE_URL, description: 'Sync to CMDB', event_types: ['subnet.created', 'subnet.deleted'] },
  },
);

export const UpdateWebhookBody = extendApi(
  z
    .object({
      url: WebhookUrl.optional(),
      description: text().optional().describe('Free-text description of the webhook'),
      event_types: EventTypes.optional(),
      is_active: z.boolean().optional().describe('Switch deliveries on or off'),
    })
    .strict(),
  { title: 'UpdateWebhookBody', description: 'Only the fields given change', example: { is_active: false } },
);

export const WebhookDelivery = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the delivery (UUID)'),
      event_type: WebhookEventType,
      response_status: z.number().int().nullable().describe('HTTP status answered; null when no response arrived'),
      duration_ms: z.number().int().nonnegative().describe('Round-trip time of the delivery attempt in milliseconds'),
      attempt: z.number().int().min(1).describe('1 for the first try, then one more per retry'),
      delivered_at: Timestamp,
    })
    .strict(),
  {
    title: 'WebhookDelivery',
    description: 'One delivery attempt (kept 7 days)',
    example: {
      id: '6d7e8f9a-0b1c-4d2e-8f3a-4b5c6d7e8f9a',
      event_type: 'subnet.created',
      response_status: 200,
      duration_ms: 142,
      attempt: 1,
      delivered_at: '2026-11-22T10:00:01.000Z',
    },
  },
);

export const WebhookDeliveriesQuery = z
  .object({
    limit: queryInt(1, 100, 50).describe('Most deliveries to return, 1 to 100 (default 50)'),
    offset: Offset,
    cursor: PageCursor,
  })
  .strict();

export const WebhookTestResult = extendApi(
  z
    .object({
      event_type: z.literal('ping').describe('Event type of the test delivery, always ping'),
      response_status: z.number().int().describe('2xx status the endpoint answered'),
      duration_ms: z.number().int().nonnegative().describe('Round-trip time of the test delivery in milliseconds'),
      attempt: z.number().int().min(1).describe('Attempt number of the delivery, starting at 1'),
    })
    .strict(),
  {
    title: 'WebhookTestResult',
    description: 'The endpoint accepted the ping',
    example: { event_type: 'ping', response_status: 200, duration_ms: 87, attempt: 1 },
  },
);

export const WebhookSecret = extendApi(z.object({ secret: WebhookSecretValue }).strict(), {
  title: 'WebhookSecret',
  description: 'The new signing secret, shown once',
  example: { secret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD' },
});

export const webhooksContract = c.router({
  listWebhooks: {
    method: 'GET',
    path: '/webhooks',
    summary: 'List webhooks',
    description: 'Every webhook subscription of the organisation, without secrets.',
    metadata: meta.adminRead,
    responses: { 200: z.array(Webhook), ...errors(401, 403, 429) },
  },
  createWebhook: {
    method: 'POST',
    path: '/webhooks',
    summary: 'Create a webhook',
    description:
      'Subscribes an HTTPS endpoint to event types (empty or omitted: all). The signing secret is in this response ' +
      'only. Counts against the plan’s webhook limit (402 when reached).',
    metadata: idempotent(meta.adminWrite, 'secret'),
    headers: IdempotencyHeaders,
    body: CreateWebhookBody,
    responses: { 201: CreatedWebhook, ...errors(400, 401, 402, 403, 409, 413, 415, 422, 429) },
  },
  getWebhook: {
    method: 'GET',
    path: '/webhooks/:id',
    summary: 'Get a webhook',
    description: 'One webhook subscription, without its secret.',
    metadata: versioned(meta.adminRead),
    headers: IfNoneMatchHeaders,
    pathParams: IdParams,
    responses: { 200: Webhook, 304: c.noBody(), ...errors(400, 401, 403, 404, 429) },
  },
  updateWebhook: {
    method: 'PATCH',
    path: '/webhooks/:id',
    summary: 'Update a webhook',
    description: 'Changes only the fields given; `is_active` switches deliveries on or off.',
    metadata: versioned(meta.adminWrite),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    body: UpdateWebhookBody,
    responses: { 200: Webhook, ...errors(400, 401, 403, 404, 412, 413, 415, 429) },
  },
  deleteWebhook: {
    method: 'DELETE',
    path: '/webhooks/:id',
    summary: 'Delete a webhook',
    description: 'Deletes the subscription and its delivery history.',
    metadata: versioned(meta.adminWrite),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    responses: { 204: c.noBody(), ...errors(400, 401, 403, 404, 412, 429) },
  },
  listWebhookDeliveries: {
    method: 'GET',
    path: '/webhooks/:id/deliveries',
    summary: 'List webhook deliveries',
    description:
      'Delivery attempts of the last 7 days, newest first; by limit and offset, or by cursor (`Next-Cursor` on ' +
      'every page but the last, `?cursor=` for the page after it).',
    metadata: { ...meta.adminRead, cursorPages: true },
    pathParams: IdParams,
    query: WebhookDeliveriesQuery,
    responses: { 200: z.array(WebhookDelivery), ...errors(400, 401, 403, 404, 429) },
  },
  testWebhook: {
    method: 'POST',
    path: '/webhooks/:id/test',
    summary: 'Send a test event',
    description:
      'Sends a signed `ping` event to the endpoint now and records the attempt. 502 when the endpoint is unreachable ' +
      'or answers non-2xx (the remote body is never echoed).',
    metadata: idempotent(meta.adminWrite),
    headers: IdempotencyHeaders,
    pathParams: IdParams,
    body: c.noBody(),
    responses: { 200: WebhookTestResult, ...errors(400, 401, 403, 404, 409, 422, 429, 502) },
  },
  rotateWebhookSecret: {
    method: 'POST',
    path: '/webhooks/:id/rotate-secret',
    summary: 'Rotate the signing secret',
    description:
      'Replaces the signing secret; the old one stops working immediately. The new secret is shown only here.',
    metadata: idempotent(meta.adminWrite, 'secret'),
    headers: IdempotencyHeaders,
    pathParams: IdParams,
    body: c.noBody(),
    responses: { 200: WebhookSecret, ...errors(400, 401, 403, 404, 409, 422, 429) },
  },
});
