/**
 * A representative tour of the operations through the SDK, for the Prism validation proxy
 * (prism-proxy.test.ts): every resource's reads and writes, and each error status the document declares
 * that a valid request can meet (Prism refuses a request that breaks the document before it reaches the
 * server, so the 400s here are business-rule ones).
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import {
  ApiError,
  type IpamClient,
  type Subnet,
  type SubnetCreatedWithWarnings,
} from '../../clients/typescript/src/index';
import { defined } from '../support/defined';
import type { TestServer } from '../support/server';

export interface TourOptions {
  server: TestServer;
  /** An SDK client through the proxy, for an API key. */
  client: (apiKey: string) => IpamClient;
  /** Where the tour's webhook subscription points (a receiver the server may reach). */
  hookUrl: string;
}

const subnetOf = (created: Subnet | SubnetCreatedWithWarnings): Subnet =>
  'warnings' in created ? created.subnet : created;

export async function runTour({ server, client, hookUrl }: TourOptions): Promise<void> {
  const ok = <T>(promise: Promise<T>): Promise<T> => promise;
  /** Expects the call to fail with `status`. */
  const fails = async (status: number, promise: Promise<unknown>) => {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error, `expected ${status}`).toBeInstanceOf(ApiError);
    expect((error as ApiError).status, (error as ApiError).message).toBe(status);
  };

  const org = await server.newOrg({ plan: 'teams' });
  const api = client(org.key);

  // Folders, locations, VLANs, VRFs.
  const folder = await ok(api.folders.create({ name: 'DC A', description: 'tour' }));
  await ok(api.folders.list());
  await ok(api.folders.get(folder.id));
  await ok(api.folders.update(folder.id, { sort_order: 2 }));
  const site = await ok(api.locations.create({ name: 'Site 1', address: '1 Main St' }));
  await ok(api.locations.list());
  await ok(api.locations.get(site.id));
  await ok(api.locations.update(site.id, { address: '2 Main St' }));
  const vlan = await ok(api.vlans.create({ vlan_number: 120, name: 'servers', location_id: site.id }));
  await ok(api.vlans.list());
  await ok(api.vlans.get(vlan.id));
  await ok(api.vlans.update(vlan.id, { name: 'web' }));
  const vrf = await ok(api.vrfs.create({ name: 'tenant-a', rd: '65000:1' }));
  await ok(api.vrfs.list());
  await ok(api.vrfs.get(vrf.id));
  await ok(api.vrfs.update(vrf.id, { description: 'A' }));

  // Subnets: a /16, free /24s, nesting, split, usage, overlaps.
  const net = subnetOf(await ok(api.subnets.create({ network: '10.40.0.0/16', name: 'site', folder_id: folder.id })));
  const free = await ok(api.subnets.freeBlocks(net.id, { prefix: 24, limit: 3 }));
  const lan = subnetOf(
    await ok(
      api.subnets.create({
        network: defined(free.blocks[0], 'a free /24'),
        name: 'lan',
        vlan_id: vlan.id,
        gateway: '10.40.0.1',
      }),
    ),
  );
  const inVrf = subnetOf(await ok(api.subnets.create({ network: '10.40.0.0/24', vrf_id: vrf.id })));
  await ok(api.subnets.list({ folder_id: folder.id }));
  await ok(api.subnets.list());
  await ok(api.subnets.get(net.id));
  await ok(api.subnets.get(lan.id));
  await ok(api.subnets.update(lan.id, { description: 'office', location_id: site.id }));
  await ok(api.subnets.usage(net.id));
  await ok(api.subnets.firstFree(lan.id));
  await ok(api.subnets.overlaps());
  const spare = subnetOf(await ok(api.subnets.create({ network: defined(free.blocks[1], 'a second free /24') })));
  await ok(api.subnets.split(spare.id, { parts: 4 }));

  // Addresses.
  const address = await ok(api.addresses.create(lan.id, { ip: '10.40.0.10', hostname: 'web-1', status: 'assigned' }));
  await ok(api.addresses.get(address.id));
  await ok(api.addresses.update(address.id, { owner: 'ops' }));
  await ok(api.addresses.list(lan.id, { limit: 2, offset: 0 }));
  await ok(api.addresses.batchCreate(lan.id, { ips: ['10.40.0.20', '10.40.0.21'], status: 'reserved' }));
  const page = await ok(api.addresses.list(lan.id));
  const batch = page.filter((a) => a.ip !== '10.40.0.10').map((a) => a.id);
  await ok(api.addresses.batchUpdate({ ids: batch, owner: 'netops' }));
  await ok(api.addresses.batchDelete({ ids: batch }));
  await ok(api.subnets.firstFree(lan.id));
  await ok(api.addresses.delete(address.id));

  // Identity, keys, team, activity.
  await ok(api.auth.me());
  const key = await ok(api.apiKeys.create({ name: 'ci', permissions: ['read'] }));
  await ok(api.apiKeys.list());
  await ok(api.apiKeys.revoke(key.id));
  await ok(api.team.listMembers());
  const invitation = await ok(api.team.invite({ email: `new-${randomUUID()}@example.test`, role: 'viewer' }));
  await ok(api.team.listInvitations());
  await ok(api.team.cancelInvitation(invitation.id));
  await ok(api.activity.list({ limit: 5 }));
  await ok(api.activity.list({ resource_type: 'subnet', offset: 1 }));
  await ok(api.activity.filters());
  await ok(api.activity.export({ resource_type: 'folder' }));

  // Webhooks.
  const hook = await ok(api.webhooks.create({ url: hookUrl, description: 'tour', event_types: ['subnet.created'] }));
  await ok(api.webhooks.list());
  await ok(api.webhooks.get(hook.id));
  await ok(api.webhooks.update(hook.id, { is_active: false }));
  await ok(api.webhooks.test(hook.id));
  await ok(api.webhooks.deliveries(hook.id, { limit: 10 }));
  await ok(api.webhooks.rotateSecret(hook.id));
  await ok(api.webhooks.delete(hook.id));

  // Network tools that need no server on the other side: the caller's own address and request, a probe of a
  // refused target, and the server's resolver (a closed port in tests) not answering.
  await ok(api.tools.myIp());
  await ok(api.tools.headers());
  await fails(400, api.tools.ping({ host: '10.0.0.1' }));
  await fails(502, api.tools.spf({ domain: 'example.com' }));

  // Error statuses a valid request can meet.
  await fails(404, api.folders.get(randomUUID()));
  await fails(404, api.subnets.usage(randomUUID()));
  await fails(404, api.webhooks.get(randomUUID()));
  await fails(400, api.subnets.create({ network: '10.40.0.0/16' })); // duplicate
  await fails(400, api.subnets.split(lan.id, { parts: 1024 })); // past /32
  await fails(400, api.addresses.create(lan.id, { ip: '10.41.0.1' })); // outside the subnet
  await fails(401, client(`svc_${'x'.repeat(64)}`).folders.list());
  const free_ = await server.newOrg({ plan: 'free' });
  await fails(403, client(free_.key).folders.create({ name: 'read-only key' }));
  const limited = await server.newOrg({ limits: { vlans: 0, rate_limit: 2 } });
  const small = client(limited.key);
  await fails(402, small.vlans.create({ vlan_number: 5 }));
  await ok(small.vlans.list());
  await fails(429, small.vlans.list());

  // Clean up what remains, through the delete routes.
  await ok(api.subnets.delete(net.id));
  await ok(api.subnets.delete(inVrf.id));
  await ok(api.vrfs.delete(vrf.id));
  await ok(api.vlans.delete(vlan.id));
  await ok(api.locations.delete(site.id));
  await ok(api.folders.delete(folder.id));
}
