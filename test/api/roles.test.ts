/**
 * The role matrix (docs/decisions.md), written out by hand (not read from the contract's metadata), checked route
 * by route in both directions: each role at or above a route's least role gets past authorization, each
 * role below it gets 403.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../contract';
import { contractRoutes } from '../../contract/routes';
import type { ApiClient, CallOptions } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { exampleBody, hasJsonBody } from '../support/routes';

/** The least role each authenticated route needs (docs/decisions.md, Roles). */
const LEAST_ROLE: Record<string, Role> = {
  getCurrentUser: 'viewer',
  endSession: 'viewer',
  deleteAccount: 'viewer',
  // IPAM data: viewers read, editors write.
  listFolders: 'viewer',
  getFolder: 'viewer',
  createFolder: 'editor',
  updateFolder: 'editor',
  deleteFolder: 'editor',
  listSubnets: 'viewer',
  listSubnetOverlaps: 'viewer',
  getSubnet: 'viewer',
  getSubnetUsage: 'viewer',
  getSubnetFirstFreeIp: 'viewer',
  getSubnetFreeBlocks: 'viewer',
  createSubnet: 'editor',
  updateSubnet: 'editor',
  deleteSubnet: 'editor',
  splitSubnet: 'editor',
  listSubnetAddresses: 'viewer',
  getAddress: 'viewer',
  createAddress: 'editor',
  batchCreateAddresses: 'editor',
  allocateAddress: 'editor',
  allocateSubnet: 'editor',
  batchUpdateAddresses: 'editor',
  batchDeleteAddresses: 'editor',
  updateAddress: 'editor',
  deleteAddress: 'editor',
  listVlans: 'viewer',
  getVlan: 'viewer',
  createVlan: 'editor',
  updateVlan: 'editor',
  deleteVlan: 'editor',
  listVrfs: 'viewer',
  getVrf: 'viewer',
  createVrf: 'editor',
  updateVrf: 'editor',
  deleteVrf: 'editor',
  listLocations: 'viewer',
  getLocation: 'viewer',
  createLocation: 'editor',
  updateLocation: 'editor',
  deleteLocation: 'editor',
  importSubnets: 'editor',
  importAddresses: 'editor',
  importRanges: 'editor',
  exportSubnets: 'viewer',
  exportAddresses: 'viewer',
  exportRanges: 'viewer',
  searchIpam: 'viewer',
  listActivity: 'viewer',
  listActivityFilters: 'viewer',
  listChanges: 'viewer',
  listSubnetRanges: 'viewer',
  createSubnetRange: 'editor',
  updateRange: 'editor',
  deleteRange: 'editor',
  listTags: 'viewer',
  createTag: 'editor',
  getTag: 'viewer',
  updateTag: 'editor',
  deleteTag: 'editor',
  listCustomFields: 'viewer',
  getCustomField: 'viewer',
  createCustomField: 'editor',
  updateCustomField: 'editor',
  deleteCustomField: 'editor',
  exportActivity: 'viewer',
  // Own API keys: viewers list theirs, editors also create and revoke theirs.
  listApiKeys: 'viewer',
  createApiKey: 'editor',
  revokeApiKey: 'editor',
  // Team: everyone sees the members; only admins manage members and invitations.
  listTeamMembers: 'viewer',
  updateTeamMemberRole: 'admin',
  removeTeamMember: 'admin',
  createTeamInvitation: 'admin',
  listTeamInvitations: 'admin',
  cancelTeamInvitation: 'admin',
  // Webhooks are admin-only, reads included.
  listWebhooks: 'admin',
  getWebhook: 'admin',
  createWebhook: 'admin',
  updateWebhook: 'admin',
  deleteWebhook: 'admin',
  listWebhookDeliveries: 'admin',
  testWebhook: 'admin',
  rotateWebhookSecret: 'admin',
  // Billing: the plan is visible to all; checkout, portal and the organisation name are admin-only.
  getBillingPlan: 'viewer',
  createCheckoutSession: 'admin',
  createPortalSession: 'admin',
  updateOrganizationName: 'admin',
};
const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2 };
const ROLES: Role[] = ['viewer', 'editor', 'admin'];

const t = useTestServer({}, { plan: 'enterprise' });
const members = {} as Record<Role, ApiClient>;

beforeAll(async () => {
  for (const role of ROLES) members[role] = (await t.org.member(role)).api;
});

const authenticated = contractRoutes.filter(
  (r) => r.route.metadata && (r.route.metadata as { access: string }).access !== 'public',
);

/** Fresh ids in the path (nothing to find there) and the document's example body. */
function request(id: string, path: string): CallOptions {
  const params = Object.fromEntries([...path.matchAll(/:(\w+)/g)].map(([, name]) => [name, randomUUID()]));
  const route = authenticated.find((r) => r.id === id)!.route;
  return {
    params,
    body: hasJsonBody(route) ? exampleBody(id) : undefined,
    query: id === 'searchIpam' ? { q: 'x' } : undefined,
  };
}

describe('the role matrix', () => {
  it('names a least role for every authenticated route of the contract', () => {
    expect(authenticated.map((r) => r.id).filter((id) => !(id in LEAST_ROLE))).toEqual([]);
  });

  for (const role of ROLES) {
    it.each(authenticated.map((r) => r.id))(`%s with the ${role} role`, async (id) => {
      const route = authenticated.find((r) => r.id === id)!.route;
      // Deleting one's account really deletes it: give that route a member of its own, signed in (it takes no key).
      const api = id === 'deleteAccount' ? (await t.org.member(role)).web : members[role];
      const response = await api.call(id, request(id, route.path));
      if (RANK[role] >= RANK[defined(LEAST_ROLE[id], `the least role of ${id}`)]) {
        expect([401, 403], `${id} as ${role}: ${response.text}`).not.toContain(response.status);
      } else {
        expect(expectStatus(response, 403).error).toContain(`needs the ${LEAST_ROLE[id]} role`);
      }
    });
  }
});
