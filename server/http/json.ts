import type { AppRoute } from '@ts-rest/core';
import type { Response } from 'express';
import { routeMeta } from '../../contract/common/meta';
import { jsonText } from '../json';
import { notModified, versionOfText } from '../versions';

/** Sends JSON text as Express's `res.json` sends what it serialises. */
export function sendJsonText(res: Response, text: string | undefined): Response {
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
  return res.send(text);
}

/**
 * `res.json` of the app (app.ts installs it on `app.response`): Express's, but bigints (counts past 2^53)
 * are written as exact digits. ts-rest, the error handler and the idempotency replay all answer through it.
 * A versioned route's 200 (a single resource's GET or PATCH, whose answer is its representation) carries its
 * `ETag`, unless its handler set one; a GET whose `If-None-Match` holds it is a 304 without a body.
 */
export function exactJson(this: Response, body?: unknown): Response {
  const text = jsonText(body);
  const route = this.req.tsRestRoute as AppRoute | undefined;
  if (text !== undefined && this.statusCode === 200 && route && routeMeta(route).versioned) {
    const version = this.get('ETag') ?? versionOfText(text);
    this.set('ETag', version);
    if (this.req.method === 'GET' && notModified(this.req.get('if-none-match'), version)) return this.status(304).end();
  }
  return sendJsonText(this, text);
}
