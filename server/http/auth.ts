import type { AppRoute } from '@ts-rest/core';
import type { RequestHandler } from 'express';
import type { Plan } from '../../contract/common/enums';
import { type Role, type RouteMeta, roleRank, routeMeta } from '../../contract/common/meta';
import { forbidden, HttpError, unauthenticated } from '../errors';
import type { Principal } from '../principal';
import { clientKey, RATE_LIMIT_WINDOW_MS } from './rate-limit-middleware';

declare global {
  namespace Express {
    interface Request {
      auth?: Principal;
      tsRestRoute?: AppRoute;
    }
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * 403 checks, in order: CSRF for cookie writes, a session-only route called with a key, key scope, the plan's
 * API access, the user's role.
 */
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
  if (isKey && meta.sessionOnly) {
    throw forbidden(
      'This is a person’s act: sign in and use the session (an API key may not do it)',
      'session_required',
    );
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
  /** The caller of these credentials when known without asking the database (cached), else null. */
  known(authorization: string | undefined, cookie: string | undefined): Principal | null;
  /** Records that a key was used. */
  touch(principal: Principal): void;
  /** Whether the plan's API keys may write. */
  apiWriteAllowed(plan: Plan): boolean;
}

/**
 * Failed authentications per client address (an IPv4 address or an IPv6 /64) in fixed one-minute windows,
 * in this process's memory: a flood must cost no database write. Past `limit`, the address gets 429 until
 * the window ends, and its requests are answered without a database lookup unless their credentials are
 * already known (a cached key or session), so an honest caller behind the same address keeps working.
 */
function failureCounter(limit: number, now: () => number) {
  let windowStart = 0;
  let failures = new Map<string, number>();
  const current = () => {
    const start = Math.floor(now() / RATE_LIMIT_WINDOW_MS) * RATE_LIMIT_WINDOW_MS;
    if (start !== windowStart) {
      windowStart = start;
      failures = new Map();
    }
    return failures;
  };
  return {
    over: (client: string) => (current().get(client) ?? 0) >= limit,
    add: (client: string) => current().set(client, (current().get(client) ?? 0) + 1),
    retryAfterSeconds: () => Math.max(1, Math.ceil((windowStart + RATE_LIMIT_WINDOW_MS - now()) / 1000)),
  };
}

/**
 * Runs before request validation, so the order of checks is 401 → 403 → 400 (docs/decisions.md, HTTP). A
 * client address past `failuresPerMinute` failed authentications gets 429 `rate_limited` with Retry-After instead.
 */
export function authenticate(
  auth: Authenticator,
  failuresPerMinute: number,
  now: () => number = Date.now,
): RequestHandler {
  const failures = failureCounter(failuresPerMinute, now);
  return async (req, res, next) => {
    const meta = routeMeta(req.tsRestRoute as AppRoute);
    if (meta.access === 'public') return next();
    // Every answer behind credentials is the caller's own (secrets, private data): no cache may keep it.
    res.set('Cache-Control', 'no-store');
    const client = clientKey(req.ip);
    try {
      let principal = failures.over(client) ? auth.known(req.headers.authorization, req.headers.cookie) : undefined;
      if (principal === null) {
        const retryAfter = failures.retryAfterSeconds();
        throw new HttpError(
          429,
          'rate_limited',
          `Too many failed authentications from this address (${failuresPerMinute} a minute); retry in ${retryAfter} s`,
          { 'Retry-After': String(retryAfter) },
        );
      }
      principal ??= await auth.identify(req.headers.authorization, req.headers.cookie).catch((error) => {
        if (error instanceof HttpError && error.status === 401) failures.add(client);
        throw error;
      });
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
