import type { Response } from 'express';
import { jsonText } from '../json';

/** Sends JSON text as Express's `res.json` sends what it serialises. */
export function sendJsonText(res: Response, text: string | undefined): Response {
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
  return res.send(text);
}

/**
 * `res.json` of the app (app.ts installs it on `app.response`): Express's, but bigints (counts past 2^53)
 * are written as exact digits. ts-rest, the error handler and the idempotency replay all answer through it.
 */
export function exactJson(this: Response, body?: unknown): Response {
  return sendJsonText(this, jsonText(body));
}
