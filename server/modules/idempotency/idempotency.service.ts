/**
 * Idempotency-Key of POSTs, as Stripe has it: for 24 hours a request with the same key and the same
 * method, path and body gets the first request's answer again, without being carried out twice; the
 * same key with another request is a 422; while the first is still running, a 409.
 *
 * The answer is stored right after the request's own transaction commits, not inside it, so there is a
 * window (the time to write one row) in which a server that dies leaves the change made and its answer
 * unknown: the key's claim is then taken over by a retry after ABANDONED_AFTER_MS and the request runs
 * again. Answers of 5xx are not kept (the claim is dropped), so a retry after a server error runs again.
 */
import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_TTL_HOURS } from '../../../contract/common/idempotency';
import type { Db } from '../../db/connection';
import { HttpError } from '../../errors';
import { runPeriodically } from '../shared/periodic';
import * as repo from './idempotency.repo';

/** A claim without an answer this old belongs to a request whose server died. */
export const ABANDONED_AFTER_MS = 60_000;
const TTL_MS = IDEMPOTENCY_KEY_TTL_HOURS * 3600_000;

/** What a request with a key should do: run (it holds the claim), or answer with what the first one did. */
export type Decision = { run: true } | { run: false; status: number; json: string };

/** The hash a key is bound to: the method, the path and the JSON body. */
export const requestHash = (method: string, path: string, body: unknown) =>
  createHash('sha256')
    .update(`${method} ${path}\n${JSON.stringify(body ?? null)}`)
    .digest('base64url');

export async function begin(db: Db, orgId: string, key: string, hash: string, now: Date): Promise<Decision> {
  const state = await repo.claim(
    db,
    { orgId, key, requestHash: hash },
    {
      now,
      abandonedBefore: new Date(now.getTime() - ABANDONED_AFTER_MS),
      expiredBefore: new Date(now.getTime() - TTL_MS),
    },
  );
  if (state.claimed) return { run: true };
  if (state.requestHash !== hash) {
    throw new HttpError(
      422,
      'idempotency_mismatch',
      'Idempotency-Key was used with another request (method, path or body); use a new key for a new request',
    );
  }
  if (state.status === null) {
    throw new HttpError(
      409,
      'idempotency_in_flight',
      'A request with this Idempotency-Key is still running; retry it once that one has answered',
      { 'Retry-After': '1' },
    );
  }
  return { run: false, status: state.status, json: state.response ?? 'null' };
}

/**
 * Keeps the answer of a request that ran, as the JSON text sent (so a replay is exact); a 5xx drops the claim
 * instead, so a retry runs again, and so does an answer that cannot be stored (a retry then runs again rather
 * than waiting out the claim).
 */
export async function finish(db: Db, orgId: string, key: string, status: number, json: string) {
  if (status < 500) {
    try {
      await repo.saveAnswer(db, orgId, key, status, json);
      return;
    } catch (error) {
      await repo.dropClaim(db, orgId, key);
      throw error;
    }
  }
  await repo.dropClaim(db, orgId, key);
}

/** Deletes keys past their 24 hours; answers how many. */
export const purgeExpiredKeys = (db: Db, now: Date) => repo.purgeCreatedBefore(db, new Date(now.getTime() - TTL_MS));

/** Purges expired keys at start and then hourly; answers a stop function. */
export const startIdempotencyPurge = (db: Db, log: (message: string, error: unknown) => void) =>
  runPeriodically('idempotency key purge', 3600_000, () => purgeExpiredKeys(db, new Date()), log);

/** The idempotency keys of a database, as the HTTP middleware uses them. */
export const idempotencyKeys = (db: Db) => ({
  requestHash,
  begin: (orgId: string, key: string, hash: string, now: Date) => begin(db, orgId, key, hash, now),
  finish: (orgId: string, key: string, status: number, json: string) => finish(db, orgId, key, status, json),
});
