/** The operator commands (README, Operator commands), run as a user would, against the storage the server then uses. */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../support/client';
import { expectStatus } from '../support/observed';
import { startTestServer, type TestServer } from '../support/server';

const dataDir = mkdtempSync(join(tmpdir(), 'ipam-operator-'));
const pgUrl = process.env.TEST_DATABASE_URL;
const storageEnv = pgUrl ? { DATABASE_URL: pgUrl } : { DATA_DIR: dataDir, DATABASE_URL: '' };

async function admin(...args: string[]): Promise<{ code: number; lastLine: string; stderr: string }> {
  const result = await promisify(execFile)('node_modules/.bin/tsx', ['server/admin.ts', ...args], {
    env: { ...process.env, ...storageEnv },
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
  );
  return { code: result.code, lastLine: result.stdout.trim().split('\n').at(-1) ?? '', stderr: result.stderr };
}

const email = (name: string) => `${name}-${randomUUID()}@example.test`;

// Commands run first, then one server opens the same storage (PGlite allows one process at a time).
/** The keys and session the commands print, set before the tests run. */
const prepared = { freeKey: '', readKey: '', viewerKey: '', session: '', upgradedKey: '' };
const emails = { free: email('free'), reader: email('reader'), viewer: email('viewer'), upgraded: email('up') };

beforeAll(async () => {
  prepared.freeKey = (await admin('create-key', '--email', emails.free)).lastLine;
  prepared.readKey = (
    await admin('create-key', '--email', emails.reader, '--plan', 'pro', '--permissions', 'read')
  ).lastLine;
  prepared.viewerKey = (
    await admin('create-key', '--email', emails.viewer, '--plan', 'pro', '--role', 'viewer')
  ).lastLine;
  prepared.session = (await admin('create-session', '--email', emails.free)).lastLine;
  prepared.upgradedKey = (await admin('create-key', '--email', emails.upgraded)).lastLine;
  await admin('set-plan', '--email', emails.upgraded, '--plan', 'enterprise');
  await admin('set-limits', '--email', emails.upgraded, '--limit', 'folders=1');
}, 120_000);

let server: TestServer;
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const client = (credentials: ConstructorParameters<typeof ApiClient>[1]) => new ApiClient(server.url, credentials);

describe('operator commands', () => {
  it('create-key prints a 68-character svc_ key as its last line', () => {
    expect(prepared.freeKey).toMatch(/^svc_[A-Za-z0-9_-]{64}$/);
  });

  it('the server accepts the key on the same storage (a new organisation on the free plan: reads only)', async () => {
    server = await startTestServer({ dataDir });
    expectStatus(await client({ key: prepared.freeKey }).call('listFolders'), 200);
    expectStatus(await client({ key: prepared.freeKey }).call('createFolder', { body: { name: 'x' } }), 403);
  });

  it('--permissions read makes a read-only key', async () => {
    expectStatus(await client({ key: prepared.readKey }).call('createFolder', { body: { name: 'x' } }), 403);
  });

  it('--role viewer makes a user who cannot write', async () => {
    const error = expectStatus(
      await client({ key: prepared.viewerKey }).call('createFolder', { body: { name: 'x' } }),
      403,
    );
    expect(error.error).toContain('editor role');
  });

  it('create-session prints a service_session cookie that can write with the CSRF header', async () => {
    expectStatus(await client({ session: prepared.session }).call('createFolder', { body: { name: 'web' } }), 201);
  });

  it('set-plan and set-limits apply to the organisation', async () => {
    const upgraded = client({ key: prepared.upgradedKey });
    expectStatus(await upgraded.call('createFolder', { body: { name: 'one' } }), 201);
    expectStatus(await upgraded.call('createFolder', { body: { name: 'two' } }), 402);
  });

  it.skipIf(pgUrl)(
    'refuses to open the embedded database while the server holds it, with a clear message',
    async () => {
      const result = await admin('create-key', '--email', email('late'));
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('is in use by process');
    },
  );

  it('rejects an unknown command with its usage', async () => {
    const result = await admin('launch-rockets', '--email', email('x'));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Unknown command launch-rockets');
  });

  it('rejects a bad limit', async () => {
    const result = await admin('set-limits', '--email', emails.upgraded, '--limit', 'folders=lots');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('expected name=number');
  });
});
