/**
 * Swagger UI at /docs: the page loads the served document, whose bearer scheme is what the Authorize
 * button fills in, and a request as "Try it out" sends it (same origin, `Authorization: Bearer <key>`) works.
 */
import { expect, it } from 'vitest';
import { useTestServer } from '../support/factories';

const t = useTestServer({}, false);

it('serves Swagger UI on the served document, with the API key as an HTTP bearer scheme', async () => {
  const page = await fetch(`${t.server.url}/docs/`);
  expect(page.status).toBe(200);
  expect(await page.text()).toMatch(/swagger-ui/);
  const init = await (await fetch(`${t.server.url}/docs/swagger-ui-init.js`)).text();
  expect(init).toMatch(/"url": "\/openapi\.json"/);

  const document = await (await fetch(`${t.server.url}/openapi.json`)).json();
  expect(document.servers).toEqual([{ url: '/', description: expect.any(String) }]);
  expect(document.components.securitySchemes.ApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  const folders = document.paths['/api/v1/folders'].get;
  expect(folders.security).toContainEqual({ ApiKey: [] });
});

it('answers a "Try it out" request carrying the authorized bearer key', async () => {
  const org = await t.server.newOrg();
  const response = await fetch(`${t.server.url}/api/v1/folders`, {
    headers: { accept: 'application/json', authorization: `Bearer ${org.key}` },
  });
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual([]);
});
