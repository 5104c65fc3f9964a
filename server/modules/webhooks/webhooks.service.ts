/**
 * Webhook subscriptions (admin only): CRUD with the plan's limit, the signing secret shown only by create
 * and rotate, the delivery history, and the synchronous `ping` of the test endpoint. Every URL is checked
 * by the shared outbound-safety layer at creation and change; the test ping is checked again when sent.
 */

import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { PingEvent } from '../../../contract/webhook-events';
import type {
  CreateWebhookBody,
  UpdateWebhookBody,
  Webhook,
  WebhookDeliveriesQuery,
  WebhookDelivery,
  WebhookEventType,
} from '../../../contract/webhooks.contract';
import type { ServerContext } from '../../context';
import { assertOneWay, decodeCursor, encodeCursor, isPostgresTime } from '../../cursors';
import type { Db } from '../../db/connection';
import { badRequest, HttpError, isForeignKeyViolation, notFound } from '../../errors';
import { assertAllowedUrl, type OutboundPolicy, postJson } from '../../net/outbound';
import type { Principal } from '../../principal';
import { recordActivity, recordCreate, recordDelete, recordUpdate } from '../activity/activity.service';
import { assertLimitLocked } from '../identity/limit-check';
import { atVersion, given, orNotFound } from '../shared/results';
import { first } from '../shared/rows';
import { commitTransaction } from '../writes/writes';
import { type DeliveryRow, insertDelivery, listDeliveries } from './deliveries.repo';
import { newWebhookSecret, webhookHeaders } from './signing';
import * as repo from './webhooks.repo';

const toDto = (row: repo.WebhookRow): z.infer<typeof Webhook> => ({
  id: row.id,
  url: row.url,
  description: row.description,
  event_types: row.eventTypes as WebhookEventType[],
  is_active: row.isActive,
  failure_count: row.failureCount,
  created_at: row.createdAt.toISOString(),
});

const deliveryDto = (row: DeliveryRow): z.infer<typeof WebhookDelivery> => ({
  id: row.id,
  event_type: row.eventType as WebhookEventType,
  response_status: row.responseStatus,
  duration_ms: row.durationMs,
  attempt: row.attempt,
  delivered_at: row.deliveredAt.toISOString(),
});

/** What an activity entry records of a subscription: never the secret, nor the counters the worker moves. */
const activityFields = (row: repo.WebhookRow) => ({
  url: row.url,
  description: row.description,
  event_types: row.eventTypes,
  is_active: row.isActive,
});

/** The operator's allow list and the (injectable) resolver: the only inputs of the outbound checks. */
const outboundPolicy = (context: ServerContext): OutboundPolicy => ({
  allowCidrs: context.config.outboundAllowCidrs,
  resolveHost: context.resolveHost,
});

export async function listWebhooks(context: ServerContext, caller: Principal) {
  return (await repo.list(context.db, caller.orgId)).map(toDto);
}

/** The subscription locked, then its `If-Match` checked against its representation (412 when it moved on). */
const lockedAt = async (tx: Db, orgId: string, id: string, ifMatch: string | undefined) =>
  atVersion(await repo.getForUpdate(tx, orgId, id), 'Webhook', ifMatch, toDto);

export async function getWebhook(context: ServerContext, caller: Principal, id: string) {
  return toDto(orNotFound(await repo.get(context.db, caller.orgId, id), 'Webhook'));
}

export async function createWebhook(
  context: ServerContext,
  caller: Principal,
  input: z.infer<typeof CreateWebhookBody>,
) {
  // The URL is part of the body's validation (400), so it is checked before the plan limit (402).
  await assertAllowedUrl(input.url, 'url', outboundPolicy(context));
  return commitTransaction(context.db, async (tx) => {
    await assertLimitLocked(tx, caller, 'webhooks', () => repo.countInOrg(tx, caller.orgId));
    const row = await repo.insert(tx, caller.orgId, {
      url: input.url,
      description: input.description ?? '',
      eventTypes: input.event_types,
      secret: newWebhookSecret(),
    });
    await recordCreate(tx, caller, 'webhook', row.id, activityFields(row));
    const { id, url, description, event_types, is_active } = toDto(row);
    return { id, url, secret: row.secret, description, event_types, is_active };
  });
}

export async function updateWebhook(
  context: ServerContext,
  caller: Principal,
  id: string,
  input: z.infer<typeof UpdateWebhookBody>,
  ifMatch?: string,
) {
  // Another organisation's id is a 404 before the URL is looked at (no resolution on its behalf).
  orNotFound(await repo.get(context.db, caller.orgId, id), 'Webhook');
  if (input.url !== undefined) await assertAllowedUrl(input.url, 'url', outboundPolicy(context));
  return commitTransaction(context.db, async (tx) => {
    const before = await lockedAt(tx, caller.orgId, id, ifMatch);
    const values: Partial<repo.WebhookValues> = given({
      url: input.url,
      description: input.description,
      eventTypes: input.event_types,
      isActive: input.is_active,
    });
    // Switching a deactivated subscription back on starts its failure count afresh.
    if (input.is_active === true && !before.isActive) values.failureCount = 0;
    const row = first(await repo.update(tx, caller.orgId, id, values), 'the locked webhook, updated');
    await recordUpdate(tx, caller, 'webhook', id, activityFields(before), activityFields(row));
    return toDto(row);
  });
}

export async function deleteWebhook(context: ServerContext, caller: Principal, id: string, ifMatch?: string) {
  await commitTransaction(context.db, async (tx) => {
    if (ifMatch !== undefined) await lockedAt(tx, caller.orgId, id, ifMatch);
    const row = orNotFound(await repo.remove(tx, caller.orgId, id), 'Webhook');
    await recordDelete(tx, caller, 'webhook', id, activityFields(row));
  });
}

export async function listWebhookDeliveries(
  context: ServerContext,
  caller: Principal,
  id: string,
  query: z.infer<typeof WebhookDeliveriesQuery>,
) {
  orNotFound(await repo.get(context.db, caller.orgId, id), 'Webhook');
  assertOneWay(query.cursor, query.offset);
  const list = `the deliveries of webhook ${id.toLowerCase()}`;
  let start: Parameters<typeof listDeliveries>[4] = { offset: query.offset };
  if (query.cursor !== undefined) {
    const [at, attempt, after] = decodeCursor(list, query.cursor, 3);
    const uuid = typeof after === 'string' && /^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/.test(after);
    // Within the columns' types, so that the comparison cannot fail the statement (attempt is an integer).
    const attemptOk = Number.isSafeInteger(attempt) && (attempt as number) >= 0 && (attempt as number) <= 2 ** 31 - 1;
    if (!isPostgresTime(at) || !attemptOk || !uuid) {
      throw badRequest(`cursor: not a cursor of ${list}`);
    }
    start = { after: { at, attempt: attempt as number, id: after as string } };
  }
  // One more than the page, to know whether any follow.
  const read = await listDeliveries(context.db, caller.orgId, id, query.limit + 1, start);
  const page = read.slice(0, query.limit);
  const last = page.at(-1);
  const next =
    read.length > query.limit && last ? encodeCursor(list, [last.at, last.delivery.attempt, last.delivery.id]) : null;
  return { deliveries: page.map((r) => deliveryDto(r.delivery)), next };
}

/** The signing secret is replaced in one statement: the next attempt, ping or event, is signed with the new one. */
export async function rotateWebhookSecret(context: ServerContext, caller: Principal, id: string) {
  return commitTransaction(context.db, async (tx) => {
    orNotFound(await repo.getForUpdate(tx, caller.orgId, id), 'Webhook');
    const row = first(
      await repo.update(tx, caller.orgId, id, { secret: newWebhookSecret() }),
      'the locked webhook, updated',
    );
    await recordActivity(tx, caller, { action: 'rotate_secret', resourceType: 'webhook', resourceId: id, changes: {} });
    return { secret: row.secret };
  });
}

const isSuccess = (status: number | null): status is number => status !== null && status >= 200 && status < 300;

/**
 * Sends a signed `ping` now (also to a switched-off subscription: that is how one is checked before it is
 * switched back on), records the attempt, and answers it; 502 `webhook_failed` when the endpoint is refused,
 * unreachable or answers non-2xx. The remote body is never read into the answer. A ping does not move
 * `failure_count`, which counts event deliveries.
 */
export async function testWebhook(context: ServerContext, caller: Principal, id: string) {
  const webhook = orNotFound(await repo.get(context.db, caller.orgId, id), 'Webhook');
  const sentAt = context.now();
  const eventId = randomUUID();
  const ping: PingEvent = { type: 'ping', timestamp: sentAt.toISOString(), data: { webhook_id: webhook.id } };
  const body = JSON.stringify(ping);
  const headers = webhookHeaders(webhook.secret, eventId, Math.floor(sentAt.getTime() / 1000), body);
  const result = await postJson(webhook.url, body, headers, outboundPolicy(context));
  await recordPing(context, {
    orgId: caller.orgId,
    webhookId: webhook.id,
    eventId,
    eventType: 'ping',
    attempt: 1,
    responseStatus: result.status,
    durationMs: result.durationMs,
    deliveredAt: sentAt,
  });
  if (!isSuccess(result.status)) {
    const why = result.status === null ? (result.error ?? 'no response') : `the endpoint answered ${result.status}`;
    throw new HttpError(502, 'webhook_failed', `The test event was not accepted: ${why}`);
  }
  return { event_type: 'ping' as const, response_status: result.status, duration_ms: result.durationMs, attempt: 1 };
}

/** A subscription deleted while its ping was on the way has no history left to add to: 404. */
async function recordPing(context: ServerContext, values: Parameters<typeof insertDelivery>[1]) {
  try {
    await insertDelivery(context.db, values);
  } catch (error) {
    if (isForeignKeyViolation(error)) throw notFound('Webhook');
    throw error;
  }
}
