/**
 * Security headers (helmet) and cross-origin requests (cors) for the whole app.
 *
 * API answers are JSON: they carry the headers that protect a JSON answer (helmet's, configured): the
 * strictest Content-Security-Policy (`default-src 'none'; frame-ancestors 'none'`: it loads nothing and is
 * framed nowhere, also when opened as a page), X-Frame-Options DENY, X-Content-Type-Options nosniff (never
 * sniffed as HTML or script), Cross-Origin-Resource-Policy same-origin (no cross-site no-cors reads) and
 * Strict-Transport-Security. Helmet's other defaults only concern HTML documents (opener isolation,
 * referrers, DNS prefetching, legacy IE, Flash and XSS-auditor switches); every answer would carry their
 * bytes on the hot paths for nothing, so they go on Swagger UI's page only.
 *
 * Swagger UI at /docs loads its own scripts, styles and images: it gets all of helmet's defaults, with
 * helmet's default policy (scripts only from this origin and no inline script, inline styles and data:
 * images allowed, which Swagger UI uses), without upgrade-insecure-requests, which would break the page
 * when it is served over plain http (a local run).
 *
 * CORS: only the exact origins of CORS_ORIGINS get Access-Control-* headers (credentials included, for
 * a browser app signed in with the session cookie); any other origin, and every request when the list is
 * empty, gets none, so browsers keep other sites' pages from reading the answers.
 */
import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/** Security headers of every answer (see above); Swagger UI's are completed by docsSecurityHeaders. */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    xFrameOptions: { action: 'deny' },
    crossOriginResourcePolicy: { policy: 'same-origin' },
    strictTransportSecurity: true,
    xContentTypeOptions: true,
    // Headers for HTML documents only: on Swagger UI's page (docsSecurityHeaders).
    crossOriginOpenerPolicy: false,
    originAgentCluster: false,
    referrerPolicy: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  });
}

/** All of helmet's defaults for Swagger UI's page and files under /docs, with a policy it works under. */
export function docsSecurityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: { useDefaults: true, directives: { upgradeInsecureRequests: null } },
    xFrameOptions: { action: 'sameorigin' },
  });
}

/** The request headers a browser app sends to this API. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Content-Type', 'X-Requested-With', 'Idempotency-Key'];
/** The answer headers a browser app may read: request id, rate limits, Retry-After, paging, idempotent replays. */
export const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'X-Total-Count',
  'Content-Disposition',
  'Idempotent-Replayed',
];
export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * CORS for the exact `origins` (CORS_ORIGINS), or null when there are none (no middleware, no headers).
 * Requests without an Origin header or from another origin pass through untouched, at the cost of one
 * lookup; preflights of allowed origins are answered 204 here.
 */
export function corsAllowList(origins: readonly string[]): RequestHandler | null {
  if (origins.length === 0) return null;
  const allowed = new Set(origins);
  const answer = cors({
    origin: true, // reflects the request's Origin, which the set has just admitted
    credentials: true,
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
  });
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return next();
    answer(req, res, next);
  };
}
