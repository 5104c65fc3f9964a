/**
 * The OpenAPI document is a product, not an orval input: an independent toolchain consumes it. Types are
 * generated with openapi-typescript (its CLI, into a scratch directory), a small program using them with
 * openapi-fetch is typechecked by `tsc --noEmit` (including calls that must NOT compile), then run against
 * the real server.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { useTestServer } from '../support/factories';

const run = promisify(execFile);
const dir = resolve('.test-artifacts', `second-consumer-${randomUUID()}`);

const PROGRAM = `
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';

type Folder = components['schemas']['Folder'];
type ApiError = components['schemas']['ApiError'];

const api = createClient<paths>({
  baseUrl: process.env.IPAM_BASE_URL,
  headers: { Authorization: \`Bearer \${process.env.IPAM_API_KEY}\` },
});

const created = await api.POST('/api/v1/folders', { body: { name: 'second consumer', description: 'openapi-fetch' } });
if (!created.data) throw new Error(\`createFolder: \${created.response.status}\`);
const folder: Folder = created.data;

const listed = await api.GET('/api/v1/folders');
const fetched = await api.GET('/api/v1/folders/{id}', { params: { path: { id: folder.id } } });
const patched = await api.PATCH('/api/v1/folders/{id}', { params: { path: { id: folder.id } }, body: { sort_order: 3 } });
const subnet = await api.POST('/api/v1/subnets', { body: { network: '10.77.0.0/24', folder_id: folder.id } });
const subnetId = subnet.data && ('subnet' in subnet.data ? subnet.data.subnet.id : subnet.data.id);
const addresses = await api.GET('/api/v1/subnets/{id}/addresses', {
  params: { path: { id: subnetId ?? '' }, query: { limit: 10 } },
});
const missing = await api.GET('/api/v1/vlans/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } });
const error: ApiError | undefined = missing.error;
const deleted = await api.DELETE('/api/v1/folders/{id}', { params: { path: { id: folder.id } } });

/** Never called: these lines only have to fail to compile, which proves the types say something. */
export function mustNotCompile() {
  // @ts-expect-error vlan_number is an integer
  api.POST('/api/v1/vlans', { body: { vlan_number: 'ten' } });
  // @ts-expect-error the path parameter is required
  api.GET('/api/v1/folders/{id}');
  // @ts-expect-error no such route
  api.GET('/api/v1/nothing-here');
  // @ts-expect-error a Folder has no vlan_number
  const wrong: number = folder.vlan_number;
  return wrong;
}

console.log(JSON.stringify({
  created: created.response.status,
  listed: listed.data?.map((f) => f.name),
  fetched: fetched.data?.id === folder.id,
  patched: patched.data?.sort_order,
  subnet: subnet.response.status,
  addresses: [addresses.response.status, addresses.response.headers.get('x-total-count')],
  missing: [missing.response.status, error?.code],
  deleted: deleted.response.status,
}));
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    lib: ['ES2022', 'DOM'],
    types: ['node'],
    strict: true,
    noEmit: true,
    skipLibCheck: false,
  },
  files: ['schema.d.ts', 'program.ts'],
};

const t = useTestServer({}, false);
beforeAll(() => {
  mkdirSync(dir, { recursive: true });
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

it('generates types with openapi-typescript that compile, and runs openapi-fetch calls against the server', async () => {
  await run('node_modules/.bin/openapi-typescript', ['openapi/openapi.json', '--output', join(dir, 'schema.d.ts')]);
  writeFileSync(join(dir, 'program.ts'), PROGRAM);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));

  const typecheck = await run('node_modules/.bin/tsc', ['--noEmit', '-p', join(dir, 'tsconfig.json')]).catch(
    (e: { stdout: string }) => ({ stdout: e.stdout, failed: true }),
  );
  expect(typecheck.stdout).toBe('');

  const org = await t.server.newOrg();
  const { stdout } = await run('node_modules/.bin/tsx', [join(dir, 'program.ts')], {
    env: { ...process.env, IPAM_BASE_URL: t.server.url, IPAM_API_KEY: org.key },
  });
  expect(JSON.parse(stdout)).toEqual({
    created: 201,
    listed: ['second consumer'],
    fetched: true,
    patched: 3,
    subnet: 201,
    addresses: [200, '0'],
    missing: [404, 'not_found'],
    deleted: 204,
  });
}, 60_000);
