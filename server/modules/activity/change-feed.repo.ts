/**
 * The SQL of the change feed (migration 0020): activity entries ordered by their transaction's commit number,
 * then by id. A commit number is final only up to the horizon, which `horizon` reads.
 */
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';
import { first } from '../shared/rows';

/** A change's place in the feed: its commit number and its entry's id. */
export interface FeedPosition {
  seq: number;
  id: number;
}

const horizonOf = prepared<{ horizon: string }, { orgId: string }>(
  'change_feed_horizon',
  'SELECT change_horizon(:orgId)::text AS horizon',
  // It waits for the commits in flight to end: never on the connections the other reads share.
  { waits: true },
);

/**
 * The commit number up to which the organisation's feed is final: every transaction that took a number up to it
 * has ended, and none will take one (it waits for those committing now, holding their next ones back that long).
 */
export const horizon = async (db: Db, orgId: string) =>
  Number(first(await horizonOf(db, { orgId }), 'the change horizon').horizon);

export interface ChangeRow {
  seq: string;
  id: string;
  user_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string | null;
  changes: Record<string, [unknown, unknown]>;
  created_at: Date;
}

const pageAfter = prepared<
  ChangeRow,
  { orgId: string; seq: number; id: number; horizon: number; cutoff: string; limit: number }
>(
  'change_feed_page',
  `SELECT c.seq::text AS seq, a.id::text AS id, a.user_id, a.action, a.resource_type, a.resource_id, a.changes,
          a.created_at
   FROM change_commits c
   JOIN activity a ON a.xid = c.xid AND a.org_id = c.org_id
   WHERE c.org_id = :orgId AND c.seq >= :seq::bigint AND c.seq <= :horizon::bigint
     AND (c.seq > :seq::bigint OR a.id > :id::bigint)
     AND c.committed_at >= :cutoff::timestamptz
   ORDER BY c.seq, a.id
   LIMIT :limit`,
);

/** The changes after `position` up to `horizon`, those of transactions since `cutoff` (retention), in feed order. */
export const page = (
  db: Db,
  orgId: string,
  position: FeedPosition,
  horizon: number,
  cutoff: Date | null,
  limit: number,
) =>
  pageAfter(db, {
    orgId,
    seq: position.seq,
    id: position.id,
    horizon,
    cutoff: cutoff?.toISOString() ?? '-infinity',
    limit,
  });

const expiryOf = prepared<
  { floor: string | null; expired: boolean | null },
  { orgId: string; seq: number; cutoff: string }
>(
  'change_feed_expiry',
  `SELECT (SELECT f.seq FROM change_floors f WHERE f.org_id = :orgId)::text AS floor,
          (SELECT c.committed_at < :cutoff::timestamptz FROM change_commits c
           WHERE c.org_id = :orgId AND c.seq >= :seq::bigint ORDER BY c.seq LIMIT 1) AS expired`,
);

/**
 * Whether changes from commit `seq` on (the first a cursor has not wholly seen) are no longer kept: the purge
 * removed that commit or later ones, or the first commit from it on is older than `cutoff` (commits are numbered in
 * nearly the order of their times: the first one a cursor has not seen is the oldest).
 */
export async function isExpiredFrom(db: Db, orgId: string, seq: number, cutoff: Date | null) {
  const row = first(
    await expiryOf(db, { orgId, seq, cutoff: cutoff?.toISOString() ?? '-infinity' }),
    'the change feed’s floor',
  );
  return (row.floor !== null && Number(row.floor) >= seq) || row.expired === true;
}
