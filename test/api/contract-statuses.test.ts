/**
 * Behaviour every implemented route shares, checked route by route from the router's own list, so a
 * route added later is covered without a new test: 401, 403, 400 for a bad id, 404, 413, 415.
 */
import { randomUUID } from 'node:crypto';
import type { AppRoute } from '@ts-rest/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeMeta } from '../../contract';
import { listRoutes } from '../../server/routes';
import type { CallOptions } from '../support/client';
import { expectStatus } from '../support/observed';
import { declaredStatuses, exampleBody, hasIdParam, hasJsonBody } from '../support/routes';
import { startTestServer, type TestOrg, type TestServer } from '../support/server';

let server: TestServer;
let org: TestOrg;

beforeAll(async () => {
  server = await startTestServer();
  org = await server.newOrg();
});
afterAll(() => server?.close());

const routes = listRoutes().filter((r) => r.implemented);
const authenticated = routes.filter((r) => routeMeta(r.route).access !== 'public');
const declares = (status: number) => (r: { route: AppRoute }) => declaredStatuses(r.route).includes(status);
const ids = (r: { id: string }) => r.id;

/** Required query parameters, for routes whose query validation would otherwise answer before the lookup. */
const validQuery: Record<string, Record<string, string | number>> = { getSubnetFreeBlocks: { prefix: 28 } };

/** Path params filled with fresh UUIDs (nothing exists there), a valid body (the document's example) and query. */
function callFor(id: string, route: AppRoute, overrides: CallOptions = {}): CallOptions {
  const params: Record<string, string> = {};
  for (const [, name] of route.path.matchAll(/:(\w+)/g)) params[name] = randomUUID();
  const body = hasJsonBody(route) ? (exampleBody(id) ?? {}) : undefined;
  return { params, body, query: validQuery[id], ...overrides };
}

describe('every implemented route', () => {
  it('is in the contract with the statuses the design requires', () => {
    expect(routes.length).toBeGreaterThan(0);
    for (const { id, route } of authenticated) {
      for (const status of [401, 403, 429]) expect(declaredStatuses(route), id).toContain(status);
    }
  });

  it.each(authenticated.filter(declares(401)).map(ids))('%s answers 401 without credentials', async (id) => {
    const route = routes.find((r) => r.id === id)!.route;
    expectStatus(await server.anonymous.call(id, callFor(id, route)), 401);
  });

  it.each(authenticated.filter(declares(403)).map(ids))('%s answers 403 to a key without its scope', async (id) => {
    const route = routes.find((r) => r.id === id)!.route;
    const key = await org.keyWith(routeMeta(route).scope === 'write' ? ['read'] : ['write']);
    expectStatus(await org.api.call(id, callFor(id, route, { as: { key } })), 403);
  });

  it.each(routes.filter((r) => hasIdParam(r.route) && declares(400)(r)).map(ids))(
    '%s answers 400 to a malformed id',
    async (id) => {
      const route = routes.find((r) => r.id === id)!.route;
      const params = Object.fromEntries([...route.path.matchAll(/:(\w+)/g)].map(([, name]) => [name, 'not-a-uuid']));
      const error = expectStatus(await org.api.call(id, callFor(id, route, { params })), 400);
      expect(error.error).toContain('Invalid uuid');
    },
  );

  it.each(routes.filter((r) => hasIdParam(r.route) && declares(404)(r)).map(ids))(
    '%s answers 404 for an id that does not exist',
    async (id) => {
      const route = routes.find((r) => r.id === id)!.route;
      expectStatus(await org.api.call(id, callFor(id, route)), 404);
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
      expectStatus(await org.api.call(id, options), 415);
    },
  );

  it.each(routes.filter((r) => hasJsonBody(r.route) && declares(413)(r)).map(ids))(
    '%s answers 413 to a body over the limit',
    async (id) => {
      const route = routes.find((r) => r.id === id)!.route;
      const limit = route.path.startsWith('/api/v1/import/') ? 10 : 1;
      const options = callFor(id, route, { body: { padding: 'x'.repeat(limit * 1024 * 1024 + 1) } });
      expectStatus(await org.api.call(id, options), 413);
    },
  );
});

describe('routes not built yet', () => {
  const pending = listRoutes().filter((r) => !r.implemented);

  it.each(pending.map(ids))('%s answers 501 not_implemented', async (id) => {
    const route = pending.find((r) => r.id === id)!.route;
    const response = await org.api.call(id, callFor(id, route, { body: hasJsonBody(route) ? {} : undefined }));
    expect(response.status).toBe(501);
    expect(response.body).toMatchObject({ code: 'not_implemented' });
  });
});
