/**
 * Two organisations: every route that takes an id answers the other organisation's ids with
 * 404 (never their data, never a 403 that would reveal existence), and no list or search shows them.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { contractRoutes } from '../../contract/routes';
import { defined } from '../support/defined';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { exampleBody, hasJsonBody } from '../support/routes';
import type { TestOrg } from '../support/server';

// The owner's webhook points at a loopback address allowed for it (it is never called).
const t = useTestServer({ config: { outboundAllowCidrs: ['127.0.0.1/32'] } }, { plan: 'enterprise' });
let owner: TestOrg;
let stranger: TestOrg;
/** The owner's objects by the resource path that names them. */
const ids: Record<string, string> = {};
/** The creates whose answer is the created object (a subnet's may be `{subnet, warnings}`). */
type Creates =
  `create${'Folder' | 'Location' | 'Vlan' | 'Vrf' | 'Address' | 'ApiKey' | 'TeamInvitation' | 'Webhook' | 'SubnetRange' | 'Tag' | 'CustomField'}`;

beforeAll(async () => {
  [owner, stranger] = [t.org, await t.server.newOrg({ plan: 'enterprise' })];
  const create = async (operationId: Creates, body: unknown, params?: Record<string, string>) =>
    expectStatus(await owner.api.call(operationId, { body, params }), 201).id;
  ids.folders = await create('createFolder', { name: 'owner-folder' });
  ids.locations = await create('createLocation', { name: 'owner-site' });
  ids.vlans = await create('createVlan', { vlan_number: 42, location_id: ids.locations });
  ids.vrfs = await create('createVrf', { name: 'owner-vrf' });
  ids.subnets = (await createSubnet(owner.api, '10.42.0.0/16', { folder_id: ids.folders, name: 'owner-net' })).id;
  ids.addresses = await create('createAddress', { ip: '10.42.0.7', hostname: 'owner-host' }, { id: ids.subnets });
  ids.ranges = await create(
    'createSubnetRange',
    { start: '10.42.1.1', end: '10.42.1.9', role: 'dhcp', description: 'owner-range' },
    { id: ids.subnets },
  );
  ids.tags = await create('createTag', { name: 'owner-tag' });
  ids['custom-fields'] = await create('createCustomField', {
    kind: 'subnet',
    name: 'owner_field',
    type: 'text',
    label: 'owner-field',
  });
  ids.members = owner.userId;
  ids['api-keys'] = await create('createApiKey', { name: 'owner-key' });
  ids.invitations = await create('createTeamInvitation', { email: 'owner-invitee@example.test', role: 'viewer' });
  ids.webhooks = await create('createWebhook', { url: 'http://127.0.0.1:9/owner-hook', description: 'owner-hook' });
});

const withIds = contractRoutes.filter((r) => /:\w+/.test(r.route.path));
const lists = contractRoutes.filter((r) => r.route.method === 'GET' && !/:\w+/.test(r.route.path));

/** The owner's id for the resource a path names: /api/v1/<resource>/:id or /api/v1/team/members/:user_id. */
function ownerIdFor(path: string): string | undefined {
  const [resource = ''] = path.replace('/api/v1/', '').replace('team/', '').split('/');
  return ids[resource];
}

/** Every id kind a route takes must be created above, so no route escapes the check. */
const KINDS = [
  'folders',
  'locations',
  'vlans',
  'vrfs',
  'subnets',
  'addresses',
  'ranges',
  'tags',
  'custom-fields',
  'members',
  'api-keys',
  'invitations',
  'webhooks',
];

describe('another organisation’s ids', () => {
  it('covers every route that takes an id', () => {
    const kindOf = (path: string) => path.replace('/api/v1/', '').replace('team/', '').split('/')[0] ?? '';
    expect(withIds.map((r) => kindOf(r.route.path)).filter((kind) => !KINDS.includes(kind))).toEqual([]);
  });

  it.each(withIds.map((r) => r.id))('%s answers 404', async (id) => {
    const route = withIds.find((r) => r.id === id)!.route;
    const ownerId = ownerIdFor(route.path)!;
    const params = Object.fromEntries([...route.path.matchAll(/:(\w+)/g)].map(([, name]) => [name, ownerId]));
    const body = hasJsonBody(route) ? exampleBody(id) : undefined;
    const query = id === 'getSubnetFreeBlocks' ? { prefix: 24 } : undefined;
    const response = await stranger.api.call(id, { params, body, query });
    expectStatus(response, 404);
    expect(response.text).not.toContain('owner-');
  });

  it('are real: the owner reaches each of them', async () => {
    for (const [operationId, id] of [
      ['getFolder', ids.folders],
      ['getSubnet', ids.subnets],
      ['getAddress', ids.addresses],
      ['getVlan', ids.vlans],
      ['getVrf', ids.vrfs],
      ['getLocation', ids.locations],
    ] as const) {
      expectStatus(await owner.api.call(operationId, { params: { id: defined(id, operationId) } }), 200);
    }
  });
});

describe('lists and search', () => {
  it.each(lists.map((r) => r.id))('%s never shows the owner’s objects', async (id) => {
    const query = id === 'searchIpam' ? { q: '10.42' } : undefined;
    const response = await stranger.api.call(id, { query });
    expect(response.status).toBeLessThan(500);
    for (const ownerId of Object.values(ids)) expect(response.text).not.toContain(ownerId);
    expect(response.text).not.toContain('owner-');
  });
});
