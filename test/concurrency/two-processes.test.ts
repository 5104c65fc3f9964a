/**
 * Concurrency against a real PostgreSQL server shared by two server processes, so an in-process lock
 * could not pass. Needs TEST_DATABASE_URL (PGlite has one connection and one process).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { containsCidr, parseCidr } from '../../server/ipam';
import * as identity from '../../server/modules/identity/identity.service';
import type { ApiClient } from '../support/client';
import { defined } from '../support/defined';
import { clientsOf, createSubnet, subnetOf, useServerProcesses } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useServerProcesses();
const url = t.url;

/** A fresh organisation with a key, and one client per server process. */
async function clients(limits?: Record<string, number>) {
  const email = `race-${randomUUID()}@example.test`;
  const user = await identity.ensureUser(t.database.db, email, { plan: 'enterprise' });
  if (limits) await identity.setLimits(t.database.db, email, limits);
  const { key } = await identity.createApiKey(t.database.db, user, 'race');
  return clientsOf(t.servers, { key });
}

/** Runs `count` calls spread over both processes at once and answers what each answered. */
async function race<T>(apis: ApiClient[], count: number, call: (api: ApiClient, i: number) => Promise<T>) {
  return Promise.all(Array.from({ length: count }, (_, i) => call(defined(apis[i % apis.length], 'a client'), i)));
}

describe.skipIf(!url)('two server processes on one PostgreSQL database', () => {
  it('50 parallel creations of the same CIDR in one VRF give exactly one success', async () => {
    const apis = await clients();
    const vrf = expectStatus(await apis[0].call('createVrf', { body: { name: 'race' } }), 201);
    const statuses = await race(apis, 50, async (api) => {
      const response = await api.call('createSubnet', { body: { network: '10.50.0.0/24', vrf_id: vrf.id } });
      return response.status;
    });
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(49);
  });

  it('50 parallel creations of the same address give exactly one success', async () => {
    const apis = await clients();
    const subnet = await createSubnet(apis[0], '10.60.0.0/24');
    const statuses = await race(apis, 50, async (api) => {
      const response = await api.call('createAddress', { params: { id: subnet.id }, body: { ip: '10.60.0.7' } });
      return response.status;
    });
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 400)).toHaveLength(49);
  });

  it('parallel creations of nested subnets leave every parent equal to the smallest container', async () => {
    const apis = await clients();
    const networks = [8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28].map((p) => `10.0.0.0/${p}`);
    networks.push('10.128.0.0/9', '10.1.0.0/16', '10.1.2.0/24', '10.64.0.0/10', '10.0.64.0/18', '10.0.0.128/25');
    const shuffled = networks
      .map((n) => ({ n, k: Math.random() }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.n);
    const statuses = await race(apis, shuffled.length, async (api, i) => {
      return (await api.call('createSubnet', { body: { network: shuffled[i] } })).status;
    });
    expect(statuses.every((s) => s === 201)).toBe(true);
    const list = expectStatus(await apis[0].call('listSubnets'), 200);
    const cidrOf = (s: { network: string }) => parseCidr(s.network)!.cidr;
    for (const subnet of list) {
      const containers = list.filter((o) => o.id !== subnet.id && containsCidr(cidrOf(o), cidrOf(subnet)));
      const smallest = containers.sort((a, b) => cidrOf(b).prefix - cidrOf(a).prefix)[0];
      expect(subnet.parent_id, subnet.network).toBe(smallest?.id);
    }
  });

  it('addresses created while a covering child subnet is created all end up in the child', async () => {
    const apis = await clients();
    const parent = await createSubnet(apis[0], '10.70.0.0/16');
    const ips = Array.from({ length: 40 }, (_, i) => `10.70.1.${i + 1}`);
    const [child, ...created] = await Promise.all([
      new Promise((r) => setTimeout(r, 5)).then(() =>
        apis[1].call('createSubnet', { body: { network: '10.70.1.0/24' } }),
      ),
      ...ips.map((ip, i) =>
        defined(apis[i % 2], 'a client').call('createAddress', { params: { id: parent.id }, body: { ip } }),
      ),
    ]);
    const childId = subnetOf(expectStatus(child, 201)).id;
    const list = async (id: string) => expectStatus(await apis[0].call('listSubnetAddresses', { params: { id } }), 200);
    expect(await list(parent.id)).toEqual([]);
    expect(await list(childId)).toHaveLength(created.filter((r) => r.status === 201).length);
  });

  it('parallel creations at a plan limit never pass it', async () => {
    const apis = await clients({ folders: 5 });
    const statuses = await race(apis, 20, async (api, i) => {
      return (await api.call('createFolder', { body: { name: `f${i}` } })).status;
    });
    expect(statuses.filter((s) => s === 201)).toHaveLength(5);
    expect(statuses.filter((s) => s === 402)).toHaveLength(15);
  });

  it('parallel single address creations at the address limit never pass it', async () => {
    const apis = await clients({ addresses: 7 });
    const subnet = await createSubnet(apis[0], '10.77.0.0/24');
    const statuses = await race(apis, 20, async (api, i) => {
      return (await api.call('createAddress', { params: { id: subnet.id }, body: { ip: `10.77.0.${i + 1}` } })).status;
    });
    expect(statuses.filter((s) => s === 201)).toHaveLength(7);
    expect(statuses.filter((s) => s === 402)).toHaveLength(13);
  });

  it('parallel imports naming the same new folder, VLAN and VRF create each once and all succeed', async () => {
    const apis = await clients();
    const named = { folder: 'DC', vlan: 7, vrf: 'corp', location: 'Berlin' };
    const statuses = await race(apis, 10, async (api, i) => {
      const send = () => api.call('importSubnets', { body: { subnets: [{ network: `10.70.${i}.0/24`, ...named }] } });
      let response = await send();
      // A user has 2 imports in flight per process at most: the others are told to retry (as the SDK does).
      while (response.status === 429) {
        await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after')) * 1000));
        response = await send();
      }
      return response.status;
    });
    expect(statuses).toEqual(Array(10).fill(200));
    const folders = expectStatus(await apis[0].call('listFolders', {}), 200);
    const subnets = expectStatus(await apis[0].call('listSubnets', {}), 200);
    expect(folders.map((f) => f.name)).toEqual(['DC']);
    expect(new Set(subnets.map((s) => s.folder_id))).toEqual(new Set([folders[0]?.id]));
  });

  it('50 parallel single allocations in one /24 all succeed with 50 different addresses', async () => {
    const apis = await clients();
    const subnet = await createSubnet(apis[0], '10.80.0.0/24');
    const ips = await race(apis, 50, async (api) => {
      const response = await api.call('allocateAddress', { params: { id: subnet.id }, body: {} });
      return defined(expectStatus(response, 201)[0], 'the address allocated').ip;
    });
    expect(new Set(ips).size).toBe(50);
    const expected = Array.from({ length: 50 }, (_, i) => `10.80.0.${i + 1}`);
    expect([...ips].sort()).toEqual([...expected].sort());
  });

  it('parallel allocations at the edge of a subnet give every free address once, then 409', async () => {
    const apis = await clients();
    const subnet = await createSubnet(apis[0], '10.81.0.0/28'); // 14 usable
    const statuses = await race(apis, 20, async (api) => {
      const response = await api.call('allocateAddress', { params: { id: subnet.id }, body: {} });
      return response.status;
    });
    expect(statuses.filter((s) => s === 201)).toHaveLength(14);
    expect(statuses.filter((s) => s === 409)).toHaveLength(6);
  });

  it('20 parallel subnet allocations in one /16 all succeed with 20 different blocks', async () => {
    const apis = await clients();
    const parent = await createSubnet(apis[0], '10.82.0.0/16');
    const networks = await race(apis, 20, async (api) => {
      const response = await api.call('allocateSubnet', { params: { id: parent.id }, body: { prefix_length: 24 } });
      return defined(expectStatus(response, 201)[0], 'the subnet allocated').network;
    });
    expect(new Set(networks).size).toBe(20);
  });
});
