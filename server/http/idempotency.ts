import type { AppRoute } from '@ts-rest/core';
import type { RequestHandler } from 'express';
import { routeMeta } from '../../contract/common/meta';
import { badRequest } from '../errors';
import { jsonText } from '../json';
import { sendJsonText } from './json';

/** What the middleware needs of the idempotency module (app.ts passes it in). */
export interface IdempotencyKeys {
  requestHash(method: string, path: string, body: unknown): string;
  /** Claims the key for this request, or answers what the first request with it answered (409/422 thrown). */
  begin(
    orgId: string,
    key: string,
    hash: string,
    now: Date,
  ): Promise<{ run: true } | { run: false; status: number; json: string }>;
  /** Keeps the answer (JSON text) of the request holding the claim (drops the claim for a 5xx). */
  finish(orgId: string, key: string, status: number, json: string): Promise<void>;
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
        // The stored text itself, so a replay is the same bytes (exact counts included).
        sendJsonText(res.set('Idempotent-Replayed', 'true').status(decision.status), decision.json);
        return;
      }
    } catch (error) {
      return next(error);
    }
    let kept = false;
    res.json = (body: unknown) => {
      kept = true;
      const json = jsonText(body);
      keys.finish(orgId, key, res.statusCode, json ?? 'null').then(
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
        keys.finish(orgId, key, 500, 'null').catch((error) => log('dropping an idempotency claim failed', error));
    });
    next();
  };
  return handler;
}
