/**
 * Malformed credentials are the client's fault: a 401 (or Node's own 400 or 431 for a header its parser
 * refuses), never a 500, and the t.server keeps serving.
 */
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer();

const withHeaders = (headers: Record<string, string>) => t.server.anonymous.call('listFolders', { headers });

/** The status of a GET /api/v1/folders sent byte for byte with one extra header (fetch refuses some). */
function rawStatus(name: string, value: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(t.server.url);
    const socket = connect(Number(port), hostname, () => {
      socket.end(
        Buffer.from(
          `GET /api/v1/folders HTTP/1.1\r\nHost: ${hostname}\r\n${name}: ${value}\r\nConnection: close\r\n\r\n`,
          'latin1',
        ),
      );
    });
    let head = '';
    socket.on('data', (chunk) => {
      head += chunk.toString('latin1');
    });
    socket.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0)));
    socket.on('error', reject);
  });
}

describe('malformed cookies', () => {
  for (const cookie of [
    'service_session=%',
    'service_session=%E0%A4%A',
    'service_session=',
    ';;;;service_session;;;=;;',
    `service_session=${'%'.repeat(7000)}`,
  ]) {
    it(`answers 401 to Cookie: ${cookie.slice(0, 40)}${cookie.length > 40 ? '…' : ''}`, async () => {
      expect(expectStatus(await withHeaders({ cookie }), 401).code).toBe('unauthenticated');
    });
  }

  it('ignores a malformed cookie beside a valid key', async () => {
    expectStatus(await t.org.api.call('listFolders', { headers: { cookie: 'service_session=%' } }), 200);
  });
});

describe('odd Authorization headers', () => {
  for (const authorization of [
    'Basic abc',
    'Bearer',
    'Bearer  ',
    `bearer svc_${'a'.repeat(63)}`,
    'Token x',
    `Bearer svc_${'a'.repeat(64)} Bearer svc_${'b'.repeat(64)}`,
    `Bearer ${'x'.repeat(8000)}`,
  ]) {
    it(`answers 401 to Authorization: ${authorization.slice(0, 40)}${authorization.length > 40 ? '…' : ''}`, async () => {
      expect(expectStatus(await withHeaders({ authorization }), 401).code).toBe('unauthenticated');
    });
  }

  it("answers 400 (from Node's parser, before the app) to an Authorization header holding control characters", async () => {
    expect(await rawStatus('authorization', 'Bearer svc_\u0001\u0002')).toBe(400);
  });

  it('answers 401 to an Authorization header holding characters past ASCII', async () => {
    expect(await rawStatus('authorization', 'Bearer svc_\u00e9\u00ff')).toBe(401);
  });

  it('answers 431 (from Node, not the app) to a header past 16 KB, and keeps serving', async () => {
    expect(await rawStatus('authorization', `Bearer ${'x'.repeat(20_000)}`)).toBe(431);
    expectStatus(await t.org.api.call('listFolders'), 200);
  });
});
