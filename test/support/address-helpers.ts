/** Helpers of the address test files: calls through a test server's first organisation (or another client). */
import type { ApiClient } from './client';
import { createSubnet as createSubnetWith, type useTestServer } from './factories';
import { expectStatus, type ResponseBody } from './observed';
import type { TestServer } from './server';

export type Address = ResponseBody<'getAddress', 200>;
export type Body = Record<string, unknown>;

export function addressHelpers(t: ReturnType<typeof useTestServer>) {
  /** A subnet of the file's organisation unless another client is given. */
  const createSubnet = (network: string, api: ApiClient = t.org.api, extra: Body = {}) =>
    createSubnetWith(api, network, extra);
  /** A new organisation (pro unless told) with one subnet. */
  const fresh = async (network = '10.0.0.0/24', options: Parameters<TestServer['newOrg']>[0] = {}) => {
    const own = await t.server.newOrg(options);
    const api = options.plan === 'free' ? own.web : own.api;
    return { api, subnet: await createSubnet(network, api) };
  };
  const create = (subnetId: string, body: Body, api: ApiClient = t.org.api) =>
    api.call('createAddress', { params: { id: subnetId }, body });
  const created = async (subnetId: string, body: Body, api: ApiClient = t.org.api) =>
    expectStatus(await create(subnetId, body, api), 201);
  const refused = async (subnetId: string, body: Body, api: ApiClient = t.org.api) =>
    expectStatus(await create(subnetId, body, api), 400);
  const batchCreate = (subnetId: string, body: Body, api: ApiClient = t.org.api) =>
    api.call('batchCreateAddresses', { params: { id: subnetId }, body });
  /** Batch-creates `ips`; answers the body. */
  const batched = async (subnetId: string, ips: string[], api: ApiClient, extra: Body = {}) =>
    expectStatus(await batchCreate(subnetId, { ips, ...extra }, api), 200);
  /** Batch-creates `ips`, expecting the refusal `status`; answers the error. */
  const batchRefused = async (subnetId: string, ips: string[], api: ApiClient, status: 400 | 402) =>
    expectStatus(await batchCreate(subnetId, { ips }, api), status);
  const list = async (subnetId: string, api: ApiClient = t.org.api, query: Record<string, number> = {}) => {
    const response = await api.call('listSubnetAddresses', { params: { id: subnetId }, query });
    return { items: expectStatus(response, 200), total: response.headers.get('x-total-count') };
  };
  const getAddress = (id: string, api: ApiClient = t.org.api) => api.call('getAddress', { params: { id } });
  const patch = (id: string, body: Body, api: ApiClient = t.org.api) =>
    api.call('updateAddress', { params: { id }, body });
  /** A new organisation with 10.0.0.0/24 in the global space and again in a VRF. */
  const twoSpaces = async () => {
    const { subnet, api } = await fresh();
    const vrf = expectStatus(await api.call('createVrf', { body: { name: 'blue' } }), 201);
    return { subnet, api, inVrf: await createSubnet('10.0.0.0/24', api, { vrf_id: vrf.id }) };
  };
  /** `count` consecutive IPv4 addresses from `first` (no octet carry beyond the third octet). */
  const range = (first: string, count: number) => {
    const [a, b, c = 0, d = 0] = first.split('.').map(Number);
    return Array.from({ length: count }, (_, i) => `${a}.${b}.${c + Math.floor((d + i) / 256)}.${(d + i) % 256}`);
  };
  /** A subnet holding `count` addresses (a /21 from 10.0.0.1), with their ids. */
  const populated = async (count: number, api: ApiClient) => {
    const subnet = await createSubnet('10.0.0.0/21', api);
    const ips = range('10.0.0.1', count);
    for (let i = 0; i < count; i += 500) await batched(subnet.id, ips.slice(i, i + 500), api);
    return { subnet, ids: (await list(subnet.id, api)).items.map((a) => a.id) };
  };
  return {
    createSubnet,
    fresh,
    create,
    created,
    refused,
    batchCreate,
    batched,
    batchRefused,
    list,
    getAddress,
    patch,
    twoSpaces,
    range,
    populated,
  };
}
