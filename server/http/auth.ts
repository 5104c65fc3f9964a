import type { AppRoute } from '@ts-rest/core';
import type { RequestHandler } from 'express';
import type { Plan } from '../../contract/common/enums';
import { type Role, type RouteMeta, roleRank, routeMeta } from '../../contract/common/meta';
import { forbidden, unauthenticated } from '../errors';
import type { Principal } from '../principal';

declare global {
  namespace Express {
    interface Request {
      auth?: Principal;
      tsRestRoute?: AppRoute;
    }
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** 403 checks, in order: CSRF for cookie writes, key scope, the plan's API access, the user's role. */
function authorize(
  principal: Principal,
  meta: RouteMeta,
  method: string,
  requestedWith: string | undefined,
  apiWriteAllowed: Authenticator['apiWriteAllowed'],
): void {
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

/** What authentication needs of the identity and plans modules (app.ts passes them in). */
export interface Authenticator {
  /** The caller of these credentials; 401 when they are missing, malformed, unknown or revoked. */
  identify(authorization: string | undefined, cookie: string | undefined): Promise<Principal>;
  /** Records that a key was used. */
  touch(principal: Principal): void;
  /** Whether the plan's API keys may write. */
  apiWriteAllowed(plan: Plan): boolean;
}

/** Runs before request validation, so the order is 401 → 403 → 400 as the design fixes it. */
export function authenticate(auth: Authenticator): RequestHandler {
  return async (req, _res, next) => {
    const meta = routeMeta(req.tsRestRoute as AppRoute);
    if (meta.access === 'public') return next();
    try {
      const principal = await auth.identify(req.headers.authorization, req.headers.cookie);
      authorize(principal, meta, req.method, req.get('x-requested-with'), auth.apiWriteAllowed);
      req.auth = principal;
      auth.touch(principal);
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
