/**
 * Behaviour every route shares, checked route by route from the router's own list, so a
 * route added later is covered without a new test: 401, 403, 400 for a bad id, 404, 413, 415, 429.
 */
import { randomUUID } from 'node:crypto';
import type { AppRoute } from '@ts-rest/core';
import { describe, expect, it } from 'vitest';
import { routeMeta } from '../../contract';
import { contractRoutes, type OperationId } from '../../contract/routes';
import { IP_LIMITS, ipBucketOf } from '../../server/http/rate-limit-middleware';
import { type CallOptions, clientIp } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { declaredStatuses, exampleBody, hasIdParam, hasJsonBody } from '../support/routes';

const t = useTestServer();

const routes = contractRoutes;
const authenticated = routes.filter((r) => routeMeta(r.route).access !== 'public');
const ipLimited = routes.filter((r) => routeMeta(r.route).ipRateLimited);
const declares = (status: number) => (r: { route: AppRoute }) => declaredStatuses(r.route).includes(status);
const ids = (r: { id: OperationId }) => r.id;

/** Required query parameters, for routes whose query validation would otherwise answer before the lookup. */
const validQuery: Record<string, Record<string, string | number>> = { getSubnetFreeBlocks: { prefix: 28 } };

/** Path params filled with fresh UUIDs (nothing exists there), a valid body (the document's example) and query. */
function callFor(id: OperationId, route: AppRoute, overrides: CallOptions = {}): CallOptions {
  const params: Record<string, string> = {};
  for (const [, name = ''] of route.path.matchAll(/:(\w+)/g)) params[name] = randomUUID();
  const body = hasJsonBody(route) ? (exampleBody(id) ?? {}) : undefined;
  // A client of its own: public routes are limited per IP, and on PostgreSQL every test file shares the counters.
  const headers = { 'x-forwarded-for': clientIp(), ...overrides.headers };
  return { params, body, query: validQuery[id], ...overrides, headers };
}

describe('every route', () => {
  it('is in the contract with the statuses the design requires', () => {
    expect(routes.length).toBeGreaterThan(0);
    for (const { id, route } of authenticated) {
      for (const status of [401, 403, 429]) expect(declaredStatuses(route), id).toContain(status);
    }
    for (const { id, route } of ipLimited) expect(declaredStatuses(route), id).toContain(429);
  });

  it.each(authenticated.filter(declares(401)).map(ids))('%s answers 401 without credentials', async (id) => {
    const route = routes.find((r) => r.id === id)!.route;
    expectStatus(await t.server.anonymous.call(id, callFor(id, route)), 401);
  });

  it.each(authenticated.filter(declares(403)).map(ids))('%s answers 403 to a key without its scope', async (id) => {
    const route = routes.find((r) => r.id === id)!.route;
    const key = await t.org.keyWith(routeMeta(route).scope === 'write' ? ['read'] : ['write']);
    expectStatus(await t.org.api.call(id, callFor(id, route, { as: { key } })), 403);
  });

  it.each(routes.filter((r) => hasIdParam(r.route) && declares(400)(r)).map(ids))(
    '%s answers 400 to a malformed id',
    async (id) => {
      const route = routes.find((r) => r.id === id)!.route;
      const params = Object.fromEntries([...route.path.matchAll(/:(\w+)/g)].map(([, name]) => [name, 'not-a-uuid']));
      const error = expectStatus(await t.org.api.call(id, callFor(id, route, { params })), 400);
      expect(error.error).toContain('Invalid uuid');
    },
  );

  it.each(routes.filter((r) => hasIdParam(r.route) && declares(404)(r)).map(ids))(
    '%s answers 404 for an id that does not exist',
    async (id) => {
      const route = routes.find((r) => r.id === id)!.route;
      expectStatus(await t.org.api.call(id, callFor(id, route)), 404);
    },
  );

  it.each(routes.filter((r) => hasJsonBody(r.route) && declares(415)(r)).map(ids))(
    '%s answers 415 to a non-JSON body',
    async (id) => {
      const route = routes.find((r) => r.id === id)!.route;
      const options = callFor(id, route, {
        body: undefined,
        rawBody: 'hello',
        headers: { 'content-type': 'text/plain' },
      });
      expectStatus(await t.org.api.call(id, options), 415);
    },
  );

  it.each(routes.filter((r) => hasJsonBody(r.route) && declares(413)(r)).map(ids))(
    '%s answers 413 to a body over the limit',
    async (id) => {
      const route = routes.find((r) => r.id === id)!.route;
      const limit = route.path.startsWith('/api/v1/import/') ? 10 : 1;
      const options = callFor(id, route, { body: { padding: 'x'.repeat(limit * 1024 * 1024 + 1) } });
      expectStatus(await t.org.api.call(id, options), 413);
    },
  );

  it.each(authenticated.filter(declares(429)).map(ids))(
    '%s answers 429 once its user is over the rate limit',
    async (id) => {
      const route = routes.find((r) => r.id === id)!.route;
      const limited = await t.server.newOrg({ plan: 'enterprise', limits: { rate_limit: 1 } });
      // Both calls in one minute window (the limiter's windows follow the real clock).
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 2_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
      expectStatus(await limited.api.call('listFolders'), 200);
      // A route that takes only a session (deleting an account) is called with one.
      const client = routeMeta(route).sessionOnly ? limited.web : limited.api;
      const response = await client.call(id, callFor(id, route));
      expect(expectStatus(response, 429).code).toBe('rate_limited');
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    },
  );

  it.each(ipLimited.filter(declares(429)).map(ids))('%s answers 429 once its IP is over the limit', async (id) => {
    const { limit } = IP_LIMITS[ipBucketOf(id, routeMeta(routes.find((r) => r.id === id)!.route))!];
    // Bare calls (no query or body: mostly 400s) use up the limit without side effects.
    const options = { headers: { 'x-forwarded-for': clientIp() } };
    for (let i = 0; i < limit; i++) expect((await t.server.anonymous.call(id, options)).status).not.toBe(429);
    const response = await t.server.anonymous.call(id, options);
    expect(expectStatus(response, 429).code).toBe('rate_limited');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
