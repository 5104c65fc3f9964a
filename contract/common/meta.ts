/**
 * Route metadata, declared once per route and read by the server (authentication, scope and role
 * checks) and by the OpenAPI generator (security, tags, response headers).
 */
import type { Role } from './enums';

export type { Role };

export interface RouteMeta {
  /** Resource tag shown in the document. */
  tag: string;
  /** `public`: no credentials. Otherwise the least role the caller's user must hold. */
  access: 'public' | Role;
  /** Key scope a bearer key needs; `write` also needs a plan with API write access. */
  scope?: 'read' | 'write';
  /** Responses carry `X-Total-Count`. */
  totalCountHeader?: boolean;
  /** A list with cursor pages: `?cursor=`, and `Next-Cursor` and `Link` on every page but the last. */
  cursorPages?: boolean;
  /** Route answers 429 with `Retry-After` for per-IP limits (public routes). */
  ipRateLimited?: boolean;
  /** A POST that accepts `Idempotency-Key` (common/idempotency.ts). */
  idempotent?: boolean;
  /**
   * The field of the success answer that shows a secret once (a new API key, a webhook signing secret): an
   * idempotent replay shows it again, but it is kept sealed, never at rest in clear.
   */
  secretField?: string;
  /** A person's act: a signed-in session only; an API key gets 403 `session_required`. */
  sessionOnly?: boolean;
  /**
   * Heavy work (exports, imports, search, free-block listings, whole-organisation lists): a caller may have at
   * most HEAVY_PER_CALLER of these in flight (more: 429 `too_many_concurrent`), and the process runs a
   * bounded number at once, so one caller cannot slow the others down.
   */
  heavy?: boolean;
  /**
   * A single resource's GET, PATCH or DELETE with versions (common/versions.ts): GET and PATCH answer `ETag`,
   * GET honours `If-None-Match` (304), PATCH and DELETE honour `If-Match` (412).
   */
  versioned?: boolean;
  /** A write that takes `?dry_run=true` (common/dry-run.ts): answered as it would be, nothing written. */
  dryRun?: boolean;
}

/** Heavy requests (`RouteMeta.heavy`) one user may have in flight at once. */
export const HEAVY_PER_CALLER = 2;

export const roleRank: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };

/** Shorthands for the common access levels of a resource tag. */
export function access(tag: string) {
  return {
    public: { tag, access: 'public', ipRateLimited: true } satisfies RouteMeta,
    read: { tag, access: 'viewer', scope: 'read' } satisfies RouteMeta,
    write: { tag, access: 'editor', scope: 'write' } satisfies RouteMeta,
    adminRead: { tag, access: 'admin', scope: 'read' } satisfies RouteMeta,
    adminWrite: { tag, access: 'admin', scope: 'write' } satisfies RouteMeta,
  };
}

/** Route metadata of heavy work (`RouteMeta.heavy`). */
export const heavy = <const M extends RouteMeta>(meta: M) => ({ ...meta, heavy: true as const });

export function routeMeta(route: { metadata?: unknown }): RouteMeta {
  return route.metadata as RouteMeta;
}
