import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/** Echoes a sane X-Request-Id from the client or makes one, so a user can quote it in a support request. */
export const requestId: RequestHandler = (req, res, next) => {
  const given = req.get('x-request-id');
  res.set('X-Request-Id', given && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID());
  next();
};
