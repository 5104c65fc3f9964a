import { and, asc, count, desc, eq, gte, inArray, lte, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import type { Step } from '../../db/pipeline';
import { prepared } from '../../db/prepared';
import { activity, users } from '../../db/schema';
import { first } from '../shared/rows';

export type ActivityRow = typeof activity.$inferSelect;
export type ActivityInsert = Omit<typeof activity.$inferInsert, 'id' | 'createdAt'>;

/** Which entries of one organisation a read sees: the retention cut-off and the caller's filters. */
export interface ActivityFilter {
  orgId: string;
  /** Entries created before this are past the plan's retention; null keeps everything. */
  cutoff: Date | null;
  action?: string;
  resourceType?: string;
  userId?: string;
  since?: Date;
  until?: Date;
}

/** An entry as written: what happened to which object. */
export type ActivityEntryInsert = Pick<ActivityInsert, 'action' | 'resourceType' | 'resourceId' | 'changes'>;

/**
 * The author as an entry records them: kept from being deleted until the transaction ends (FOR KEY SHARE), or
 * null when removed while the change ran, as ON DELETE SET NULL leaves their older entries (the foreign key
 * would have refused the entry, and the change with it).
 */
const AUTHOR = '(SELECT u.id FROM users u WHERE u.id = :userId::uuid FOR KEY SHARE)';

const insertOne = prepared<
  unknown,
  {
    orgId: string;
    userId: string | null;
    action: string;
    resourceType: string;
    resourceId: string | null | undefined;
    changes: string;
  }
>(
  'activity_insert',
  `INSERT INTO activity (org_id, user_id, action, resource_type, resource_id, changes)
   VALUES (:orgId, ${AUTHOR}, :action, :resourceType, :resourceId, :changes)`,
);

/** The parameters of a list of entries: the entries as JSON. */
type EntryList = { orgId: string; userId: string | null; entries: string };

const insertList = prepared<unknown, EntryList>(
  'activity_insert_list',
  `INSERT INTO activity (org_id, user_id, action, resource_type, resource_id, changes)
   SELECT :orgId, ${AUTHOR}, e.action, e.resource_type, e.resource_id, e.changes
   FROM ROWS FROM (jsonb_to_recordset(:entries::jsonb) AS (action text, resource_type text, resource_id uuid, changes jsonb))
     WITH ORDINALITY AS e(action, resource_type, resource_id, changes, n)
   ORDER BY e.n`,
);

/** The tables whose rows an entry may wait for: written only if its object exists when the step runs. */
export type ExistingIn = 'addresses';

const insertListOfExisting = prepared<unknown, EntryList>(
  'activity_insert_list_of_existing_addresses',
  `INSERT INTO activity (org_id, user_id, action, resource_type, resource_id, changes)
   SELECT :orgId, ${AUTHOR}, e.action, e.resource_type, e.resource_id, e.changes
   FROM ROWS FROM (jsonb_to_recordset(:entries::jsonb) AS (action text, resource_type text, resource_id uuid, changes jsonb))
     WITH ORDINALITY AS e(action, resource_type, resource_id, changes, n)
   WHERE EXISTS (SELECT 1 FROM addresses x WHERE x.id = e.resource_id)
   ORDER BY e.n`,
);

/**
 * The statement writing one author's entries, in order (ids ascending), as a pipeline step. With
 * `existingIn`, only the entries whose object the steps before it created: for a write that may create
 * fewer of the objects than it was given ids for.
 */
export function insertStep(
  orgId: string,
  userId: string | null,
  entries: ActivityEntryInsert[],
  existingIn?: ExistingIn,
): Step<unknown> {
  const [only, ...others] = entries;
  if (only && others.length === 0 && !existingIn) {
    const { action, resourceType, resourceId } = only;
    return insertOne.step({ orgId, userId, action, resourceType, resourceId, changes: JSON.stringify(only.changes) });
  }
  const list = entries.map((e) => ({
    action: e.action,
    resource_type: e.resourceType,
    resource_id: e.resourceId,
    changes: e.changes,
  }));
  return (existingIn ? insertListOfExisting : insertList).step({ orgId, userId, entries: JSON.stringify(list) });
}

function matching(f: ActivityFilter) {
  return and(
    eq(activity.orgId, f.orgId),
    f.cutoff ? gte(activity.createdAt, f.cutoff) : undefined,
    f.action !== undefined ? eq(activity.action, f.action) : undefined,
    f.resourceType !== undefined ? eq(activity.resourceType, f.resourceType) : undefined,
    f.userId !== undefined ? eq(activity.userId, f.userId) : undefined,
    f.since ? gte(activity.createdAt, f.since) : undefined,
    f.until ? lte(activity.createdAt, f.until) : undefined,
  );
}

const newestFirst = [desc(activity.createdAt), desc(activity.id)] as const;

/**
 * A page of the matching entries, newest first, after `offset` entries or after an entry's position (a
 * cursor's, keyset: stable while others write), each with its time as PostgreSQL's text for the next cursor.
 */
export const page = (db: Db, f: ActivityFilter, limit: number, start: { offset: number } | { after: EntryPosition }) =>
  db
    .select({ entry: activity, at: sql<string>`${activity.createdAt}::text` })
    .from(activity)
    .where(and(matching(f), 'after' in start ? after(start.after) : undefined))
    .orderBy(...newestFirst)
    .limit(limit)
    .offset('offset' in start ? start.offset : 0);

export const countMatching = async (db: Db, f: ActivityFilter) =>
  first(await db.select({ n: count() }).from(activity).where(matching(f)), 'a count of activity entries').n;

export const emailsOf = (db: Db, userIds: string[]) =>
  userIds.length === 0
    ? Promise.resolve([])
    : db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, userIds));

export async function distinctActions(db: Db, f: ActivityFilter) {
  const rows = await db
    .selectDistinct({ value: activity.action })
    .from(activity)
    .where(matching(f))
    .orderBy(asc(activity.action));
  return rows.map((r) => r.value);
}

export async function distinctResourceTypes(db: Db, f: ActivityFilter) {
  const rows = await db
    .selectDistinct({ value: activity.resourceType })
    .from(activity)
    .where(matching(f))
    .orderBy(asc(activity.resourceType));
  return rows.map((r) => r.value);
}

/** An entry's place in the newest-first order: its time as PostgreSQL's text (microseconds kept) and its id. */
export interface EntryPosition {
  at: string;
  id: number;
}

/** The entries after `position` in the newest-first order. */
const after = (position: EntryPosition) =>
  sql`(${activity.createdAt}, ${activity.id}) < (${position.at}::timestamptz, ${position.id})`;

/**
 * A page of the matching entries, newest first, with their author's email (null when the user is gone),
 * after `cursor`: the export reads the log page by page as the client takes the file.
 */
export const exportPage = (db: Db, f: ActivityFilter, cursor: EntryPosition | null, limit: number) =>
  db
    .select({ entry: activity, userEmail: users.email, at: sql<string>`${activity.createdAt}::text` })
    .from(activity)
    .leftJoin(users, eq(users.id, activity.userId))
    .where(and(matching(f), cursor ? after(cursor) : undefined))
    .orderBy(...newestFirst)
    .limit(limit);

/** Days an organisation keeps its log: its override, else its plan's figure (`:planDays`); null keeps everything. */
const RETENTION_DAYS = `CASE WHEN o.limit_overrides ? 'activity_retention_days'
    THEN (o.limit_overrides ->> 'activity_retention_days')::float8
    ELSE (:planDays::jsonb ->> o.plan)::float8
  END`;

const expiredPurged = prepared<{ n: number }, { now: string; planDays: string }>(
  'activity_purge_expired',
  `WITH commits AS (
     DELETE FROM change_commits c USING organizations o
     WHERE c.org_id = o.id AND c.committed_at < :now::timestamptz - interval '1 day' * (${RETENTION_DAYS})
     RETURNING c.org_id, c.seq),
   floors AS (
     INSERT INTO change_floors (org_id, seq) SELECT org_id, max(seq) FROM commits GROUP BY org_id
     ON CONFLICT (org_id) DO UPDATE SET seq = greatest(change_floors.seq, excluded.seq)),
   expired AS (
     DELETE FROM activity a USING organizations o
     WHERE a.org_id = o.id AND a.created_at < :now::timestamptz - interval '1 day' * (${RETENTION_DAYS})
     RETURNING 1)
   SELECT count(*)::int AS n FROM expired`,
);

/**
 * Deletes every entry older than its organisation's retention at `now`: the override
 * `activity_retention_days` when the organisation has one (null there = keep forever), else its plan's
 * figure from `planDays`. The change feed's commits go with them, the last one removed kept as the
 * organisation's floor (a cursor before it is expired). Answers how many entries were deleted.
 */
export async function purgeExpired(db: Db, now: Date, planDays: Record<string, number | null>) {
  const rows = await expiredPurged(db, { now: now.toISOString(), planDays: JSON.stringify(planDays) });
  return first(rows, 'a count of the entries purged').n;
}
