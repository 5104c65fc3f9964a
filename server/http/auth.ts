import type { AppRoute } from '@ts-rest/core';
import type { RequestHandler } from 'express';
import { type Role, type RouteMeta, roleRank, routeMeta } from '../../contract/common/meta';
import type { Db } from '../db/connection';
import { forbidden, unauthenticated } from '../errors';
import type { Principal } from '../modules/identity/principal';
import { type PrincipalLookup, principalLookup } from '../modules/identity/principals';
import { API_KEY_PATTERN, hashToken, SESSION_COOKIE } from '../modules/identity/tokens';
import { apiWriteAllowed } from '../modules/plans/limits';
import { readCookie } from './cookies';

declare global {
  namespace Express {
    interface Request {
      auth?: Principal;
      tsRestRoute?: AppRoute;
    }
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

async function identify(
  principals: PrincipalLookup,
  authorization: string | undefined,
  cookie: string | undefined,
): Promise<Principal> {
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)$/i.exec(authorization.trim());
    if (!match) throw unauthenticated('Malformed Authorization header: expected "Bearer svc_…"');
    if (!API_KEY_PATTERN.test(match[1]))
      throw unauthenticated('Malformed API key: expected svc_ followed by 64 characters');
    const principal = await principals.byKeyHash(hashToken(match[1]));
    if (!principal) throw unauthenticated('Unknown or revoked API key');
    return principal;
  }
  const session = readCookie(cookie, SESSION_COOKIE);
  if (session) {
    const principal = await principals.bySessionHash(hashToken(session));
    if (!principal) throw unauthenticated('Session expired or signed out; sign in again');
    return principal;
  }
  throw unauthenticated(
    'Authentication required: send "Authorization: Bearer <API key>" or the service_session cookie',
  );
}

/** 403 checks, in order: CSRF for cookie writes, key scope, the plan's API access, the user's role. */
function authorize(principal: Principal, meta: RouteMeta, method: string, requestedWith: string | undefined): void {
  const isKey = principal.keyId !== null;
  if (!isKey && !SAFE_METHODS.has(method) && requestedWith !== 'XMLHttpRequest') {
    throw forbidden('Cookie-authenticated writes must send the header X-Requested-With: XMLHttpRequest', 'csrf');
  }
  if (isKey && meta.scope && !principal.permissions?.includes(meta.scope)) {
    throw forbidden(`This API key lacks the ${meta.scope} permission`);
  }
  if (isKey && meta.scope === 'write' && !apiWriteAllowed(principal.plan)) {
    throw forbidden(
      'API access on the free plan is read-only: writing with an API key needs a paid plan (signed-in sessions can still write)',
    );
  }
  // Deny by default: a route whose least role is not one of the known roles admits nobody.
  if (!(meta.access in roleRank) || roleRank[principal.role] < roleRank[meta.access as Role]) {
    throw forbidden(`This action needs the ${meta.access} role; you are ${principal.role}`);
  }
}

/** Runs before request validation, so the order is 401 → 403 → 400 as the design fixes it. */
export function authenticate(db: Db): RequestHandler {
  const principals = principalLookup(db);
  return async (req, _res, next) => {
    const meta = routeMeta(req.tsRestRoute as AppRoute);
    if (meta.access === 'public') return next();
    try {
      const principal = await identify(principals, req.headers.authorization, req.headers.cookie);
      authorize(principal, meta, req.method, req.get('x-requested-with'));
      req.auth = principal;
      principals.touch(principal);
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** The authenticated caller of a handler; the middleware guarantees it on non-public routes. */
export function principalOf(req: { auth?: Principal }): Principal {
  if (!req.auth) throw unauthenticated('Authentication required');
  return req.auth;
}
