import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import * as schemas from '../../clients/typescript/src/generated/zod/schemas';
import {
  type ApiErrorBody,
  createClient,
  type Folder,
  type IpamClient,
  type Location,
  RESOURCES,
  type Vlan,
  type VlanListItem,
  type Vrf,
} from '../../clients/typescript/src/index';
import { useTestServer } from '../support/factories';

/** The body of a response the test expects to have `status`, typed by the schema of that status. */
function dataOf<R extends { status: number; data: unknown }, S extends R['status']>(
  response: R,
  status: S,
): Extract<R, { status: S }>['data'] {
  expect(response.status, JSON.stringify(response.data)).toBe(status);
  return response.data as Extract<R, { status: S }>['data'];
}

describe('SDK operations by operationId (statuses as values) against the real server', () => {
  const t = useTestServer();
  let sdk: IpamClient;

  beforeAll(() => {
    sdk = createClient({ baseUrl: t.server.url, apiKey: t.org.key });
  });

  it('creates, lists, gets, patches and deletes a folder', async () => {
    const created = dataOf(await sdk.createFolder({ name: 'sdk folder', description: 'through the SDK' }), 201);
    expectTypeOf(created).toEqualTypeOf<Folder>();
    expect(created).toMatchObject({ name: 'sdk folder', description: 'through the SDK', sort_order: 0 });
    expect(schemas.CreateFolderResponse.parse(created)).toEqual(created);

    const list = dataOf(await sdk.listFolders(), 200);
    expect(list.map((folder) => folder.id)).toContain(created.id);
    expect(dataOf(await sdk.getFolder(created.id), 200)).toEqual(created);
    const patched = dataOf(await sdk.updateFolder(created.id, { sort_order: 7 }), 200);
    expect(patched).toEqual({ ...created, sort_order: 7 });

    const deleted = await sdk.deleteFolder(created.id);
    expect(deleted.status).toBe(204);
    expect(deleted.data).toBeUndefined();
    expect((await sdk.getFolder(created.id)).status).toBe(404);
  });

  it('creates, lists, gets, patches and deletes a location', async () => {
    const created = dataOf(await sdk.createLocation({ name: 'sdk site', address: '1 Main St' }), 201);
    expectTypeOf(created).toEqualTypeOf<Location>();
    expect(created).toMatchObject({ name: 'sdk site', address: '1 Main St' });

    const item = dataOf(await sdk.listLocations(), 200).find((location) => location.id === created.id);
    expect(item).toEqual({ ...created, subnet_count: 0, vlan_count: 0 });
    expect(dataOf(await sdk.getLocation(created.id), 200)).toEqual(created);
    const patched = dataOf(await sdk.updateLocation(created.id, { address: '2 Main St' }), 200);
    expect(patched).toEqual({ ...created, address: '2 Main St' });

    expect((await sdk.deleteLocation(created.id)).status).toBe(204);
    expect((await sdk.getLocation(created.id)).status).toBe(404);
  });

  it('creates, lists, gets, patches and deletes a VLAN', async () => {
    const site = dataOf(await sdk.createLocation({ name: 'vlan site' }), 201);
    const created = dataOf(await sdk.createVlan({ vlan_number: 120, name: 'servers', location_id: site.id }), 201);
    expectTypeOf(created).toEqualTypeOf<Vlan>();
    expect(created).toMatchObject({ vlan_number: 120, name: 'servers', location_id: site.id });
    expect(schemas.GetVlanResponse.parse(created)).toEqual(created);

    const list = dataOf(await sdk.listVlans(), 200);
    expectTypeOf(list).toEqualTypeOf<VlanListItem[]>();
    expect(list.find((vlan) => vlan.id === created.id)).toEqual({ ...created, subnet_count: 0 });
    expect(dataOf(await sdk.getVlan(created.id), 200)).toEqual(created);
    const patched = dataOf(await sdk.updateVlan(created.id, { name: 'web', location_id: null }), 200);
    expect(patched).toEqual({ ...created, name: 'web', location_id: null });

    expect((await sdk.deleteVlan(created.id)).status).toBe(204);
    expect((await sdk.getVlan(created.id)).status).toBe(404);
  });

  it('creates, lists, gets, patches and deletes a VRF', async () => {
    const created = dataOf(await sdk.createVrf({ name: 'sdk-vrf', rd: '65000:1' }), 201);
    expectTypeOf(created).toEqualTypeOf<Vrf>();
    expect(created).toMatchObject({ name: 'sdk-vrf', rd: '65000:1' });

    const item = dataOf(await sdk.listVrfs(), 200).find((vrf) => vrf.id === created.id);
    expect(item).toEqual({ ...created, subnet_count: 0 });
    expect(dataOf(await sdk.getVrf(created.id), 200)).toEqual(created);
    const patched = dataOf(await sdk.updateVrf(created.id, { description: 'tenant A' }), 200);
    expect(patched).toEqual({ ...created, description: 'tenant A' });

    expect((await sdk.deleteVrf(created.id)).status).toBe(204);
    expect((await sdk.getVrf(created.id)).status).toBe(404);
  });

  it('answers a 404 as a value typed ApiError, narrowed by its status', async () => {
    const response = await sdk.getFolder(randomUUID());
    if (response.status === 200) expectTypeOf(response.data).toEqualTypeOf<Folder>();
    else if (response.status === 304) expectTypeOf(response.data).toEqualTypeOf<void>();
    else expectTypeOf(response.data).toEqualTypeOf<ApiErrorBody>();
    const error = dataOf(response, 404);
    expectTypeOf(error).toEqualTypeOf<ApiErrorBody>();
    expect(error).toEqual({ error: expect.any(String), code: 'not_found' });
    expect(response.headers.get('content-type')).toContain('application/json');
  });

  it('answers a validation error (VLAN 4095) as a 400 ApiError naming the field', async () => {
    const error = dataOf(await sdk.createVlan({ vlan_number: 4095 }), 400);
    expectTypeOf(error).toEqualTypeOf<ApiErrorBody>();
    expect(error.code).toBe('validation');
    expect(error.error).toMatch(/^vlan_number: /);
    expect(schemas.CreateVlanBody.safeParse({ vlan_number: 4095 }).success).toBe(false);
  });

  it('answers a wrong API key with 401 unauthenticated', async () => {
    const stranger = createClient({ baseUrl: t.server.url, apiKey: `svc_${'x'.repeat(64)}` });
    const error = dataOf(await stranger.listFolders(), 401);
    expect(error.code).toBe('unauthenticated');
  });

  it('keeps each client’s configuration to itself', async () => {
    const other = await t.server.newOrg();
    const otherSdk = createClient({ baseUrl: t.server.url, apiKey: other.key });
    const mine = dataOf(await sdk.createFolder({ name: 'only mine' }), 201);
    expect((await otherSdk.getFolder(mine.id)).status).toBe(404);
    expect((await sdk.getFolder(mine.id)).status).toBe(200);
  });
});

describe('createClient', () => {
  const requests: { url: string; headers: Headers; init: RequestInit }[] = [];
  const fakeFetch: typeof fetch = async (input, init = {}) => {
    requests.push({ url: String(input), headers: new Headers(init.headers), init });
    return new Response(null, { status: 204 });
  };
  const sdk = createClient({ baseUrl: 'https://ipam.example.test/prefix/', apiKey: 'svc_test', fetch: fakeFetch });

  it('exposes exactly the operations of the OpenAPI document', () => {
    const document = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8'));
    const operationIds = Object.values(document.paths as Record<string, Record<string, { operationId: string }>>)
      .flatMap((item) => Object.values(item).map((operation) => operation.operationId))
      .sort();
    const groups = Object.keys(RESOURCES);
    expect(
      Object.keys(sdk)
        .filter((key) => !groups.includes(key))
        .sort(),
    ).toEqual(operationIds);
  });

  it('sends every operation to the base URL with the API key, whatever arguments it is given', async () => {
    const operations = Object.entries(sdk).filter(([, value]) => typeof value === 'function');
    expect(operations).toHaveLength(111);
    for (const [name, operation] of operations) {
      requests.length = 0;
      await (operation as () => Promise<unknown>)();
      expect(requests, name).toHaveLength(1);
      expect(requests[0]?.url, name).toMatch(/^https:\/\/ipam\.example\.test\/prefix\/api\/v1\//);
      expect(requests[0]?.headers.get('authorization'), name).toBe('Bearer svc_test');
    }
  });

  it('passes per-call options through: query, headers, signal', async () => {
    requests.length = 0;
    const controller = new AbortController();
    await sdk.listSubnets({ folder_id: 'f0' }, { headers: { 'x-request-id': 'r1' }, signal: controller.signal });
    await sdk.updateFolder('f1', { name: 'n' }, { headers: [['x-request-id', 'r2']] });
    expect(requests.map((r) => r.url)).toEqual([
      'https://ipam.example.test/prefix/api/v1/subnets?folder_id=f0',
      'https://ipam.example.test/prefix/api/v1/folders/f1',
    ]);
    expect(requests[0]?.headers.get('x-request-id')).toBe('r1');
    // The caller's signal is combined with the client's timeout: aborting it aborts the request.
    expect(requests[0]?.init.signal?.aborted).toBe(false);
    controller.abort();
    expect(requests[0]?.init.signal?.aborted).toBe(true);
    expect(requests[1]?.init.method).toBe('PATCH');
    expect(requests[1]?.init.body).toBe('{"name":"n"}');
    expect(requests[1]?.headers.get('content-type')).toBe('application/json');
    expect(requests[1]?.headers.get('x-request-id')).toBe('r2');
    expect(requests[1]?.headers.get('authorization')).toBe('Bearer svc_test');
  });
});
