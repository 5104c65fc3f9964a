import type { AppRoute } from '@ts-rest/core';
import type { Request, RequestHandler } from 'express';
import { routeMeta } from '../../contract/common/meta';

/** Whether a request is a dry run: `dry_run=true` on a route that takes one (`RouteMeta.dryRun`). */
export const isDryRunRequest = (req: Request) =>
  req.query.dry_run === 'true' && routeMeta(req.tsRestRoute as AppRoute).dryRun === true;

/**
 * The last middleware before the handler: a dry run's handling runs inside `asDryRun` (the writes module's),
 * so every change it commits is rolled back once answered. The idempotency middleware leaves dry runs alone.
 */
export const dryRuns =
  (asDryRun: <T>(handle: () => T) => T): RequestHandler =>
  (req, _res, next) =>
    isDryRunRequest(req) ? asDryRun(() => next()) : next();
