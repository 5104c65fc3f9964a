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
  /** The answer's body as JSON text, without the secret it showed. */
  response: string | null;
  /** The secret the answer showed, sealed (sealing.ts). */
  sealedSecret: string | null;
}

/** Whose a key is, and the key. */
export interface KeyId {
  orgId: string;
  userId: string;
  key: string;
}

// A lost claim or answer only lets a retry run again (see the service), so these commits need not wait
// for the disk.
const asyncCommit = prepared<unknown>('idempotency_async_commit', 'SET LOCAL synchronous_commit TO off');

/**
 * Claims the key for a request, in one statement: a new key; an expired one (created before `expiredBefore`),
 * which starts afresh; or an unfinished claim of the same request older than `abandonedBefore` (its server
 * died). Otherwise answers the row as it is.
 */
const claimOrRead = prepared<
  KeyState,
  KeyId & { requestHash: string; now: Date; abandonedBefore: Date; expiredBefore: Date }
>(
  'idempotency_claim',
  `WITH claimed AS (
     INSERT INTO idempotency_keys AS k (org_id, user_id, key, request_hash, locked_at, created_at)
     VALUES (:orgId, :userId, :key, :requestHash, :now, :now)
     ON CONFLICT (org_id, user_id, key) DO UPDATE
       SET request_hash = excluded.request_hash, locked_at = excluded.locked_at, created_at = excluded.created_at,
         status = NULL, response = NULL, sealed_secret = NULL
       WHERE k.created_at < :expiredBefore
         OR (k.status IS NULL AND k.locked_at < :abandonedBefore AND k.request_hash = excluded.request_hash)
     RETURNING true AS claimed, request_hash AS "requestHash", status, response, sealed_secret AS "sealedSecret")
   SELECT * FROM claimed
   UNION ALL
   SELECT false, request_hash, status, response, sealed_secret FROM idempotency_keys
   WHERE org_id = :orgId AND user_id = :userId AND key = :key AND NOT EXISTS (SELECT 1 FROM claimed)`,
);

export async function claim(
  db: Db,
  id: KeyId,
  requestHash: string,
  at: { now: Date; abandonedBefore: Date; expiredBefore: Date },
): Promise<KeyState> {
  const {
    claim: [state],
  } = await pipeline(db, {
    asyncCommit: asyncCommit.step(),
    claim: claimOrRead.step({ ...id, requestHash, ...at }),
  });
  // The statement answers the claimed row or the existing one: a row always comes back.
  if (!state) throw new Error(`idempotency key ${id.key}: the claim answered no row`);
  return state;
}

/** The request holding the claim keeps its answer (one its unit of work kept is replaced by the one sent). */
const complete = prepared<unknown, KeyId & Answer>(
  'idempotency_complete',
  `UPDATE idempotency_keys SET status = :status, response = :json, sealed_secret = :sealedSecret
   WHERE org_id = :orgId AND user_id = :userId AND key = :key`,
);
const release = prepared<unknown, KeyId>(
  'idempotency_release',
  'DELETE FROM idempotency_keys WHERE org_id = :orgId AND user_id = :userId AND key = :key AND status IS NULL',
);

/** A stored answer: its JSON text (exact past 2^53) without its secret, and the secret sealed. */
export interface Answer {
  status: number;
  json: string;
  sealedSecret: string | null;
}

/** The statement storing the answer of the request that holds the claim, for the change's own transaction. */
export const answerStep = (id: KeyId, answer: Answer) => complete.step({ ...id, ...answer });

/** Stores the answer of the request that holds the claim, after the change (when it was not kept with it). */
export async function saveAnswer(db: Db, id: KeyId, answer: Answer) {
  await pipeline(db, { asyncCommit: asyncCommit.step(), answer: answerStep(id, answer) });
}

/** Drops an unfinished claim, so a retry runs the request again. */
export async function dropClaim(db: Db, id: KeyId) {
  await pipeline(db, { asyncCommit: asyncCommit.step(), release: release.step(id) });
}

export async function purgeCreatedBefore(db: Db, before: Date): Promise<number> {
  return (await db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, before)).returning()).length;
}
