/**
 * The activity (audit) log. Every change made through the API writes entries with `recordActivity` /
 * `recordActivities` inside the transaction of the change, so an entry exists exactly when the change
 * does. Reads never show entries older than the plan's retention (`activity_retention_days`), and
 * `purgeExpiredActivity` deletes them periodically.
 */
import type { z } from 'zod';
import {
  ACTIVITY_EXPORT_MAX_ROWS,
  type ActivityEntry,
  type ExportActivityQuery,
  type ListActivityQuery,
} from '../../../contract/activity.contract';
import { assertOneWay, decodeCursor, encodeCursor, isPostgresTime } from '../../cursors';
import type { Db } from '../../db/connection';
import { pipeline, type Step } from '../../db/pipeline';
import { badRequest } from '../../errors';
import type { Principal } from '../../principal';
import { effectiveLimits, PLAN_LIMITS, PLANS } from '../plans/limits';
import { csvStream } from '../shared/csv';
import { runPeriodically } from '../shared/periodic';
import { postgresTime } from '../shared/times';
import {
  type ActivityRecord,
  type Changes,
  created,
  deleted,
  type Fields,
  isEmpty,
  type ResourceType,
  updated,
} from './activity.changes';
import * as repo from './activity.repo';
import { eventSteps } from './outbox';

export type { ActivityRecord, ResourceType } from './activity.changes';

/** Who made a change: the organisation it belongs to and the user (null for the system). */
export type Actor = { orgId: string; userId: string | null };

/** Writes one entry; call it with the transaction that makes the change. */
export async function recordActivity(tx: Db, caller: Actor, entry: ActivityRecord) {
  await recordActivities(tx, caller, [entry]);
}

/**
 * The statements writing these entries and the webhook events they stand for (the outbox,
 * outbox.ts), as steps of the change's own pipeline. With `existingIn`, only
 * for the objects the steps before them created (a write given more ids than it may use).
 */
export async function activitySteps(
  db: Db,
  caller: Actor,
  entries: ActivityRecord[],
  existingIn?: repo.ExistingIn,
): Promise<Step<unknown>[]> {
  if (entries.length === 0) return [];
  return [
    repo.insertStep(caller.orgId, caller.userId, entries, existingIn),
    ...(await eventSteps(db, caller.orgId, entries, existingIn)),
  ];
}

/**
 * Writes one entry per object of a batch, cascade or import, in the transaction of the change, and the
 * webhook events those entries stand for: one round trip.
 */
export async function recordActivities(tx: Db, caller: Actor, entries: ActivityRecord[]) {
  const steps = await activitySteps(tx, caller, entries);
  if (steps.length > 0) await pipeline(tx, { activity: steps });
}

/** A `create` entry: `[null, value]` for each field of the new object that holds a value. */
export const recordCreate = (tx: Db, caller: Actor, resourceType: ResourceType, id: string, fields: Fields) =>
  recordActivity(tx, caller, { action: 'create', resourceType, resourceId: id, changes: created(fields) });

/** One entry per object an allocation, a batch or an import created, with its fields. */
export const recordCreatedMany = <Row extends { id: string }>(
  tx: Db,
  caller: Actor,
  action: 'create' | 'batch_create' | 'import',
  resourceType: ResourceType,
  rows: Row[],
  fields: (row: Row) => Fields,
) =>
  recordActivities(
    tx,
    caller,
    rows.map((row) => ({ action, resourceType, resourceId: row.id, changes: created(fields(row)) })),
  );

/** An `update` entry with the fields whose value changed; nothing when none did. */
export async function recordUpdate(
  tx: Db,
  caller: Actor,
  resourceType: ResourceType,
  id: string,
  before: Fields,
  after: Fields,
) {
  const changes = updated(before, after);
  if (!isEmpty(changes)) await recordActivity(tx, caller, { action: 'update', resourceType, resourceId: id, changes });
}

/** A `delete` entry: `[value, null]` for each field the object held, plus `extra` (e.g. what the cascade removed). */
export const recordDelete = (
  tx: Db,
  caller: Actor,
  resourceType: ResourceType,
  id: string,
  fields: Fields,
  extra: Changes = {},
) =>
  recordActivity(tx, caller, {
    action: 'delete',
    resourceType,
    resourceId: id,
    changes: { ...deleted(fields), ...extra },
  });

const DAY_MS = 24 * 60 * 60 * 1000;

/** The oldest moment the caller's plan still shows, or null when its retention is unlimited. */
export function retentionCutoff(caller: Principal, now: Date): Date | null {
  const days = effectiveLimits(caller.plan, caller.limitOverrides).activity_retention_days;
  return days === null ? null : new Date(now.getTime() - days * DAY_MS);
}

function filterOf(caller: Principal, now: Date, query: z.infer<typeof ExportActivityQuery>): repo.ActivityFilter {
  const since = query.since === undefined ? undefined : new Date(postgresTime('since', query.since));
  const until = query.until === undefined ? undefined : new Date(postgresTime('until', query.until));
  if (since && until && since > until) throw badRequest('since: must be at or before until');
  return {
    orgId: caller.orgId,
    cutoff: retentionCutoff(caller, now),
    action: query.action,
    resourceType: query.resource_type,
    userId: query.user_id,
    since,
    until,
  };
}

const toDto = (row: repo.ActivityRow): z.infer<typeof ActivityEntry> => ({
  id: row.id,
  user_id: row.userId,
  action: row.action,
  resource_type: row.resourceType,
  resource_id: row.resourceId,
  changes: row.changes,
  created_at: row.createdAt.toISOString(),
});

const ACTIVITY_LIST = 'the activity log';

/**
 * A page of the log, by offset or after a cursor (which reads one entry more, to know whether any follow), and
 * the cursor of the next page (null on the last).
 */
export async function listActivity(db: Db, caller: Principal, now: Date, query: z.infer<typeof ListActivityQuery>) {
  assertOneWay(query.cursor, query.offset);
  const filter = filterOf(caller, now, query);
  const total = await repo.countMatching(db, filter);
  let read: Awaited<ReturnType<typeof repo.page>>;
  let more: boolean;
  if (query.cursor !== undefined) {
    const [at, id] = decodeCursor(ACTIVITY_LIST, query.cursor, 2);
    if (!isPostgresTime(at) || !Number.isSafeInteger(id)) {
      throw badRequest(`cursor: not a cursor of ${ACTIVITY_LIST}`);
    }
    read = await repo.page(db, filter, query.limit + 1, { after: { at, id: id as number } });
    more = read.length > query.limit;
    read = read.slice(0, query.limit);
  } else {
    // An offset at or past the end is an empty page, never sent to the database.
    read = query.offset < total ? await repo.page(db, filter, query.limit, { offset: query.offset }) : [];
    more = query.offset + read.length < total;
  }
  const rows = read.map((r) => r.entry);
  const userIds = [...new Set(rows.flatMap((r) => (r.userId ? [r.userId] : [])))];
  const users = Object.fromEntries((await repo.emailsOf(db, userIds)).map((u) => [u.id, u.email]));
  const last = read.at(-1);
  const next = more && last ? encodeCursor(ACTIVITY_LIST, [last.at, last.entry.id]) : null;
  return { list: { entries: rows.map(toDto), total, users }, next };
}

export async function listActivityFilters(db: Db, caller: Principal, now: Date) {
  const filter: repo.ActivityFilter = { orgId: caller.orgId, cutoff: retentionCutoff(caller, now) };
  return {
    actions: await repo.distinctActions(db, filter),
    resource_types: await repo.distinctResourceTypes(db, filter),
  };
}

export const CSV_COLUMNS = [
  'id',
  'created_at',
  'user_id',
  'user_email',
  'action',
  'resource_type',
  'resource_id',
  'changes',
] as const;

/** Entries read per query of an export. */
const EXPORT_PAGE = 1000;

/**
 * The newest matching entries (at most ACTIVITY_EXPORT_MAX_ROWS) as CSV with a header row, streamed in
 * pages through the one CSV writer of every export (formulas neutralised, CRLF line ends).
 */
export function exportActivity(db: Db, caller: Principal, now: Date, query: z.infer<typeof ExportActivityQuery>) {
  const filter = filterOf(caller, now, query);
  type Row = Awaited<ReturnType<typeof repo.exportPage>>[number];
  return csvStream<Row>({
    header: CSV_COLUMNS,
    pageSize: EXPORT_PAGE,
    max: ACTIVITY_EXPORT_MAX_ROWS,
    page: (last, limit) => repo.exportPage(db, filter, last && { at: last.at, id: last.entry.id }, limit),
    row: ({ entry, userEmail }) => [
      entry.id,
      entry.createdAt.toISOString(),
      entry.userId,
      userEmail,
      entry.action,
      entry.resourceType,
      entry.resourceId,
      JSON.stringify(entry.changes),
    ],
  });
}

/** Deletes every entry past its organisation's retention at `now`; answers how many. */
export function purgeExpiredActivity(db: Db, now: Date): Promise<number> {
  const planDays = Object.fromEntries(PLANS.map((plan) => [plan, PLAN_LIMITS[plan].activity_retention_days]));
  return repo.purgeExpired(db, now, planDays);
}

export const ACTIVITY_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** Runs the purge now and then every hour, without keeping the process alive; answers a stop function. */
export const startActivityPurge = (
  db: Db,
  now: () => Date = () => new Date(),
  log: (message: string, error: unknown) => void = console.error,
): (() => void) =>
  runPeriodically('activity purge', ACTIVITY_PURGE_INTERVAL_MS, () => purgeExpiredActivity(db, now()), log);
