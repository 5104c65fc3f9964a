import type { AppRoute } from '@ts-rest/core';
import type { RequestHandler } from 'express';
import { routeMeta } from '../../contract/common/meta';
import { badRequest } from '../errors';

/** What the middleware needs of the idempotency module (app.ts passes it in). */
export interface IdempotencyKeys {
  requestHash(method: string, path: string, body: unknown): string;
  /** Claims the key for this request, or answers what the first request with it answered (409/422 thrown). */
  begin(
    orgId: string,
    key: string,
    hash: string,
    now: Date,
  ): Promise<{ run: true } | { run: false; status: number; body: unknown }>;
  /** Keeps the answer of the request holding the claim (drops the claim for a 5xx). */
  finish(orgId: string, key: string, status: number, body: unknown): Promise<void>;
}

const VALID_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * `Idempotency-Key` on the POSTs the contract marks idempotent, after authentication, rate limits and body
 * parsing (so it binds the key to the parsed body): a request that holds the key's claim runs, and its JSON
 * answer is stored before it is sent; a replay answers the stored one with `Idempotent-Replayed: true`.
 */
export function idempotency(keys: IdempotencyKeys, now: () => Date, log: (message: string, error: unknown) => void) {
  const handler: RequestHandler = async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (key === undefined || !req.auth || !routeMeta(req.tsRestRoute as AppRoute).idempotent) return next();
    if (!VALID_KEY.test(key))
      return next(badRequest('headers: idempotency-key must be 1 to 255 visible ASCII characters'));
    const orgId = req.auth.orgId;
    try {
      const decision = await keys.begin(orgId, key, keys.requestHash(req.method, req.path, req.body), now());
      if (!decision.run) {
        res.set('Idempotent-Replayed', 'true').status(decision.status).json(decision.body);
        return;
      }
    } catch (error) {
      return next(error);
    }
    let kept = false;
    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      kept = true;
      keys.finish(orgId, key, res.statusCode, body).then(
        () => send(body),
        (error) => {
          log('storing an idempotent answer failed', error);
          send(body);
        },
      );
      return res;
    };
    // An answer that is not JSON is not kept: the claim goes, and a retry runs again.
    res.on('finish', () => {
      if (!kept)
        keys.finish(orgId, key, 500, null).catch((error) => log('dropping an idempotency claim failed', error));
    });
    next();
  };
  return handler;
}
