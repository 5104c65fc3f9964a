/**
 * Swagger UI at /docs: the page loads the served document, whose bearer scheme is what the Authorize
 * button fills in, and a request as "Try it out" sends it (same origin, `Authorization: Bearer <key>`) works.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

it('serves Swagger UI on the served document, with the API key as an HTTP bearer scheme', async () => {
  const page = await fetch(`${server.url}/docs/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toMatch(/swagger-ui/);
  const init = await (await fetch(`${server.url}/docs/swagger-ui-init.js`)).text();
  expect(init).toMatch(/"url": "\/openapi\.json"/);

  const document = await (await fetch(`${server.url}/openapi.json`)).json();
  expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  expect(document.components.securitySchemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  const folders = document.paths['/api/v1/folders'].get;
  expect(folders.security).toContainEqual({ ApiKey: [] });
});

it('answers a "Try it out" request carrying the authorized bearer key', async () => {
  const org = await server.newOrg();
  const response = await fetch(`${server.url}/api/v1/folders`, {
    headers: { accept: 'application/json', authorization: `Bearer ${org.key}` },
  });
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual([]);
});
