/** The numbered examples run as a user would run them, against the real server, and must succeed. */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server?.close());

const examples = readdirSync('examples').filter((f) => /^\d\d-.+\.ts$/.test(f));

it.each(examples)('examples/%s runs to completion', async (file) => {
  const org = await server.newOrg({ plan: 'pro' });
  const { stdout } = await promisify(execFile)('node_modules/.bin/tsx', [`examples/${file}`], {
    env: { ...process.env, IPAM_BASE_URL: server.url, IPAM_API_KEY: org.key },
  });
  expect(stdout.length).toBeGreaterThan(0);
});
