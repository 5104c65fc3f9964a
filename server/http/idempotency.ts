import type { AppRoute } from '@ts-rest/core';
import type { RequestHandler } from 'express';
import { routeMeta } from '../../contract/common/meta';
import { badRequest, HttpError } from '../errors';
import { jsonText } from '../json';
import { sendJsonText } from './json';

/** Whose a key is: keys are per user (two members' keys never meet), in their organisation. */
export interface KeyOwner {
  orgId: string;
  userId: string;
}

/** A stored answer: its JSON text without the secret, and the secret a replay puts back into `secretField`. */
export interface StoredAnswer {
  status: number;
  json: string;
  /** The secret, when the answer carried one (null when it is sealed under another server key). */
  secret?: string | null;
}

/** What the middleware needs of the idempotency module (app.ts passes it in). */
export interface IdempotencyKeys {
  /** The hash a key is bound to: method, path and the body's bytes. */
  requestHash(method: string, path: string, body: Buffer | undefined): string;
  /** Claims the key for this request, or answers what the first request with it answered (409/422 thrown). */
  begin(
    owner: KeyOwner,
    key: string,
    hash: string,
    now: Date,
  ): Promise<{ run: true } | ({ run: false } & StoredAnswer)>;
  /**
   * Keeps the answer of the request holding the claim (drops the claim for a 5xx): the JSON text without its
   * secret, and the secret apart (sealed, never at rest in clear).
   */
  finish(owner: KeyOwner, key: string, answer: StoredAnswer): Promise<void>;
}

const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on the POSTs the contract marks idempotent, after authentication, rate limits and body
 * parsing (so it binds the key to the body received): a request that holds the key's claim runs, and its JSON
 * answer is stored before it is sent; a replay answers the stored one with `Idempotent-Replayed: true`.
 */
export function idempotency(keys: IdempotencyKeys, now: () => Date, log: (message: string, error: unknown) => void) {
  const handler: RequestHandler = async (req, res, next) => {
    const key = req.get('idempotency-key');
    const meta = routeMeta(req.tsRestRoute as AppRoute);
    if (key === undefined || !req.auth || !meta.idempotent) return next();
    if (!VALID_KEY.test(key))
      return next(badRequest('headers: idempotency-key must be 1 to 255 visible ASCII characters'));
    const owner = { orgId: req.auth.orgId, userId: req.auth.userId };
    try {
      const decision = await keys.begin(owner, key, keys.requestHash(req.method, req.path, req.rawBody), now());
      if (!decision.run) {
        // The stored text itself, so a replay is the same bytes (exact counts included); an answer that showed
        // a secret gets it back (these answers hold no count that JSON.parse could round).
        const secret = decision.secret;
        const body =
          secret !== undefined && meta.secretField ? withSecret(decision.json, meta.secretField, secret) : null;
        res.set('Idempotent-Replayed', 'true').status(decision.status);
        if (body === null) sendJsonText(res, decision.json);
        else res.json(body);
        return;
      }
    } catch (error) {
      return next(error);
    }
    let kept = false;
    res.json = (body: unknown) => {
      kept = true;
      const json = jsonText(body);
      const secret = secretOf(body, meta.secretField);
      const stored = secret === undefined ? json : jsonText(withoutSecret(body, meta.secretField));
      keys.finish(owner, key, { status: res.statusCode, json: stored ?? 'null', secret }).then(
        () => sendJsonText(res, json),
        (error) => {
          log('storing an idempotent answer failed', error);
          sendJsonText(res, json);
        },
      );
      return res;
    };
    // An answer that is not JSON is not kept: the claim goes, and a retry runs again.
    res.on('finish', () => {
      if (!kept)
        keys
          .finish(owner, key, { status: 500, json: 'null' })
          .catch((error) => log('dropping an idempotency claim failed', error));
    });
    next();
  };
  return handler;
}

type Body = Record<string, unknown>;
const isBody = (body: unknown): body is Body => typeof body === 'object' && body !== null && !Array.isArray(body);

/** The secret an answer shows in `field` (the route's `secretField`), if it shows one. */
function secretOf(body: unknown, field: string | undefined): string | undefined {
  const value = field && isBody(body) ? body[field] : undefined;
  return typeof value === 'string' ? value : undefined;
}

const withoutSecret = (body: unknown, field: string | undefined) =>
  isBody(body) && field ? { ...body, [field]: null } : body;

/** The stored answer with its secret back; 422 when it cannot be opened (sealed under another server key). */
function withSecret(json: string, field: string, secret: string | null): Body {
  const body: unknown = JSON.parse(json);
  if (!isBody(body)) throw new Error('an answer with a secret is a JSON object');
  if (secret === null) {
    const what = typeof body.id === 'string' ? ` (${body.id})` : '';
    throw new HttpError(
      422,
      'idempotency_secret_unavailable',
      `The first request with this Idempotency-Key succeeded${what}, but the secret it showed cannot be shown ` +
        'again (it was sealed under another server key); if it was lost, revoke or rotate it and make another',
    );
  }
  return { ...body, [field]: secret };
}
