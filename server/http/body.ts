import { type AppRoute, isAppRouteNoBody } from '@ts-rest/core';
import express, { type NextFunction, type RequestHandler } from 'express';
import { badRequest, HttpError } from '../errors';

const MB = 1024 * 1024;
declare global {
  namespace Express {
    interface Request {
      /** The body as received: a signature (Stripe's) and an Idempotency-Key are over the bytes sent. */
      rawBody?: Buffer;
    }
  }
}

/** A JSON parser that keeps the bytes as well. */
const parserOf = (limit: number) =>
  express.json({
    limit,
    strict: true,
    verify: (req, _res, buffer) => {
      (req as express.Request).rawBody = buffer;
    },
  });
const regular = parserOf(MB);
const bulk = parserOf(10 * MB);

function declaresBody(route: AppRoute | undefined): boolean {
  return Boolean(route && route.method !== 'GET' && 'body' in route && !isAppRouteNoBody(route.body));
}

/**
 * Parses JSON bodies after authentication (so an anonymous caller learns nothing from parse errors):
 * 1 MB, 10 MB on imports; a body of another media type is a 415.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  const route = req.tsRestRoute;
  if (!declaresBody(route)) return next();
  const hasBody = req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
  if (hasBody && !req.is(['application/json', '+json'])) {
    return next(
      new HttpError(
        415,
        'unsupported_media_type',
        `Request body must be application/json, not ${req.headers['content-type'] ?? 'untyped'}`,
      ),
    );
  }
  const path = route?.path ?? '';
  const parser = path.startsWith('/api/v1/import/') ? bulk : regular;
  parser(req, res, notAnObject(next));
};

/**
 * Strict parsing refuses a top-level null, number, string or boolean as if it were not JSON; it is JSON,
 * just not the object every body is: say so (400 `validation`). Parsed again only on that error.
 */
const notAnObject =
  (next: NextFunction): NextFunction =>
  (error?: unknown) => {
    const refused = error as { type?: unknown; body?: unknown } | undefined;
    if (refused?.type !== 'entity.parse.failed' || typeof refused.body !== 'string') return next(error);
    let value: unknown;
    try {
      value = JSON.parse(refused.body);
    } catch {
      return next(error);
    }
    const got = value === null ? 'null' : typeof value === 'boolean' ? String(value) : `a ${typeof value}`;
    next(badRequest(`body: expected a JSON object, got ${got}`));
  };
