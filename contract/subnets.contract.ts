import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { Address, AllocateAddressesBody } from './addresses.contract';
import { DryRunQuery, dryRunnable } from './common/dry-run';
import { errors } from './common/errors';
import { IdempotencyHeaders, idempotent } from './common/idempotency';
import { access, heavy } from './common/meta';
import { IdParams } from './common/schemas';
import { IfMatchHeaders, IfNoneMatchHeaders, versioned } from './common/versions';
import { CUSTOM_FIELD_FILTERS_DOC } from './custom-fields.contract';
import {
  AllocateSubnetsBody,
  CreateSubnetBody,
  FirstFreeQuery,
  ListSubnetsQuery,
  SplitSubnetBody,
  Subnet,
  SubnetCreatedWithWarnings,
  SubnetDeletion,
  SubnetDetail,
  SubnetFirstFreeIp,
  SubnetFreeBlocks,
  SubnetFreeBlocksQuery,
  SubnetOverlap,
  SubnetSplitPart,
  SubnetUsage,
  UpdateSubnetBody,
} from './subnets.schemas';

export * from './subnets.schemas';

const c = initContract();
const meta = access('Subnets');

export const subnetsContract = c.router({
  listSubnets: {
    method: 'GET',
    path: '/subnets',
    summary: 'List subnets',
    description:
      'All subnets of the caller’s organisation (IPv4 and IPv6), with utilization statistics and resolved folder, ' +
      'VLAN, VRF and location names; optionally only those of one folder. The whole list at once (not paginated) ' +
      'unless `limit` or `cursor` is given: then a page of `limit` subnets (default 1,000) in the same order (by ' +
      'VRF, the global space last, then address), `Next-Cursor` and `Link` on every page but the last, and ' +
      '`?cursor=` for the page after it. ' +
      CUSTOM_FIELD_FILTERS_DOC,
    metadata: { ...heavy(meta.read), cursorPages: true },
    query: ListSubnetsQuery,
    responses: { 200: z.array(Subnet), ...errors(400, 401, 403, 429) },
  },
  createSubnet: {
    method: 'POST',
    path: '/subnets',
    summary: 'Create a subnet',
    description:
      'Creates a subnet such as 10.0.1.0/24 or 2001:db8::/48. It is nested under the smallest containing subnet of ' +
      'its VRF, and existing subnets it contains are re-parented under it. The same CIDR twice in one VRF is refused ' +
      '(400). When created without a VRF and overlapping ranges in other VRFs, the answer is `{subnet, warnings}` and ' +
      'the create still succeeds. The subnet is answered as its GET shows it: its `children` are the subnets it ' +
      'adopted (with `dry_run=true`, those it would adopt). Counts against the plan’s subnet limit (402 when reached).',
    metadata: dryRunnable(idempotent(meta.write)),
    query: DryRunQuery,
    headers: IdempotencyHeaders,
    body: CreateSubnetBody,
    responses: {
      201: z.union([SubnetDetail, SubnetCreatedWithWarnings]),
      ...errors(400, 401, 402, 403, 409, 413, 415, 422, 429),
    },
  },
  // Declared before /subnets/:id so that Express matches it first.
  listSubnetOverlaps: {
    method: 'GET',
    path: '/subnets/overlaps',
    summary: 'List overlapping subnets across VRFs',
    description:
      'Pairs of subnets in different VRFs (or a VRF and the global space) whose ranges meet: `duplicate` when the ' +
      'CIDRs are equal (10.0.0.0/24 in two VRFs), `containment` when one lies inside the other (2001:db8::/48 and ' +
      '2001:db8:0:1::/64). Normalised CIDR blocks cannot partially overlap, so `partial` is reserved and not expected.',
    metadata: heavy(meta.read),
    responses: { 200: z.array(SubnetOverlap), ...errors(401, 403, 429) },
  },
  getSubnet: {
    method: 'GET',
    path: '/subnets/:id',
    summary: 'Get a subnet',
    description: 'One subnet with its utilization and its direct children.',
    metadata: versioned(meta.read),
    headers: IfNoneMatchHeaders,
    pathParams: IdParams,
    responses: { 200: SubnetDetail, 304: c.noBody(), ...errors(400, 401, 403, 404, 429) },
  },
  updateSubnet: {
    method: 'PATCH',
    path: '/subnets/:id',
    summary: 'Update a subnet',
    description:
      'Changes only the fields given; `network` cannot be changed. `vlan` (a number such as "120") and `vrf` (a ' +
      'name) are created when missing, which counts against the plan’s VLAN or VRF limit (402); an empty string ' +
      'clears the assignment. Changing `vrf` moves the subnet to another address space (duplicate-checked, re-nested).',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    body: UpdateSubnetBody,
    responses: { 200: Subnet, ...errors(400, 401, 402, 403, 404, 412, 413, 415, 429) },
  },
  deleteSubnet: {
    method: 'DELETE',
    path: '/subnets/:id',
    summary: 'Delete a subnet',
    description:
      'Deletes the subnet, all its child subnets and all their addresses. Irreversible. With `dry_run=true` it ' +
      'deletes nothing and answers 200 with what it would delete: every subnet of the cascade and its address count.',
    metadata: dryRunnable(versioned(meta.write)),
    query: DryRunQuery,
    headers: IfMatchHeaders,
    pathParams: IdParams,
    responses: { 200: SubnetDeletion, 204: c.noBody(), ...errors(400, 401, 403, 404, 412, 429) },
  },
  splitSubnet: {
    method: 'POST',
    path: '/subnets/:id/split',
    summary: 'Split a subnet',
    description:
      'Splits the subnet into `parts` equal subnets (a power of two from 2 to 1024), e.g. 10.0.1.0/24 into four /26 ' +
      'or 2001:db8::/48 into two /49. The original subnet and its own addresses are deleted; the new subnets inherit ' +
      'folder, parent, name, VRF and pool flag. The parts count against the plan’s subnet limit (402).',
    metadata: dryRunnable(idempotent(meta.write)),
    query: DryRunQuery,
    headers: IdempotencyHeaders,
    pathParams: IdParams,
    body: SplitSubnetBody,
    responses: { 200: z.array(SubnetSplitPart), ...errors(400, 401, 402, 403, 404, 409, 413, 415, 422, 429) },
  },
  getSubnetUsage: {
    method: 'GET',
    path: '/subnets/:id/usage',
    summary: 'Get subnet usage',
    description:
      'Used and total addresses of the subnet. Used counts the subnet’s addresses and those of its tracked ' +
      'descendants; total counts usable addresses (an IPv4 /30 or shorter excludes network and broadcast unless ' +
      'the subnet is a pool).',
    metadata: meta.read,
    pathParams: IdParams,
    responses: { 200: SubnetUsage, ...errors(400, 401, 403, 404, 429) },
  },
  getSubnetFirstFreeIp: {
    method: 'GET',
    path: '/subnets/:id/first-free',
    summary: 'Get the first free address',
    description:
      'The lowest unassigned address of the subnet (e.g. 10.0.1.2 or 2001:db8::2), skipping the gateway and the ' +
      'ranges of child subnets; only inside one of its IP ranges with `range_id`, outside all of them with ' +
      '`skip_ranges=true`, and past the first `skip_first` usable addresses (of the range, or of the subnet). When ' +
      'none is free: `{ip: null, message}`.',
    metadata: meta.read,
    pathParams: IdParams,
    query: FirstFreeQuery,
    responses: { 200: SubnetFirstFreeIp, ...errors(400, 401, 403, 404, 429) },
  },
  getSubnetFreeBlocks: {
    method: 'GET',
    path: '/subnets/:id/free-blocks',
    summary: 'Find free blocks',
    description:
      'The lowest free blocks of a prefix length inside the subnet (e.g. /26 blocks in 10.0.0.0/24, /64 blocks in ' +
      '2001:db8::/48) that collide with no existing subnet of the same VRF. `prefix` must be longer than the ' +
      'subnet’s own prefix (400 otherwise). `total` counts all free blocks up to a cap of 1,000,000.',
    metadata: heavy(meta.read),
    pathParams: IdParams,
    query: SubnetFreeBlocksQuery,
    responses: { 200: SubnetFreeBlocks, ...errors(400, 401, 403, 404, 429) },
  },
  allocateAddress: {
    method: 'POST',
    path: '/subnets/:id/allocate-address',
    summary: 'Allocate the next free addresses',
    description:
      'Creates `count` address records (default 1, at most 500) at the lowest free addresses of the subnet, the ' +
      'addresses `GET /subnets/{id}/first-free` would answer one after another: not the network or broadcast ' +
      'address (unless the subnet is a pool), not the gateway, not inside a child subnet, holding no record. ' +
      'Atomic: concurrent allocations never get the same address and never fail because of each other. 409 ' +
      '`exhausted` (nothing created) when fewer than `count` are free. Counts against the plan’s address limit ' +
      '(402); each address gets a `create` activity entry and an `address.created` event.',
    metadata: dryRunnable(idempotent(meta.write)),
    query: DryRunQuery,
    headers: IdempotencyHeaders,
    pathParams: IdParams,
    body: AllocateAddressesBody,
    responses: { 201: z.array(Address), ...errors(400, 401, 402, 403, 404, 409, 413, 415, 422, 429) },
  },
  allocateSubnet: {
    method: 'POST',
    path: '/subnets/:id/allocate-subnet',
    summary: 'Allocate the next free child subnets',
    description:
      'Creates `count` child subnets (default 1, at most 64) of `prefix_length` at the lowest free aligned blocks ' +
      'of the subnet, in its VRF: blocks that overlap no subnet below it and hold none of its address records ' +
      '(a new subnet starts empty). `prefix_length` must be longer than the subnet’s and fit its family (400). ' +
      'Atomic: concurrent allocations never get the same block and never fail because of each other. 409 ' +
      '`exhausted` (nothing created) when fewer than `count` blocks are free. Counts against the plan’s subnet ' +
      'limit (402); each subnet gets a `create` activity entry and a `subnet.created` event.',
    metadata: dryRunnable(idempotent(meta.write)),
    query: DryRunQuery,
    headers: IdempotencyHeaders,
    pathParams: IdParams,
    body: AllocateSubnetsBody,
    responses: { 201: z.array(Subnet), ...errors(400, 401, 402, 403, 404, 409, 413, 415, 422, 429) },
  },
});
