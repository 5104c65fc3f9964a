/**
 * The API's operations grouped by resource, one group per OpenAPI tag: `client.subnets.create(…)` calls the
 * generated `createSubnet`. The table below is the whole mapping; its type check makes every generated
 * operation appear in exactly one group (test/sdk/resources.test.ts checks the groups against the tags).
 */
import type { ExactCounts } from './counts.js';
import type { RateLimitInfo } from './errors.js';
import type * as endpoints from './generated/endpoints.js';

type Endpoints = typeof endpoints;

/** The API's operations, named by their OpenAPI operationId (the generated module also exports URL helpers). */
export type OperationName = {
  [K in keyof Endpoints]: Endpoints[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof Endpoints];

export const RESOURCES = {
  folders: {
    list: 'listFolders',
    create: 'createFolder',
    get: 'getFolder',
    update: 'updateFolder',
    delete: 'deleteFolder',
  },
  subnets: {
    list: 'listSubnets',
    create: 'createSubnet',
    get: 'getSubnet',
    update: 'updateSubnet',
    delete: 'deleteSubnet',
    split: 'splitSubnet',
    usage: 'getSubnetUsage',
    firstFree: 'getSubnetFirstFreeIp',
    freeBlocks: 'getSubnetFreeBlocks',
    overlaps: 'listSubnetOverlaps',
    allocateAddress: 'allocateAddress',
    allocateSubnet: 'allocateSubnet',
  },
  addresses: {
    list: 'listSubnetAddresses',
    create: 'createAddress',
    get: 'getAddress',
    update: 'updateAddress',
    delete: 'deleteAddress',
    batchCreate: 'batchCreateAddresses',
    batchUpdate: 'batchUpdateAddresses',
    batchDelete: 'batchDeleteAddresses',
  },
  vlans: { list: 'listVlans', create: 'createVlan', get: 'getVlan', update: 'updateVlan', delete: 'deleteVlan' },
  vrfs: { list: 'listVrfs', create: 'createVrf', get: 'getVrf', update: 'updateVrf', delete: 'deleteVrf' },
  locations: {
    list: 'listLocations',
    create: 'createLocation',
    get: 'getLocation',
    update: 'updateLocation',
    delete: 'deleteLocation',
  },
  webhooks: {
    list: 'listWebhooks',
    create: 'createWebhook',
    get: 'getWebhook',
    update: 'updateWebhook',
    delete: 'deleteWebhook',
    deliveries: 'listWebhookDeliveries',
    test: 'testWebhook',
    rotateSecret: 'rotateWebhookSecret',
  },
  apiKeys: { list: 'listApiKeys', create: 'createApiKey', revoke: 'revokeApiKey' },
  team: {
    listMembers: 'listTeamMembers',
    updateMemberRole: 'updateTeamMemberRole',
    removeMember: 'removeTeamMember',
    listInvitations: 'listTeamInvitations',
    invite: 'createTeamInvitation',
    cancelInvitation: 'cancelTeamInvitation',
  },
  activity: { list: 'listActivity', filters: 'listActivityFilters', export: 'exportActivity' },
  changes: { list: 'listChanges' },
  customFields: {
    list: 'listCustomFields',
    create: 'createCustomField',
    get: 'getCustomField',
    update: 'updateCustomField',
    delete: 'deleteCustomField',
  },
  ranges: {
    list: 'listSubnetRanges',
    create: 'createSubnetRange',
    update: 'updateRange',
    delete: 'deleteRange',
  },
  tags: { list: 'listTags', create: 'createTag', get: 'getTag', update: 'updateTag', delete: 'deleteTag' },
  auth: {
    methods: 'getSignInMethods',
    me: 'getCurrentUser',
    logout: 'endSession',
    deleteAccount: 'deleteAccount',
    sendMagicLink: 'sendMagicLink',
    verifyMagicLink: 'verifyMagicLink',
    startGoogleSignIn: 'startGoogleSignIn',
    completeGoogleSignIn: 'completeGoogleSignIn',
    acceptInvitation: 'acceptInvitation',
  },
  billing: {
    plan: 'getBillingPlan',
    checkout: 'createCheckoutSession',
    portal: 'createPortalSession',
    updateOrganizationName: 'updateOrganizationName',
    receiveStripeEvent: 'receiveStripeEvent',
  },
  importExport: {
    importSubnets: 'importSubnets',
    importAddresses: 'importAddresses',
    importRanges: 'importRanges',
    exportSubnets: 'exportSubnets',
    exportAddresses: 'exportAddresses',
    exportRanges: 'exportRanges',
  },
  search: { query: 'searchIpam' },
  tools: {
    myIp: 'getMyIp',
    dns: 'lookupDns',
    reverseDns: 'lookupReverseDns',
    dnsPropagation: 'checkDnsPropagation',
    whois: 'lookupWhois',
    asn: 'lookupAsn',
    ssl: 'checkSslCertificate',
    spf: 'checkSpfRecord',
    dmarc: 'checkDmarcRecord',
    blacklist: 'checkIpBlacklist',
    http2: 'checkHttp2Support',
    headers: 'inspectHttpHeaders',
    ping: 'pingHost',
    ports: 'scanPorts',
    traceroute: 'traceRoute',
  },
} as const satisfies Record<string, Record<string, OperationName>>;

type Resources = typeof RESOURCES;
type Mapped = { [G in keyof Resources]: Resources[G][keyof Resources[G]] }[keyof Resources];
/** Fails to compile when an operation of the document is missing from RESOURCES. */
export const everyOperationGrouped: [Exclude<OperationName, Mapped>] extends [never] ? true : never = true;

type Answer<K extends OperationName> = Awaited<ReturnType<Endpoints[K]>>;
/**
 * What a resource method resolves to: the body of the operation's success response (`void` for 204), its
 * counts of addresses exact (`number | bigint`, see counts.ts).
 */
export type SuccessData<K extends OperationName> = ExactCounts<
  Extract<Answer<K>, { status: 200 | 201 | 202 | 204 | 307 }>['data']
>;

/** The answer a result came with (stripe-node's `lastResponse`): not enumerable, so JSON and spreads leave it out. */
export interface LastResponse {
  status: number;
  /** `X-Request-Id`, the one to quote to support. */
  requestId: string | null;
  /** `X-RateLimit-*`; null on routes without a per-user limit. */
  rateLimit: RateLimitInfo | null;
  /** `ETag`: the version of a single resource (its GET and PATCH), for `ifMatch` and `ifNoneMatch`. */
  etag: string | null;
  headers: Headers;
}

/** An object or array result carries `lastResponse`; `void` and text results cannot (see `onResponse`). */
export type WithLastResponse<T> = T extends object ? T & { readonly lastResponse: LastResponse } : T;

/**
 * The custom field filters of the subnet list and a subnet's address list (`cf_<name>`, and `cf_<name>__gte`,
 * `__lte`, `__gt`, `__lt` for integer and date fields), which the document states in the lists' descriptions.
 */
export type CustomFieldFilters = { [parameter: `cf_${string}`]: string | number | boolean };

/** The lists that take custom field filters, and the position of their query parameters. */
interface FilteredLists {
  listSubnets: 0;
  listSubnetAddresses: 1;
}

/** Arguments `A` with the one at position `P` (a string, as tuple keys are) also taking custom field filters. */
type WithFiltersAt<A extends readonly unknown[], P extends string> = {
  [I in keyof A]: I extends P ? A[I] & CustomFieldFilters : A[I];
};

/** An operation's arguments; a list's query also takes custom field filters. */
type ArgumentsOf<K extends OperationName> = K extends keyof FilteredLists
  ? WithFiltersAt<Parameters<Endpoints[K]>, `${FilteredLists[K]}`>
  : Parameters<Endpoints[K]>;

/** A generated operation that resolves to its success body and throws `ApiError` for an error status. */
export type ResourceMethod<K extends OperationName> = (
  ...args: ArgumentsOf<K>
) => Promise<WithLastResponse<SuccessData<K>>>;

export type ResourceMethods = {
  readonly [G in keyof Resources]: {
    readonly [M in keyof Resources[G]]: Resources[G][M] extends OperationName ? ResourceMethod<Resources[G][M]> : never;
  };
};
