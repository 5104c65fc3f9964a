/**
 * The change feed (`GET /changes`): the organisation's activity entries in commit order (migration 0020 says how
 * the order is kept gapless), resumed after a cursor. Kept as long as the activity log.
 */
import type { z } from 'zod';
import { AFTER_NOW, type ChangePage, type ListChangesQuery } from '../../../contract/changes.contract';
import { decodeCursor, encodeCursor } from '../../cursors';
import type { Db } from '../../db/connection';
import { badRequest, HttpError } from '../../errors';
import type { Principal } from '../../principal';
import { operationOf } from './activity.changes';
import { retentionCutoff } from './activity.service';
import * as repo from './change-feed.repo';

const FEED = 'the change feed';

/** An entry id past every entry: a cursor with it has seen its whole commit. */
const WHOLE_COMMIT = Number.MAX_SAFE_INTEGER;

const cursorOf = (position: repo.FeedPosition) => encodeCursor(FEED, [position.seq, position.id]);

const notACursor = () =>
  badRequest(`after: not a cursor of ${FEED}; send a change's cursor or a page's next_cursor (or now)`);

function positionOf(cursor: string): repo.FeedPosition {
  let key: (string | number)[];
  try {
    key = decodeCursor(FEED, cursor, 2);
  } catch {
    throw notACursor();
  }
  const [seq, id] = key;
  const isPosition = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  if (!isPosition(seq) || !isPosition(id)) throw notACursor();
  return { seq, id };
}

const toDto = (row: repo.ChangeRow): z.infer<typeof ChangePage>['changes'][number] => ({
  cursor: cursorOf({ seq: Number(row.seq), id: Number(row.id) }),
  operation: operationOf(row.action, row.changes),
  action: row.action,
  resource_type: row.resource_type,
  resource_id: row.resource_id,
  changes: row.changes,
  activity_id: Number(row.id),
  user_id: row.user_id,
  created_at: new Date(row.created_at).toISOString(),
});

/**
 * The changes after `after` (from the oldest kept without it), at most `limit`, and where to go on from. A cursor
 * older than what is kept is a 410; `after=now` answers only where the feed ends now.
 */
export async function listChanges(
  db: Db,
  caller: Principal,
  now: Date,
  query: z.infer<typeof ListChangesQuery>,
): Promise<z.infer<typeof ChangePage>> {
  const position = query.after === undefined || query.after === AFTER_NOW ? null : positionOf(query.after);
  const horizon = await repo.horizon(db, caller.orgId);
  const end = { seq: horizon, id: WHOLE_COMMIT };
  if (query.after === AFTER_NOW) return { changes: [], next_cursor: cursorOf(end), has_more: false };

  const cutoff = retentionCutoff(caller, now);
  const start = position ?? { seq: 0, id: 0 };
  const rows = await repo.page(db, caller.orgId, start, horizon, cutoff, query.limit + 1);
  // Checked after the page is read: a purge between the two makes this a 410, never a page with a hole.
  const firstUnseen = start.id === WHOLE_COMMIT ? start.seq + 1 : start.seq;
  if (position && (await repo.isExpiredFrom(db, caller.orgId, firstUnseen, cutoff))) {
    throw new HttpError(
      410,
      'cursor_expired',
      `after: the changes after this cursor are no longer kept (the plan keeps ${FEED} as long as the activity log); ` +
        'read the current state again and follow after=now',
    );
  }
  const changes = rows.slice(0, query.limit).map(toDto);
  const hasMore = rows.length > query.limit;
  const last = changes.at(-1);
  const next = hasMore && last ? last.cursor : cursorOf(start.seq > horizon ? start : end);
  return { changes, next_cursor: next, has_more: hasMore };
}
