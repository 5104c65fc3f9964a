/**
 * Idempotency-Key of POSTs, as Stripe has it: for 24 hours a request with the same key and the same
 * method, path and body gets the first request's answer again, without being carried out twice; the
 * same key with another request is a 422; while the first is still running, a 409.
 *
 * The answer is stored right after the request's own transaction commits, not inside it, so there is a
 * window (the time to write one row) in which a server that dies leaves the change made and its answer
 * unknown: the key's claim is then taken over by a retry after ABANDONED_AFTER_MS and the request runs
 * again. Answers of 5xx are not kept (the claim is dropped), so a retry after a server error runs again.
 *
 * Keys are per user (the credential's user, key or session alike): another member who sends the same key is
 * making a request of their own. A secret the answer shows once (a new API key, a webhook signing secret) is
 * not kept in clear: the answer is stored without it, and the secret sealed with the server's key
 * (sealing.ts), so a replay shows it again; one sealed under another key cannot be (a 422).
 */
import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_TTL_HOURS } from '../../../contract/common/idempotency';
import type { Db } from '../../db/connection';
import { HttpError } from '../../errors';
import type { IdempotencyKeys, KeyOwner, StoredAnswer } from '../../http/idempotency';
import { runPeriodically } from '../shared/periodic';
import * as repo from './idempotency.repo';
import { type Sealer, sealer } from './sealing';

/** A claim without an answer this old belongs to a request whose server died. */
export const ABANDONED_AFTER_MS = 60_000;
const TTL_MS = IDEMPOTENCY_KEY_TTL_HOURS * 3600_000;

/** What a request with a key should do: run (it holds the claim), or answer with what the first one did. */
export type Decision = { run: true } | ({ run: false } & StoredAnswer);

/**
 * The hash a key is bound to: the method, the path and the body's bytes as sent (a retry sends the same; the
 * bytes rather than the parsed body, which no serialiser may have to walk: it can be nested deeper than
 * JSON.stringify's stack allows, and is checked only after this).
 */
export const requestHash = (method: string, path: string, body: Buffer | string | undefined) =>
  createHash('sha256')
    .update(`${method} ${path}\n`)
    .update(body ?? '')
    .digest('base64url');

/** A sealed secret opens only for the key it was sealed for. */
const scopeOf = (owner: KeyOwner, key: string) => `${owner.orgId}/${owner.userId}/${key}`;

export async function begin(
  db: Db,
  sealed: Sealer,
  owner: KeyOwner,
  key: string,
  hash: string,
  now: Date,
): Promise<Decision> {
  const state = await repo.claim(db, { ...owner, key }, hash, {
    now,
    abandonedBefore: new Date(now.getTime() - ABANDONED_AFTER_MS),
    expiredBefore: new Date(now.getTime() - TTL_MS),
  });
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
  const secret = state.sealedSecret === null ? undefined : sealed.open(state.sealedSecret, scopeOf(owner, key));
  return { run: false, status: state.status, json: state.response ?? 'null', secret };
}

/**
 * Keeps the answer of a request that ran, as the JSON text sent (so a replay is exact); a 5xx drops the claim
 * instead, so a retry runs again, and so does an answer that cannot be stored (a retry then runs again rather
 * than waiting out the claim).
 */
export async function finish(db: Db, sealed: Sealer, owner: KeyOwner, key: string, answer: StoredAnswer) {
  const id = { ...owner, key };
  if (answer.status < 500) {
    try {
      const sealedSecret = typeof answer.secret === 'string' ? sealed.seal(answer.secret, scopeOf(owner, key)) : null;
      await repo.saveAnswer(db, id, { status: answer.status, json: answer.json, sealedSecret });
      return;
    } catch (error) {
      await repo.dropClaim(db, id);
      throw error;
    }
  }
  await repo.dropClaim(db, id);
}

/** Deletes keys past their 24 hours; answers how many. */
export const purgeExpiredKeys = (db: Db, now: Date) => repo.purgeCreatedBefore(db, new Date(now.getTime() - TTL_MS));

/** Purges expired keys at start and then hourly; answers a stop function. */
export const startIdempotencyPurge = (db: Db, log: (message: string, error: unknown) => void) =>
  runPeriodically('idempotency key purge', 3600_000, () => purgeExpiredKeys(db, new Date()), log);

/** The idempotency keys of a database, as the HTTP middleware uses them; secrets sealed with `serverKey`. */
export function idempotencyKeys(db: Db, serverKey: Buffer): IdempotencyKeys {
  const sealed = sealer(serverKey);
  return {
    requestHash,
    begin: (owner: KeyOwner, key: string, hash: string, now: Date) => begin(db, sealed, owner, key, hash, now),
    finish: (owner: KeyOwner, key: string, answer: StoredAnswer) => finish(db, sealed, owner, key, answer),
  };
}
