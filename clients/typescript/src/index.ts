/**
 * @ipam/sdk: the orval-generated client of the IPAM Service API (./generated, never edited by hand:
 * `npm run sdk` rewrites it from openapi/openapi.json) plus this small hand-written layer:
 *
 * - `client.<resource>.<method>(…)` (resources.ts): resolves to the success body, throws a typed `ApiError`;
 * - `client.<operationId>(…)`: the generated operation itself, resolving to `{data, status, headers}` for
 *   every status (the low-level form, for reading headers or handling statuses as values);
 * - pagination iterators (pagination.ts), retries and timeouts (http.ts), webhook verification (webhooks.ts);
 * - exact counts of addresses: JSON integers past 2^53 read as bigints (json.ts), typed so (counts.ts).
 */

import { type FollowParams, followChanges } from './changes.js';
import type { ExactAnswer, Subnet } from './counts.js';
import { rateLimitOf } from './errors.js';
import * as endpoints from './generated/endpoints.js';
import type {
  ActivityEntry,
  Address,
  Change,
  ChangePage,
  ListActivityParams,
  ListSubnetAddressesParams,
  ListSubnetsParams,
  WebhookDelivery,
} from './generated/endpoints.schemas.js';
import type { ClientConfig, HttpResponse, RequestOptions } from './http.js';
import {
  iterateActivity,
  iterateAddresses,
  iterateDeliveries,
  iterateSubnets,
  type PageParams,
  type PagePosition,
} from './pagination.js';
import {
  type CustomFieldFilters,
  type LastResponse,
  type OperationName,
  RESOURCES,
  type ResourceMethods,
} from './resources.js';

export type { FollowParams } from './changes.js';
// These take the place of the generated types of the same names (`export *` below): counts may be bigints.
export type {
  AddressCount,
  ExactAnswer,
  ExactCounts,
  IpRange,
  Subnet,
  SubnetCreatedWithWarnings,
  SubnetDetail,
  SubnetUsage,
} from './counts.js';
export {
  ApiConnectionError,
  ApiError,
  type ApiErrorCode,
  type ApiErrorInit,
  ApiTimeoutError,
  AuthenticationError,
  apiErrorFor,
  BadGatewayError,
  BadRequestError,
  ConflictError,
  CursorExpiredError,
  InternalServerError,
  isErrorCode,
  NotFoundError,
  NotImplementedError,
  PayloadTooLargeError,
  PermissionDeniedError,
  PlanLimitError,
  PreconditionFailedError,
  RateLimitError,
  type RateLimitInfo,
  rateLimitOf,
  retryAfterOf,
  ServiceUnavailableError,
  UnsupportedMediaTypeError,
} from './errors.js';
export type * from './generated/endpoints.js';
/** The JSON body of every error answer, `{error, code}` (the class `ApiError` is what the SDK throws). */
export type { ApiError as ApiErrorBody } from './generated/endpoints.schemas.js';
export * from './generated/endpoints.schemas.js';
export {
  type ClientConfig,
  DEFAULTS,
  type HttpResponse,
  type RequestOptions,
  type ResponseInfo,
  retryDelay,
} from './http.js';
export { parseJson } from './json.js';
export type { PageParams } from './pagination.js';
export {
  type CustomFieldFilters,
  type LastResponse,
  type OperationName,
  RESOURCES,
  type ResourceMethod,
  type SuccessData,
  type WithLastResponse,
} from './resources.js';
export * from './webhooks.js';

type Endpoints = typeof endpoints;

/** Pagination helpers, beside the resource methods of their group. */
export interface IteratorMethods {
  readonly addresses: {
    /** Every address of a subnet, in address order, `limit` (default 1000) per request. */
    iterate(
      subnetId: string,
      params?: Omit<ListSubnetAddressesParams, 'limit' | 'offset'> & PageParams & CustomFieldFilters,
      options?: RequestOptions,
    ): AsyncGenerator<Address, void, undefined>;
  };
  readonly subnets: {
    /** Every subnet that passes the filters, in the list's order, `limit` (default 1000) per request. */
    iterate(
      params?: Omit<ListSubnetsParams, 'cursor'> & CustomFieldFilters,
      options?: RequestOptions,
    ): AsyncGenerator<Subnet, void, undefined>;
  };
  readonly activity: {
    /** Every activity entry matching the filters, newest first, `limit` (default 500) per request. */
    iterate(params?: ListActivityParams, options?: RequestOptions): AsyncGenerator<ActivityEntry, void, undefined>;
  };
  readonly changes: {
    /**
     * Every change after `after` in commit order, then each one as it commits (polling every `pollInterval` ms),
     * until `signal` aborts (or, with `untilCaughtUp`, until none is left); a cursor too old throws
     * `CursorExpiredError`. Keep the last change's `cursor` to resume after it.
     */
    follow(params?: FollowParams, options?: RequestOptions): AsyncGenerator<Change, void, undefined>;
  };
  readonly webhooks: {
    /** Every recorded delivery of a subscription, newest first, `limit` (default 100) per request. */
    iterateDeliveries(
      webhookId: string,
      params?: PageParams,
      options?: RequestOptions,
    ): AsyncGenerator<WebhookDelivery, void, undefined>;
  };
}

/** A generated operation as the client exposes it: its answer's counts of addresses exact (see counts.ts). */
type ExactOperation<F> = F extends (...args: infer A) => Promise<infer R> ? (...args: A) => Promise<ExactAnswer<R>> : F;

/**
 * One client: its configuration, the resource methods (`client.subnets.create(…)`), the pagination
 * iterators, and every generated operation by operationId (`client.createSubnet(…)` → `{data, status, headers}`).
 */
export type IpamClient = { readonly [K in OperationName]: ExactOperation<Endpoints[K]> } & ResourceMethods &
  IteratorMethods;

/** orval names the URL builder of operation `fooBar` `getFooBarUrl`. */
function isUrlHelper(name: string): boolean {
  const operation = /^get(\w+)Url$/.exec(name)?.[1];
  return operation !== undefined && `${operation.charAt(0).toLowerCase()}${operation.slice(1)}` in endpoints;
}

type Operation = (...args: unknown[]) => Promise<HttpResponse>;

/** The body of an answer, carrying the answer as a non-enumerable `lastResponse` when it is an object. */
function withLastResponse({ data, status, headers }: HttpResponse): unknown {
  if (data === null || typeof data !== 'object') return data;
  const lastResponse: LastResponse = {
    status,
    requestId: headers.get('x-request-id'),
    rateLimit: rateLimitOf(headers),
    etag: headers.get('etag'),
    headers,
  };
  return Object.defineProperty(data, 'lastResponse', { value: lastResponse, enumerable: false });
}

export function createClient(config: ClientConfig): IpamClient {
  const bound: ClientConfig = Object.freeze({ ...config });
  const operations = Object.fromEntries(
    Object.entries(endpoints).filter(([name, value]) => typeof value === 'function' && !isUrlHelper(name)),
  ) as Record<OperationName, Operation>;

  // Every generated operation declares its parameters, then `options` last: pad the arguments the caller
  // left out so the client's configuration always lands in `options`.
  const call = (name: OperationName, args: unknown[], extra: RequestOptions = {}) => {
    const operation = operations[name];
    const optionsIndex = operation.length - 1;
    const params = Array.from({ length: optionsIndex }, (_, i) => args[i]);
    const options = args[optionsIndex] as RequestOptions | undefined;
    return operation(...params, { ...options, ...extra, client: bound });
  };
  /** A page fetcher for the iterators: the operation with throwing on, the page's position and limit merged in. */
  const page =
    (name: OperationName, before: unknown[], params: object) =>
    (position: PagePosition, limit: number, options?: RequestOptions): Promise<HttpResponse<any>> =>
      call(name, [...before, { ...params, ...position, limit }, options], { throwOnError: true });

  const client: Record<string, unknown> = {};
  for (const name of Object.keys(operations) as OperationName[]) {
    client[name] = (...args: unknown[]) => call(name, args);
  }
  for (const [group, methods] of Object.entries(RESOURCES)) {
    const resource: Record<string, unknown> = {};
    for (const [method, name] of Object.entries(methods) as [string, OperationName][]) {
      resource[method] = async (...args: unknown[]) => withLastResponse(await call(name, args, { throwOnError: true }));
    }
    client[group] = resource;
  }
  const groups = client as Record<keyof IteratorMethods, Record<string, unknown>>;
  groups.addresses.iterate = (
    subnetId: string,
    { limit, offset, ...filters }: PageParams = {},
    options?: RequestOptions,
  ) => iterateAddresses(page('listSubnetAddresses', [subnetId], filters), { limit, offset }, options);
  groups.subnets.iterate = ({ limit, ...filters }: ListSubnetsParams = {}, options?: RequestOptions) =>
    iterateSubnets(page('listSubnets', [], filters), { limit }, options);
  groups.activity.iterate = ({ limit, offset, ...filters }: ListActivityParams = {}, options?: RequestOptions) =>
    iterateActivity(page('listActivity', [], filters), { limit, offset }, options);
  groups.changes.follow = (params?: FollowParams, options?: RequestOptions) =>
    followChanges(
      (after, limit, pageOptions) =>
        call('listChanges', [{ after, limit }, pageOptions], { throwOnError: true }) as Promise<
          HttpResponse<ChangePage>
        >,
      params,
      options,
    );
  groups.webhooks.iterateDeliveries = (webhookId: string, params: PageParams = {}, options?: RequestOptions) =>
    iterateDeliveries(page('listWebhookDeliveries', [webhookId], {}), params, options);

  for (const group of Object.keys(RESOURCES)) Object.freeze(client[group]);
  return Object.freeze(client) as unknown as IpamClient;
}
