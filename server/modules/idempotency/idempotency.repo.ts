import { lt } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { pipeline } from '../../db/pipeline';
import { prepared } from '../../db/prepared';
import { idempotencyKeys } from '../../db/schema';

/** A key's row as a request finds it: claimed now (`claimed`), or as the earlier request left it. */
export interface KeyState {
  claimed: boolean;
  requestHash: string;
  status: number | null;
  /** The answer's body as JSON text. */
  response: string | null;
}

// A lost claim or answer only lets a retry run again (see the service), so these commits need not wait
// for the disk.
const asyncCommit = prepared('idempotency_async_commit', 'SET LOCAL synchronous_commit TO off');

/**
 * Claims the key for a request, in one statement: a new key; an expired one (created before `$6`), which
 * starts afresh; or an unfinished claim of the same request older than `$5` (its server died). Otherwise
 * answers the row as it is.
 */
const claimOrRead = prepared<KeyState>(
  'idempotency_claim',
  `WITH claimed AS (
     INSERT INTO idempotency_keys AS k (org_id, key, request_hash, locked_at, created_at)
     VALUES ($1, $2, $3, $4, $4)
     ON CONFLICT (org_id, key) DO UPDATE
       SET request_hash = excluded.request_hash, locked_at = excluded.locked_at, created_at = excluded.created_at,
         status = NULL, response = NULL
       WHERE k.created_at < $6 OR (k.status IS NULL AND k.locked_at < $5 AND k.request_hash = excluded.request_hash)
     RETURNING true AS claimed, request_hash AS "requestHash", status, response)
   SELECT * FROM claimed
   UNION ALL
   SELECT false, request_hash, status, response FROM idempotency_keys
   WHERE org_id = $1 AND key = $2 AND NOT EXISTS (SELECT 1 FROM claimed)`,
);

export async function claim(
  db: Db,
  key: { orgId: string; key: string; requestHash: string },
  at: { now: Date; abandonedBefore: Date; expiredBefore: Date },
): Promise<KeyState> {
  const [, [state]] = await pipeline(db, [
    asyncCommit.step(),
    claimOrRead.step(key.orgId, key.key, key.requestHash, at.now, at.abandonedBefore, at.expiredBefore),
  ]);
  return state;
}

const complete = prepared(
  'idempotency_complete',
  'UPDATE idempotency_keys SET status = $3, response = $4 WHERE org_id = $1 AND key = $2 AND status IS NULL',
);
const release = prepared(
  'idempotency_release',
  'DELETE FROM idempotency_keys WHERE org_id = $1 AND key = $2 AND status IS NULL',
);

/** Stores the answer (JSON text, kept as sent: exact past 2^53) of the request that holds the claim. */
export async function saveAnswer(db: Db, orgId: string, key: string, status: number, json: string) {
  await pipeline(db, [asyncCommit.step(), complete.step(orgId, key, status, json)]);
}

/** Drops an unfinished claim, so a retry runs the request again. */
export async function dropClaim(db: Db, orgId: string, key: string) {
  await pipeline(db, [asyncCommit.step(), release.step(orgId, key)]);
}

export async function purgeCreatedBefore(db: Db, before: Date): Promise<number> {
  return (await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before)).returning()).length;
}
