import type { AppRoute } from '@ts-rest/core';
import type { Request, RequestHandler, Response } from 'express';
import { type RouteMeta, routeMeta } from '../../contract/common/meta';
import { contractRoutes, operationIdOf } from '../../contract/routes';
import { HttpError } from '../errors';
import { parseIp } from '../ipam';
import type { Principal } from '../principal';
import type { RateLimiter, RateLimitResult } from './rate-limit';

export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Per-IP limits of the public routes, per minute; each bucket is shared by the routes in it. */
export const IP_LIMITS = {
  signIn: { limit: 5, what: 'sign-in requests' },
  toolLookups: { limit: 10, what: 'network tool lookups' },
  toolProbes: { limit: 3, what: 'active network probes (ping, port scan, traceroute)' },
} as const;
export type IpBucket = keyof typeof IP_LIMITS;

const ACTIVE_PROBES = new Set(['pingHost', 'scanPorts', 'traceRoute']);

/** The per-IP bucket of a public route, or null when it has no per-IP limit. */
export function ipBucketOf(operationId: string, meta: RouteMeta): IpBucket | null {
  if (!meta.ipRateLimited) return null;
  if (meta.tag === 'Auth') return 'signIn';
  if (meta.tag === 'Network tools') return ACTIVE_PROBES.has(operationId) ? 'toolProbes' : 'toolLookups';
  throw new Error(`${operationId} is ipRateLimited but belongs to no per-IP bucket`);
}
// Fail at start, not on the first request, when a route is marked without a bucket.
for (const { id, route } of contractRoutes) ipBucketOf(id, routeMeta(route));

/**
 * The client as the per-IP limits see it: an IPv4 address, or the /64 of an IPv6 address (one
 * customer's usual allocation, so rotating through it does not escape the limit).
 */
export function clientKey(ip: string | undefined): string {
  const parsed = ip ? parseIp(ip) : null;
  if (!parsed) return `other:${ip ?? 'unknown'}`;
  if (parsed.version === 4) return ip as string;
  if (parsed.value >> 32n === 0xffffn) {
    const v4 = Number(parsed.value & 0xffffffffn);
    return [v4 >>> 24, (v4 >>> 16) & 255, (v4 >>> 8) & 255, v4 & 255].join('.');
  }
  return `${(parsed.value >> 64n).toString(16)}::/64`;
}

function rateLimited(message: string, result: RateLimitResult): HttpError {
  return new HttpError(429, 'rate_limited', `${message}; retry in ${result.retryAfterSeconds} s`, {
    'Retry-After': String(result.retryAfterSeconds),
  });
}

async function limitUser(limiter: RateLimiter, userId: string, limit: number | null, res: Response): Promise<void> {
  if (limit === null) return;
  const result = await limiter.hit(`user:${userId}`, limit, RATE_LIMIT_WINDOW_MS);
  res.set({
    'X-RateLimit-Limit': String(limit),
    'X-RateLimit-Remaining': String(result.remaining),
    'X-RateLimit-Reset': String(Math.ceil(result.resetAt.getTime() / 1000)),
  });
  if (!result.allowed) {
    throw rateLimited(`Rate limit reached: ${limit} requests per minute for this user (all keys and sessions)`, result);
  }
}

async function limitIp(limiter: RateLimiter, bucket: IpBucket, req: Request): Promise<void> {
  const { limit, what } = IP_LIMITS[bucket];
  const result = await limiter.hit(`ip:${bucket}:${clientKey(req.ip)}`, limit, RATE_LIMIT_WINDOW_MS);
  if (!result.allowed) throw rateLimited(`Rate limit reached: ${limit} ${what} per minute per IP address`, result);
}

/**
 * Runs right after authentication. Authenticated requests (those that passed the 401 and 403 checks)
 * count against their user's per-minute limit and carry the X-RateLimit-* headers, errors and 429
 * included; public routes marked `ipRateLimited` count against their bucket for the client IP
 * (`req.ip`, which honours the `trust proxy` setting). Over a limit: 429 `rate_limited` with Retry-After.
 */
export function rateLimits(
  limiter: RateLimiter,
  /** The per-minute limit of a caller (the plans module's); null is unlimited. */
  userRateLimit: (principal: Principal) => number | null,
): RequestHandler {
  return async (req, res, next) => {
    try {
      const route = req.tsRestRoute as AppRoute;
      const meta = routeMeta(route);
      if (meta.access !== 'public') {
        if (req.auth) await limitUser(limiter, req.auth.userId, userRateLimit(req.auth), res);
      } else {
        const bucket = ipBucketOf(operationIdOf.get(route) ?? '', meta);
        if (bucket) await limitIp(limiter, bucket, req);
      }
      next();
    } catch (error) {
      next(error);
    }
  };
}
