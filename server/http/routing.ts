/**
 * Answers for requests that no route of the contract takes, short of the 404 `not_found`:
 * - a path with a malformed percent-escape (`%zz`, a cut UTF-8 sequence) is a 400 on every path, before
 *   routing and authentication: it names no resource, and Express would fail to decode it (a 500);
 * - a known path asked with a method it lacks is a 405 `method_not_allowed` with `Allow`, and OPTIONS is a
 *   204 with `Allow` (the preflights of allowed origins are answered earlier, by the CORS middleware).
 */
import type { RequestHandler } from 'express';
import { contractRoutes } from '../../contract/routes';
import { badRequest, HttpError } from '../errors';

/** 400 `bad_request` naming the path when it does not percent-decode (its query is the query parser's). */
export const wellFormedPath: RequestHandler = (req, _res, next) => {
  const path = req.path;
  if (!path.includes('%')) return next();
  try {
    decodeURIComponent(path);
  } catch {
    return next(badRequest(`Malformed percent-escape in path ${path}`, 'bad_request'));
  }
  next();
};

const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** A route path matched as Express 4 matches it: `:name` is one segment, any case, an optional trailing slash. */
function pathPattern(path: string): RegExp {
  const segments = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+?' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${segments.join('/')}\\/?$`, 'i');
}

/** The methods of each path of the contract; Express answers HEAD wherever there is GET. */
const pathMethods = (() => {
  const byPath = new Map<string, Set<string>>();
  for (const { route } of contractRoutes) {
    const methods = byPath.get(route.path) ?? new Set(['OPTIONS']);
    methods.add(route.method);
    if (route.method === 'GET') methods.add('HEAD');
    byPath.set(route.path, methods);
  }
  return [...byPath].map(([path, methods]) => ({ pattern: pathPattern(path), methods }));
})();

/**
 * After the contract's routes: a path some route has (several may match, `/subnets/overlaps` and
 * `/subnets/:id`: the methods of all) answers 405 to another method and 204 to OPTIONS, with `Allow`.
 * Other paths go on to the 404.
 */
export const methodNotAllowed: RequestHandler = (req, res, next) => {
  const allowed = new Set<string>();
  for (const { pattern, methods } of pathMethods) {
    if (pattern.test(req.path)) for (const method of methods) allowed.add(method);
  }
  // No such path; or a method it has whose route passed the request on (none does): not this answer.
  if (allowed.size === 0 || (allowed.has(req.method) && req.method !== 'OPTIONS')) return next();
  const allow = METHOD_ORDER.filter((method) => allowed.has(method)).join(', ');
  if (req.method === 'OPTIONS') return void res.set('Allow', allow).status(204).end();
  next(
    new HttpError(405, 'method_not_allowed', `${req.method} is not allowed on ${req.path}; allowed: ${allow}`, {
      Allow: allow,
    }),
  );
};
