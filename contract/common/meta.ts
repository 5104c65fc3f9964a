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
  /** Route answers 429 with `Retry-After` for per-IP limits (public routes). */
  ipRateLimited?: boolean;
  /** A POST that accepts `Idempotency-Key` (common/idempotency.ts). */
  idempotent?: boolean;
}

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

export function routeMeta(route: { metadata?: unknown }): RouteMeta {
  return route.metadata as RouteMeta;
}
