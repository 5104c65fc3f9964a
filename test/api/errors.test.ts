import { describe, expect, expectTypeOf, it } from 'vitest';
import { ApiError, ErrorCode } from '../../contract/common/errors';
import type { HttpError } from '../../server/errors';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const json = { 'content-type': 'application/json' };

describe('error responses are JSON {error, code}', () => {
  it('answers malformed JSON with 400', async () => {
    const error = expectStatus(await t.org.api.call('createFolder', { rawBody: '{"name": ', headers: json }), 400);
    expect(error.error).toMatch(/^Malformed JSON body/);
  });

  it('answers a JSON body that is not an object with 400 naming the body', async () => {
    const error = expectStatus(
      await t.org.api.call('createFolder', { rawBody: '"just a string"', headers: json }),
      400,
    );
    expect(error.code).toBe('validation');
  });

  it('answers a body over 1 MB with 413', async () => {
    const body = { name: 'big', description: 'x'.repeat(1024 * 1024) };
    const error = expectStatus(await t.org.api.call('createFolder', { body }), 413);
    expect(error.code).toBe('payload_too_large');
  });

  it('accepts a body just under 1 MB up to validation (400 for the description length, not 413)', async () => {
    const body = { name: 'almost', description: 'x'.repeat(1024 * 1024 - 100) };
    const error = expectStatus(await t.org.api.call('createFolder', { body }), 400);
    expect(error.error).toMatch(/^description: /);
  });

  it('accepts a body of exactly 1 MB and answers 413 to one byte more', async () => {
    // JSON allows whitespace after the value: one small folder padded to the size wanted.
    const body = (bytes: number) => JSON.stringify({ name: `exact-${bytes}` }).padEnd(bytes, ' ');
    const tooLarge = await t.org.api.call('createFolder', { rawBody: body(1024 * 1024 + 1), headers: json });
    expect(expectStatus(tooLarge, 413).code).toBe('payload_too_large');
    expectStatus(await t.org.api.call('createFolder', { rawBody: body(1024 * 1024), headers: json }), 201);
  });

  it('answers text PostgreSQL cannot store (a NUL character) with 400, not 500', async () => {
    const error = expectStatus(await t.org.api.call('createFolder', { body: { name: 'a\u0000b' } }), 400);
    expect(error.error).toContain('NUL');
  });

  it('answers a non-JSON body with 415', async () => {
    const response = await t.org.api.call('createFolder', {
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(expectStatus(response, 415).code).toBe('unsupported_media_type');
  });

  it('answers an unknown route under /api/v1 with 404', async () => {
    const response = await fetch(`${t.server.url}/api/v1/no-such-thing`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ code: 'not_found', error: 'No route for GET /api/v1/no-such-thing' });
  });

  it('answers an unknown method on a known path with 405 JSON, not HTML', async () => {
    const response = await fetch(`${t.server.url}/api/v1/folders`, { method: 'PUT' });
    expect(response.status).toBe(405);
    expect(response.headers.get('content-type')).toContain('application/json');
  });

  it('answers a bad UUID in a path with 400 naming the parameter', async () => {
    const error = expectStatus(await t.org.api.call('getFolder', { params: { id: 'not-a-uuid' } }), 400);
    expect(error).toEqual({ code: 'validation', error: 'id: Invalid uuid' });
  });

  it('answers codes of the contract’s ErrorCode, also where no route answers (404, 405, 401)', async () => {
    // What the server can throw is typed so (a code outside the enum does not compile); what it answers parses.
    expectTypeOf<HttpError['code']>().toEqualTypeOf<ErrorCode>();
    expect(ApiError.shape.code).toBe(ErrorCode);
    const answers = await Promise.all([
      fetch(`${t.server.url}/api/v1/no-such-thing`),
      fetch(`${t.server.url}/api/v1/folders`, { method: 'PUT' }),
      fetch(`${t.server.url}/api/v1/folders`),
    ]);
    const codes = await Promise.all(answers.map(async (response) => (await response.json()).code));
    expect(codes.map((code) => ErrorCode.parse(code))).toEqual(['not_found', 'method_not_allowed', 'unauthenticated']);
    expect(ErrorCode.safeParse('not_a_code').success).toBe(false);
  });

  it('echoes a request id, or makes one', async () => {
    const given = await t.org.api.call('listFolders', { headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-123');
    const made = await t.org.api.call('listFolders');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
