/**
 * The bodies the service POSTs to webhook subscribers (Standard Webhooks v1: `{type, timestamp, data}`),
 * one schema per kind of event. Published in the OpenAPI document (components and `x-webhooks`), typed in
 * the SDK's `verifyWebhook`, and the type of what the server's outbox writes.
 */
import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';
import { describedUuid, Timestamp } from './common/schemas';
import { WEBHOOK_EVENT_TYPES } from './webhooks.contract';

export const WebhookChanges = extendApi(z.record(z.array(z.unknown()).length(2).describe('[old, new]')), {
  title: 'WebhookChanges',
  description: '`{field: [old, new]}` for each field the change touched; null stands for "none"',
  example: { name: [null, 'servers'], vlan_number: [null, 120] },
});

const EventTimestamp = Timestamp.describe('When the change happened; the same on every retry of the event');

export const ResourceChangeEvent = extendApi(
  z.object({
    type: z
      .enum(WEBHOOK_EVENT_TYPES)
      .exclude(['ping', 'subnet.split'])
      .describe(
        '`<resource>.created`, `.updated` or `.deleted` for folder, subnet, address, vlan, vrf, location, and ' +
          '`address.released` for a held address whose hold ended (it no longer exists)',
      ),
    timestamp: EventTimestamp,
    data: z
      .object({
        id: describedUuid('The folder, subnet, address, VLAN, VRF or location'),
        changes: WebhookChanges,
      })
      .describe('The object changed and what changed'),
  }),
  {
    title: 'ResourceChangeEvent',
    description: 'A folder, subnet, address, VLAN, VRF or location was created, updated or deleted',
    example: {
      type: 'vlan.created',
      timestamp: '2026-11-22T10:00:00.000Z',
      data: { id: '7f1c3a52-1b5e-4f8e-9d3a-2c4b6e8f0a1d', changes: { vlan_number: [null, 120] } },
    },
  },
);

export const SubnetSplitEvent = extendApi(
  z.object({
    type: z.literal('subnet.split').describe('subnet.split'),
    timestamp: EventTimestamp,
    data: z
      .object({
        id: describedUuid('The subnet that was split (it no longer exists)'),
        changes: WebhookChanges,
        original: z.string().describe('The network that was split'),
        parts: z.array(z.string()).describe('The networks of the new subnets'),
      })
      .describe('The split subnet and its parts'),
  }),
  {
    title: 'SubnetSplitEvent',
    description: 'A subnet was split into equal parts',
    example: {
      type: 'subnet.split',
      timestamp: '2026-11-22T10:00:00.000Z',
      data: {
        id: '7f1c3a52-1b5e-4f8e-9d3a-2c4b6e8f0a1d',
        changes: { network: ['10.0.0.0/24', null], parts: [null, ['10.0.0.0/25', '10.0.0.128/25']] },
        original: '10.0.0.0/24',
        parts: ['10.0.0.0/25', '10.0.0.128/25'],
      },
    },
  },
);

export const PingEvent = extendApi(
  z.object({
    type: z.literal('ping').describe('ping'),
    timestamp: Timestamp.describe('When the test was sent'),
    data: z.object({ webhook_id: describedUuid('The subscription tested') }).describe('The subscription tested'),
  }),
  {
    title: 'PingEvent',
    description: 'Sent by `POST /webhooks/{id}/test`',
    example: {
      type: 'ping',
      timestamp: '2026-11-22T10:00:00.000Z',
      data: { webhook_id: '7f1c3a52-1b5e-4f8e-9d3a-2c4b6e8f0a1d' },
    },
  },
);

export type PingEvent = z.infer<typeof PingEvent>;

/** Every body a subscriber receives; narrow on `type`. */
export const WebhookEvent = z.union([ResourceChangeEvent, SubnetSplitEvent, PingEvent]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

/** The event schemas the OpenAPI document publishes, by component name. */
export const webhookEventSchemas = { ResourceChangeEvent, SubnetSplitEvent, PingEvent };
