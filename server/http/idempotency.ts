import type { AppRoute } from '@ts-rest/core';
import type { RequestHandler } from 'express';
import { routeMeta } from '../../contract/common/meta';
import { badRequest, HttpError } from '../errors';
import { jsonText } from '../json';
import { isDryRunRequest } from './dry-run';
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

/** A request that holds its key's claim, as it runs. */
export interface KeyedRequest {
  owner: KeyOwner;
  key: string;
  /** The route's success status (its only 2xx), which an answer kept by its unit of work is stored with. */
  status: number | null;
  /** The field of the answer that shows a secret once (`RouteMeta.secretField`). */
  secretField?: string;
  /** The JSON text of the answer the request's unit of work kept with its change, as it is to be sent. */
  kept?: string;
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
   * Runs the request that holds the claim, so that the unit of work of its change keeps the answer in the
   * change's own transaction (exactly once, even if the server dies right after the commit).
   */
  within(request: KeyedRequest, run: () => void): void;
  /**
   * Keeps the answer of the request holding the claim when its unit of work did not (drops the claim for a
   * 5xx): the JSON text without its secret, and the secret apart (sealed, never at rest in clear).
   */
  finish(request: KeyedRequest, status: number, body: unknown): Promise<void>;
}

/** The route's only 2xx status, or null when it has several. */
function successStatus(route: AppRoute): number | null {
  const statuses = Object.keys(route.responses)
    .map(Number)
    .filter((status) => status >= 200 && status < 300);
  return statuses.length === 1 ? (statuses[0] ?? null) : null;
}

const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on the POSTs the contract marks idempotent, after authentication, rate limits and body
 * parsing (so it binds the key to the body received): a request that holds the key's claim runs, and its JSON
 * answer is stored with its change (by the change's unit of work) or else before it is sent; a replay answers
 * the stored one with `Idempotent-Replayed: true`.
 */
export function idempotency(keys: IdempotencyKeys, now: () => Date, log: (message: string, error: unknown) => void) {
  const handler: RequestHandler = async (req, res, next) => {
    const key = req.get('idempotency-key');
    const meta = routeMeta(req.tsRestRoute as AppRoute);
    // A dry run writes nothing, its key included (dry-run.ts).
    if (key === undefined || !req.auth || !meta.idempotent || isDryRunRequest(req)) return next();
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
    const request: KeyedRequest = {
      owner,
      key,
      status: successStatus(req.tsRestRoute as AppRoute),
      secretField: meta.secretField,
    };
    let answered = false;
    res.json = (body: unknown) => {
      answered = true;
      const json = jsonText(body) ?? 'null';
      // Kept with the change: nothing more to store.
      if (request.kept === json && request.status === res.statusCode) sendJsonText(res, json);
      else
        keys.finish(request, res.statusCode, body).then(
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
      if (!answered)
        keys.finish(request, 500, null).catch((error) => log('dropping an idempotency claim failed', error));
    });
    keys.within(request, next);
  };
  return handler;
}

type Body = Record<string, unknown>;
const isBody = (body: unknown): body is Body => typeof body === 'object' && body !== null && !Array.isArray(body);

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
