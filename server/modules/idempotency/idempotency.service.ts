/**
 * Idempotency-Key of POSTs, as Stripe has it: for 24 hours a request with the same key and the same
 * method, path and body gets the first request's answer again, without being carried out twice; the
 * same key with another request is a 422; while the first is still running, a 409.
 *
 * Exactly once: a write's unit of work keeps the answer in the change's own transaction (`answered`,
 * `keepAnswer`), so a server that dies right after the commit has stored the answer with the change, and a
 * retry is answered from it. Answers that no change made (errors, and the routes whose work is not one unit)
 * are stored after, before they are sent. A claim left without an answer (the server died before the commit)
 * is taken over by a retry after ABANDONED_AFTER_MS, and the request runs (for the first time). Answers of
 * 5xx are not kept (the claim is dropped), so a retry after a server error runs again.
 *
 * Keys are per user (the credential's user, key or session alike): another member who sends the same key is
 * making a request of their own. A secret the answer shows once (a new API key, a webhook signing secret) is
 * not kept in clear: the answer is stored without it, and the secret sealed with the server's key
 * (sealing.ts), so a replay shows it again; one sealed under another key cannot be (a 422).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_TTL_HOURS } from '../../../contract/common/idempotency';
import type { Db } from '../../db/connection';
import { type Conclusion, pipeline, type Step } from '../../db/pipeline';
import { HttpError } from '../../errors';
import type { IdempotencyKeys, KeyedRequest, KeyOwner, StoredAnswer } from '../../http/idempotency';
import { jsonText } from '../../json';
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

type Body = Record<string, unknown>;
const isBody = (body: unknown): body is Body => typeof body === 'object' && body !== null && !Array.isArray(body);

/** The answer as stored: its JSON text without the secret it shows in `secretField`, and the secret sealed. */
function storedAnswer(sealed: Sealer, request: KeyedRequest, status: number, body: unknown): repo.Answer {
  const field = request.secretField;
  const secret = field && isBody(body) ? body[field] : undefined;
  if (typeof secret !== 'string') return { status, json: jsonText(body) ?? 'null', sealedSecret: null };
  return {
    status,
    json: jsonText({ ...(body as Body), [field as string]: null }) ?? 'null',
    sealedSecret: sealed.seal(secret, scopeOf(request.owner, request.key)),
  };
}

/**
 * Keeps the answer of a request that ran, as the JSON text sent (so a replay is exact); a 5xx drops the claim
 * instead, so a retry runs again, and so does an answer that cannot be stored (a retry then runs again rather
 * than waiting out the claim).
 */
export async function finish(db: Db, sealed: Sealer, request: KeyedRequest, status: number, body: unknown) {
  const id = { ...request.owner, key: request.key };
  if (status < 500) {
    try {
      await repo.saveAnswer(db, id, storedAnswer(sealed, request, status, body));
      return;
    } catch (error) {
      await repo.dropClaim(db, id);
      throw error;
    }
  }
  await repo.dropClaim(db, id);
}

/** The request with a key that is running here, and the sealer of its server. */
const running = new AsyncLocalStorage<{ request: KeyedRequest; sealed: Sealer }>();

/**
 * The statement that keeps `body` as the answer of the running request, when it holds a key: for the
 * transaction of its change, so both commit together. None otherwise.
 */
function answerSteps(body: unknown): Step<unknown>[] {
  const current = running.getStore();
  const status = current?.request.status;
  if (!current || status == null) return [];
  const { request, sealed } = current;
  const answer = storedAnswer(sealed, request, status, body);
  // What the request will send: the middleware stores nothing more when it sends this.
  request.kept = jsonText(body) ?? 'null';
  return [repo.answerStep({ ...request.owner, key: request.key }, answer)];
}

/**
 * A pipeline's conclusion (db/pipeline.ts): the request's success answer, made of the pipeline's results by
 * `answer`; with an Idempotency-Key it commits with the change (without one, the pipeline stays one round trip).
 */
export const answered = <R, T>(answer: (results: R) => T): Conclusion<R, T> =>
  running.getStore()?.request.status == null ? { value: answer } : { value: answer, keep: answerSteps };

/**
 * Keeps `body`, the request's success answer, in the transaction `tx` of its change (with an Idempotency-Key;
 * otherwise nothing), and answers it: the last statement of a write's transaction.
 */
export async function keepAnswer<T>(tx: Db, body: T): Promise<T> {
  const steps = answerSteps(body);
  if (steps.length > 0) await pipeline(tx, { answer: steps });
  return body;
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
    within: (request, run) => running.run({ request, sealed }, run),
    finish: (request, status, body) => finish(db, sealed, request, status, body),
  };
}
