/** `npm run build` in clients/typescript emits an ESM package with type declarations that plain Node can load. */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';

const run = promisify(execFile);

it('builds ESM and declarations into dist/, loadable by Node without a TypeScript loader', async () => {
  await run('npm', ['run', 'build'], { cwd: 'clients/typescript' });
  const pkg = JSON.parse(readFileSync('clients/typescript/package.json', 'utf8'));
  for (const target of [pkg.exports['.'].import, pkg.exports['.'].types, pkg.exports['./zod'].import]) {
    expect(existsSync(`clients/typescript/${target}`), target).toBe(true);
  }
  expect(readFileSync('clients/typescript/dist/index.d.ts', 'utf8')).toMatch(/export declare function createClient/);

  const smoke = `
    import { createClient, NotFoundError, signWebhook, verifyWebhook } from './clients/typescript/dist/index.js';
    const client = createClient({ baseUrl: 'http://127.0.0.1:9' });
    const secret = 'whsec_' + Buffer.from('a'.repeat(32)).toString('base64');
    const event = verifyWebhook(secret, '{"type":"ping"}', signWebhook(secret, 'msg_1', '{"type":"ping"}'));
    console.log(JSON.stringify([typeof client.subnets.create, typeof client.addresses.iterate, event.type, NotFoundError.name]));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', smoke]);
  expect(JSON.parse(stdout)).toEqual(['function', 'function', 'ping', 'NotFoundError']);
}, 120_000);
