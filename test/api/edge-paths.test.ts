/**
 * Requests at the edge of routing: paths with malformed percent-escapes (400 on any path, before
 * authentication), known paths asked with a method they lack (405 with Allow; OPTIONS 204 with Allow; CORS
 * preflights unchanged), and JSON bodies that are valid JSON but not an object.
 */
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const origin = 'https://app.example.test';
const t = useTestServer({ config: { corsOrigins: [origin] } });

const request = (path: string, init: RequestInit & { key?: boolean } = {}) =>
  fetch(`${t.server.url}${path}`, {
    ...init,
    headers: { ...(init.key === false ? {} : { authorization: `Bearer ${t.org.key}` }), ...init.headers },
  });

describe('a path with a malformed percent-escape', () => {
  const paths = [
    '/api/v1/folders/%zz',
    '/api/v1/subnets/%',
    '/api/v1/vlans/%E0%A4%A',
    '/api/v1/subnets/%zz/addresses',
    '/api/v1/folders/%2',
    '/api/v1/tools/dns%zz',
    '/api/v1/no-such-thing/%zz',
    '/docs/%zz',
  ];

  it.each(paths)('%s answers 400 bad_request naming the path, with a key', async (path) => {
    const response = await request(path);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ code: 'bad_request', error: `Malformed percent-escape in path ${path}` });
  });

  it.each(paths)('%s answers 400, not 401, without credentials', async (path) => {
    const response = await request(path, { key: false });
    expect(response.status).toBe(400);
  });

  it('answers 400 whatever the method (a write to a malformed path)', async () => {
    const response = await request('/api/v1/folders/%zz', {
      method: 'PATCH',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
  });

  it('carries the security headers of every JSON answer', async () => {
    const response = await request('/api/v1/folders/%zz');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('does not touch well-formed escapes: an id with an escaped character still reaches its route', async () => {
    const folder = expectStatus(await t.org.api.call('createFolder', { body: { name: 'escaped' } }), 201);
    const response = await request(`/api/v1/folders/%${folder.id.charCodeAt(0).toString(16)}${folder.id.slice(1)}`);
    expect(response.status).toBe(200);
  });
});

describe('a known path asked with a method it lacks', () => {
  const cases = [
    ['PUT', '/api/v1/folders', 'GET, HEAD, POST, OPTIONS'],
    ['DELETE', '/api/v1/folders', 'GET, HEAD, POST, OPTIONS'],
    ['POST', '/api/v1/folders/00000000-0000-4000-8000-000000000000', 'GET, HEAD, PATCH, DELETE, OPTIONS'],
    ['GET', '/api/v1/import/subnets', 'POST, OPTIONS'],
    ['PUT', '/api/v1/tools/dns', 'GET, HEAD, OPTIONS'],
  ];

  it.each(cases)('%s %s answers 405 method_not_allowed with Allow: %s', async (method, path, allow) => {
    const response = await request(path, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(await response.json()).toEqual({
      code: 'method_not_allowed',
      error: `${method} is not allowed on ${path}; allowed: ${allow}`,
    });
  });

  it('answers 405 without credentials too (the method is wrong for anyone)', async () => {
    const response = await request('/api/v1/folders', { method: 'PUT', key: false });
    expect(response.status).toBe(405);
  });

  it('allows the methods of every route the path matches (/subnets/overlaps is also /subnets/:id)', async () => {
    const response = await request('/api/v1/subnets/overlaps', { method: 'POST' });
    expect(response.headers.get('allow')).toBe('GET, HEAD, PATCH, DELETE, OPTIONS');
  });

  it('matches paths as Express routes them: any case, a trailing slash', async () => {
    const response = await request('/API/v1/Folders/', { method: 'PUT' });
    expect(response.status).toBe(405);
  });

  it('answers HEAD like GET where the path has GET', async () => {
    const response = await request('/api/v1/folders', { method: 'HEAD' });
    expect(response.status).toBe(200);
  });

  it('answers HEAD with 405 where the path has no GET', async () => {
    const response = await request('/api/v1/auth/logout', { method: 'HEAD' });
    expect([response.status, response.headers.get('allow')]).toEqual([405, 'POST, OPTIONS']);
  });

  it('answers OPTIONS with 204 and Allow', async () => {
    const response = await request('/api/v1/folders', { method: 'OPTIONS' });
    expect([response.status, response.headers.get('allow')]).toEqual([204, 'GET, HEAD, POST, OPTIONS']);
  });

  it('leaves the CORS preflight of an allowed origin to CORS (204 with its headers)', async () => {
    const response = await request('/api/v1/folders', {
      method: 'OPTIONS',
      key: false,
      headers: { origin, 'access-control-request-method': 'PUT' },
    });
    expect([response.status, response.headers.get('access-control-allow-origin')]).toEqual([204, origin]);
  });

  it('gives an unknown path 404, whatever the method', async () => {
    const response = await request('/api/v1/no-such-thing', { method: 'PUT' });
    expect([response.status, response.headers.get('allow')]).toEqual([404, null]);
  });
});

describe('a JSON body that is not an object', () => {
  it.each([
    ['null', 'null'],
    ['42', 'a number'],
    ['"text"', 'a string'],
    ['true', 'true'],
  ])('%s answers 400 "body: expected a JSON object, got %s"', async (body, got) => {
    const response = await t.org.api.call('createFolder', {
      rawBody: body,
      headers: { 'content-type': 'application/json' },
    });
    expect(expectStatus(response, 400)).toEqual({
      code: 'validation',
      error: `body: expected a JSON object, got ${got}`,
    });
  });

  it('still answers JSON that does not parse as malformed', async () => {
    const response = await t.org.api.call('createFolder', {
      rawBody: 'nul',
      headers: { 'content-type': 'application/json' },
    });
    expect(expectStatus(response, 400).error).toMatch(/^Malformed JSON body/);
  });
});
