import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors } from './common/errors';
import { IdempotencyHeaders, idempotent } from './common/idempotency';
import { access } from './common/meta';
import {
  CustomFields,
  describedUuid,
  IdParams,
  Offset,
  PageCursor,
  queryInt,
  Timestamp,
  text,
  Uuid,
} from './common/schemas';
import { IfMatchHeaders, IfNoneMatchHeaders, versioned } from './common/versions';
import { CUSTOM_FIELD_FILTERS_DOC, withCustomFieldFilters } from './custom-fields.contract';
import { ResourceTags, TagFilterQuery, TagNames } from './tags.contract';

const c = initContract();
const meta = access('Addresses');

export const addressStatuses = ['assigned', 'reserved', 'd-dhcp', 'm-dhcp', 'gateway'] as const;

export const AddressStatus = extendApi(z.enum(addressStatuses), {
  title: 'AddressStatus',
  description: 'assigned, reserved, d-dhcp (dynamic DHCP), m-dhcp (manual DHCP) or gateway',
  example: 'assigned',
});

/** Longest hold, in seconds: 7 days. */
export const HOLD_MAX_SECONDS = 604_800;

const HoldSeconds = z
  .number()
  .int()
  .min(1)
  .max(HOLD_MAX_SECONDS)
  .optional()
  .describe(
    `Hold the address for this many seconds (1 to ${HOLD_MAX_SECONDS.toLocaleString('en')}): it is reserved with ` +
      '`expires_at`, and released (deleted, event `address.released`) when that passes unless a PATCH of its status ' +
      'confirms it first',
  );

/** A held address is reserved: a status given beside `hold_seconds` must be `reserved`. */
const heldIsReserved = (body: { hold_seconds?: number; status?: string }) =>
  body.hold_seconds === undefined || body.status === undefined || body.status === 'reserved';
const HELD_IS_RESERVED = { message: 'a held address is reserved: give status reserved or none', path: ['status'] };

/**
 * A MAC address as typed: colon- or hyphen-separated pairs (aa:bb:cc:dd:ee:ff, AA-BB-CC-DD-EE-FF) or 12 bare hex
 * digits (aabbccddeeff); the server stores it lower-case and colon-separated. An empty string clears it.
 */
const MacAddressInput = z
  .string()
  .regex(
    /^(?:|[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}|[0-9A-Fa-f]{2}(?:-[0-9A-Fa-f]{2}){5}|[0-9A-Fa-f]{12})$/,
    'must be a MAC address such as aa:bb:cc:dd:ee:ff (or empty to clear)',
  )
  .describe(
    'MAC address: aa:bb:cc:dd:ee:ff, aa-bb-cc-dd-ee-ff or aabbccddeeff; stored as lower-case colon-separated hex. ' +
      'An empty string clears it',
  );

const addressExample = {
  id: '5d7e8f90-a1b2-4c3d-9e4f-5a6b7c8d9e0f',
  subnet_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  ip: '10.0.1.10',
  hostname: 'web-01.example.com',
  mac_address: '00:1a:2b:3c:4d:5e',
  description: 'Frontend web server',
  status: 'assigned',
  owner: 'netops',
  ptr_record: 'web-01.example.com',
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
};

export const Address = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the address record (UUID)'),
      subnet_id: Uuid.describe('Subnet the address belongs to: the smallest subnet containing it'),
      ip: z.string().describe('IPv4 or IPv6 address, e.g. 10.0.1.10 or 2001:db8::10; immutable'),
      hostname: z.string().describe('Hostname, e.g. web-01.example.com'),
      mac_address: z.string().describe('Colon-separated lower-case hex, e.g. 00:1a:2b:3c:4d:5e; empty when unset'),
      description: z.string().describe('Free-text description of the address; empty when unset'),
      status: AddressStatus,
      owner: z.string().describe('Person or team responsible for the address, e.g. netops'),
      ptr_record: z.string().optional().describe('Reverse DNS name; omitted when unset'),
      tags: ResourceTags.optional(),
      custom_fields: CustomFields.optional(),
      last_seen: Timestamp.optional().describe('When the address was last seen on the network; omitted when unset'),
      expires_at: Timestamp.optional().describe(
        'End of a hold (`hold_seconds`): the service releases (deletes) the address then unless its status is set ' +
          'first; omitted when not held',
      ),
      created_at: Timestamp,
      updated_at: Timestamp,
    })
    .strict(),
  {
    title: 'Address',
    description: 'An IP address record inside a subnet',
    example: addressExample,
  },
);

const addressFields = {
  hostname: text(253).describe('Host name, e.g. web-01.example.com'),
  mac_address: MacAddressInput,
  description: text(),
  owner: text(200).describe('Person or team responsible'),
};

export const CreateAddressBody = extendApi(
  z
    .object({
      ip: z
        .string()
        .ip()
        .describe('IPv4 or IPv6 address inside the subnet, not yet assigned, e.g. 10.0.1.10 or 2001:db8::10'),
      hostname: addressFields.hostname.optional(),
      mac_address: addressFields.mac_address.optional(),
      description: addressFields.description
        .optional()
        .describe('Free-text description of the address, e.g. Primary web server'),
      status: z
        .enum(addressStatuses)
        .optional()
        .describe('Status of the new address; default assigned (reserved when held)'),
      owner: addressFields.owner.optional(),
      tags: TagNames.optional(),
      custom_fields: CustomFields.optional(),
      hold_seconds: HoldSeconds,
    })
    .strict()
    .refine(heldIsReserved, HELD_IS_RESERVED),
  {
    title: 'CreateAddressBody',
    description: 'A new IP address record in the subnet',
    example: { ip: '10.0.1.10', hostname: 'web-01.example.com', mac_address: '00:1a:2b:3c:4d:5e', status: 'assigned' },
  },
);

export const UpdateAddressBody = extendApi(
  z
    .object({
      hostname: addressFields.hostname.optional(),
      mac_address: addressFields.mac_address.optional(),
      description: addressFields.description
        .optional()
        .describe('Free-text description of the address, e.g. Primary web server'),
      status: AddressStatus.optional(),
      owner: addressFields.owner.optional(),
      tags: TagNames.optional(),
      custom_fields: CustomFields.optional(),
    })
    .strict(),
  {
    title: 'UpdateAddressBody',
    description: 'Only the fields given change. `ip` cannot be changed.',
    example: { status: 'reserved', owner: 'platform-team' },
  },
);

export const BatchCreateAddressesBody = extendApi(
  z
    .object({
      ips: z.array(z.string().ip()).min(1).max(500).describe('1 to 500 IPv4 or IPv6 addresses inside the subnet'),
      status: z.enum(addressStatuses).default('reserved').describe('Status of every created address; default reserved'),
    })
    .strict(),
  {
    title: 'BatchCreateAddressesBody',
    description: 'IP addresses to record at once, all with the same status',
    example: { ips: ['10.0.1.20', '10.0.1.21', '10.0.1.22'], status: 'reserved' },
  },
);

/** Most addresses one allocation creates. */
export const ALLOCATE_MAX_ADDRESSES = 500;

export const AllocateAddressesBody = extendApi(
  z
    .object({
      count: z
        .number()
        .int()
        .min(1)
        .max(ALLOCATE_MAX_ADDRESSES)
        .default(1)
        .describe('How many addresses to allocate, 1 to 500 (default 1)'),
      hostname: addressFields.hostname.optional().describe('Host name; only with count 1'),
      mac_address: MacAddressInput.optional().describe('MAC address; only with count 1'),
      description: addressFields.description.optional().describe('Description of every allocated address'),
      status: z
        .enum(addressStatuses)
        .optional()
        .describe('Status of every allocated address; default assigned (reserved when held)'),
      owner: addressFields.owner.optional(),
      tags: TagNames.optional(),
      custom_fields: CustomFields.optional(),
      hold_seconds: HoldSeconds,
      range_id: Uuid.optional().describe('Take the addresses inside this IP range of the subnet only'),
      skip_ranges: z.boolean().optional().describe('`true`: take addresses outside every IP range of the subnet only'),
      skip_first: z
        .number()
        .int()
        .min(0)
        .max(1_000_000)
        .optional()
        .describe('Pass over the first this many usable addresses (of the range with `range_id`, else of the subnet)'),
    })
    .strict()
    .refine((body) => !(body.range_id !== undefined && body.skip_ranges), {
      message: 'not with range_id',
      path: ['skip_ranges'],
    })
    .refine((body) => body.count === 1 || (body.hostname === undefined && body.mac_address === undefined), {
      message: 'hostname and mac_address name one address: give them only with count 1',
      path: ['hostname'],
    })
    .refine(heldIsReserved, HELD_IS_RESERVED),
  {
    title: 'AllocateAddressesBody',
    description: 'How many of the lowest free addresses to take, and the fields they get',
    example: { count: 1, hostname: 'web-07.example.com', owner: 'platform-team' },
  },
);

export const BatchUpdateAddressesBody = extendApi(
  z
    .object({
      ids: z.array(Uuid).min(1).max(500).describe('1 to 500 address ids'),
      status: AddressStatus.optional(),
      owner: addressFields.owner.optional(),
    })
    .strict()
    .refine((body) => body.status !== undefined || body.owner !== undefined, {
      message: 'give status, owner or both',
      path: ['status'],
    }),
  {
    title: 'BatchUpdateAddressesBody',
    description: 'Sets status and/or owner (at least one) on every address given',
    example: {
      ids: ['5d7e8f90-a1b2-4c3d-9e4f-5a6b7c8d9e0f', '6e8f90a1-b2c3-4d4e-8f5a-6b7c8d9e0f1a'],
      status: 'reserved',
    },
  },
);

export const BatchDeleteAddressesBody = extendApi(
  z
    .object({
      ids: z.array(Uuid).min(1).max(500).describe('1 to 500 address ids'),
    })
    .strict(),
  {
    title: 'BatchDeleteAddressesBody',
    description: 'Ids of the address records to delete at once',
    example: { ids: ['5d7e8f90-a1b2-4c3d-9e4f-5a6b7c8d9e0f', '6e8f90a1-b2c3-4d4e-8f5a-6b7c8d9e0f1a'] },
  },
);

export const AddressBatchCreateResult = extendApi(
  z.object({ created: z.number().int().nonnegative().describe('Addresses created') }).strict(),
  { title: 'AddressBatchCreateResult', description: 'Number of addresses created', example: { created: 3 } },
);

export const AddressBatchUpdateResult = extendApi(
  z.object({ updated: z.number().int().nonnegative().describe('Addresses updated') }).strict(),
  { title: 'AddressBatchUpdateResult', description: 'Number of addresses updated', example: { updated: 2 } },
);

export const AddressBatchDeleteResult = extendApi(
  z.object({ deleted: z.number().int().nonnegative().describe('Addresses deleted') }).strict(),
  { title: 'AddressBatchDeleteResult', description: 'Number of addresses deleted', example: { deleted: 2 } },
);

/** A subnet's address list's own parameters; `ListAddressesQuery` adds the custom field filters. */
const AddressListParameters = z
  .object({
    limit: queryInt(1, 1000, 1000).describe('Items to return, 1 to 1000 (default 1000)'),
    offset: Offset,
    cursor: PageCursor,
    status: z
      .string()
      .max(100)
      .optional()
      .describe('Only addresses with this status, or any of several separated by commas, e.g. reserved,d-dhcp'),
    hostname_prefix: z.string().max(253).optional().describe('Only hostnames starting with this (any case)'),
    hostname_contains: z.string().max(253).optional().describe('Only hostnames holding this (any case)'),
    mac_address: MacAddressInput.optional().describe('Only this MAC address (any of the forms it is given in)'),
    created_after: Timestamp.optional().describe('Only addresses created after this RFC 3339 time'),
    updated_after: Timestamp.optional().describe('Only addresses last changed after this RFC 3339 time'),
    ...TagFilterQuery,
  })
  .strict();

export const ListAddressesQuery = withCustomFieldFilters(AddressListParameters);

export const addressesContract = c.router({
  listSubnetAddresses: {
    method: 'GET',
    path: '/subnets/:id/addresses',
    summary: 'List the addresses of a subnet',
    description:
      'Address records of the subnet, in address order (10.0.1.2 before 10.0.1.10; 2001:db8::2 before ' +
      '2001:db8::10). Paginated with limit and offset, or by cursor: every page but the last carries `Next-Cursor` ' +
      '(and `Link: <…>; rel="next"`), and `?cursor=` gives the page after it. The total is in `X-Total-Count`. ' +
      CUSTOM_FIELD_FILTERS_DOC,
    metadata: { ...meta.read, totalCountHeader: true, cursorPages: true },
    pathParams: IdParams,
    query: ListAddressesQuery,
    responses: { 200: z.array(Address), ...errors(400, 401, 403, 404, 429) },
  },
  createAddress: {
    method: 'POST',
    path: '/subnets/:id/addresses',
    summary: 'Create an address',
    description:
      'Records an address (e.g. 10.0.1.10 in 10.0.1.0/24, or 2001:db8::10 in 2001:db8::/48). The ip must lie in ' +
      'the subnet’s range, not inside one of its child subnets, and not be assigned yet (400 otherwise). Status ' +
      'defaults to assigned. Counts against the plan’s address limit (402 when reached).',
    metadata: idempotent(meta.write),
    headers: IdempotencyHeaders,
    pathParams: IdParams,
    body: CreateAddressBody,
    responses: { 201: Address, ...errors(400, 401, 402, 403, 404, 409, 413, 415, 422, 429) },
  },
  batchCreateAddresses: {
    method: 'POST',
    path: '/subnets/:id/addresses/batch-create',
    summary: 'Create addresses in bulk',
    description:
      'Creates up to 500 addresses in the subnet with one status (default reserved). Every ip is validated first: ' +
      'one invalid or outside the subnet fails the whole request (400) and nothing is created. Ips already ' +
      'assigned are skipped. Answers 200 with the number created, like the other batch operations. Counts against ' +
      'the plan’s address limit (402).',
    metadata: idempotent(meta.write),
    headers: IdempotencyHeaders,
    pathParams: IdParams,
    body: BatchCreateAddressesBody,
    responses: { 200: AddressBatchCreateResult, ...errors(400, 401, 402, 403, 404, 409, 413, 415, 422, 429) },
  },
  batchUpdateAddresses: {
    method: 'POST',
    path: '/addresses/batch-update',
    summary: 'Update addresses in bulk',
    description:
      'Sets status and/or owner on up to 500 addresses. Ids not found in the caller’s organisation are skipped ' +
      'and not counted. Answers 200 with the number updated.',
    metadata: idempotent(meta.write),
    headers: IdempotencyHeaders,
    body: BatchUpdateAddressesBody,
    responses: { 200: AddressBatchUpdateResult, ...errors(400, 401, 403, 409, 413, 415, 422, 429) },
  },
  batchDeleteAddresses: {
    method: 'POST',
    path: '/addresses/batch-delete',
    summary: 'Delete addresses in bulk',
    description:
      'Deletes up to 500 addresses, releasing their IPs. Ids not found in the caller’s organisation are skipped ' +
      'and not counted. Answers 200 with the number deleted.',
    metadata: idempotent(meta.write),
    headers: IdempotencyHeaders,
    body: BatchDeleteAddressesBody,
    responses: { 200: AddressBatchDeleteResult, ...errors(400, 401, 403, 409, 413, 415, 422, 429) },
  },
  getAddress: {
    method: 'GET',
    path: '/addresses/:id',
    summary: 'Get an address',
    description: 'One address record of the caller’s organisation.',
    metadata: versioned(meta.read),
    headers: IfNoneMatchHeaders,
    pathParams: IdParams,
    responses: { 200: Address, 304: c.noBody(), ...errors(400, 401, 403, 404, 429) },
  },
  updateAddress: {
    method: 'PATCH',
    path: '/addresses/:id',
    summary: 'Update an address',
    description: 'Changes only the fields given. The ip cannot change (a body with `ip` is refused with 400).',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    body: UpdateAddressBody,
    responses: { 200: Address, ...errors(400, 401, 403, 404, 412, 413, 415, 429) },
  },
  deleteAddress: {
    method: 'DELETE',
    path: '/addresses/:id',
    summary: 'Delete an address',
    description: 'Deletes the address record, releasing the IP.',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    responses: { 204: c.noBody(), ...errors(400, 401, 403, 404, 412, 429) },
  },
});
