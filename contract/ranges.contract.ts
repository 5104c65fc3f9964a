import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors } from './common/errors';
import { IdempotencyHeaders, idempotent } from './common/idempotency';
import { access } from './common/meta';
import { describedUuid, IdParams, Timestamp, text, Uuid } from './common/schemas';
import { addressCount } from './subnets.schemas';

const c = initContract();
const meta = access('Ranges');

/** Most ranges one subnet may hold. */
export const RANGES_PER_SUBNET_MAX = 100;

export const rangeRoles = ['dhcp', 'reserved', 'static', 'other'] as const;

export const RangeRole = extendApi(z.enum(rangeRoles), {
  title: 'RangeRole',
  description: 'What the range is for: dhcp (a DHCP pool), reserved, static (statically assigned hosts) or other',
  example: 'dhcp',
});

const example = {
  id: '2b7c1d4e-9f3a-4c5b-8d6e-7f8091a2b3c4',
  subnet_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  start: '10.0.1.100',
  end: '10.0.1.199',
  role: 'dhcp',
  description: 'Office DHCP pool',
  size: 100,
  used: 12,
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
};

export const IpRange = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the range (UUID)'),
      subnet_id: Uuid.describe('Subnet the range lies in'),
      start: z.string().describe('First address of the range, e.g. 10.0.1.100'),
      end: z.string().describe('Last address of the range (included), e.g. 10.0.1.199'),
      role: RangeRole,
      description: z.string().describe('Free-text description; empty when unset'),
      size: addressCount('Addresses in the range, first and last included'),
      used: z.number().int().describe('Address records of the subnet’s space inside the range'),
      created_at: Timestamp,
      updated_at: Timestamp,
    })
    .strict(),
  { title: 'IpRange', description: 'A range of addresses inside a subnet (a DHCP pool, a reserved block …)', example },
);

const Ip = z.string().trim().min(1).max(100);

export const CreateRangeBody = extendApi(
  z
    .object({
      start: Ip.describe('First address, inside the subnet'),
      end: Ip.describe('Last address (included), inside the subnet, not before start'),
      role: RangeRole,
      description: text().optional().describe('Free-text description, e.g. Office DHCP pool'),
    })
    .strict(),
  {
    title: 'CreateRangeBody',
    description: 'A new range of the subnet; it may not overlap another range of the subnet',
    example: { start: '10.0.1.100', end: '10.0.1.199', role: 'dhcp', description: 'Office DHCP pool' },
  },
);

export const UpdateRangeBody = extendApi(
  z
    .object({
      start: Ip.optional().describe('First address, inside the subnet'),
      end: Ip.optional().describe('Last address (included), inside the subnet, not before start'),
      role: RangeRole.optional(),
      description: text().optional().describe('Free-text description; empty clears it'),
    })
    .strict(),
  {
    title: 'UpdateRangeBody',
    description: 'Only the fields given change; the range may still not overlap another',
    example: { end: '10.0.1.249' },
  },
);

export const rangesContract = c.router({
  listSubnetRanges: {
    method: 'GET',
    path: '/subnets/:id/ranges',
    summary: 'List the ranges of a subnet',
    description: 'The ranges of the subnet, by first address, each with its size and the records inside it.',
    metadata: meta.read,
    pathParams: IdParams,
    responses: { 200: z.array(IpRange), ...errors(400, 401, 403, 404, 429) },
  },
  createSubnetRange: {
    method: 'POST',
    path: '/subnets/:id/ranges',
    summary: 'Create a range',
    description:
      'A range of addresses of the subnet (a DHCP pool, a reserved block …), from `start` to `end` included, both ' +
      `inside the subnet and of its family. It may not overlap another range of the subnet (400 naming it); a subnet ` +
      `holds at most ${RANGES_PER_SUBNET_MAX} ranges (400). Allocation and first-free can then target a range ` +
      '(`range_id`) or skip every range (`skip_ranges`).',
    metadata: idempotent(meta.write),
    headers: IdempotencyHeaders,
    pathParams: IdParams,
    body: CreateRangeBody,
    responses: { 201: IpRange, ...errors(400, 401, 403, 404, 409, 413, 415, 422, 429) },
  },
  updateRange: {
    method: 'PATCH',
    path: '/ranges/:id',
    summary: 'Update a range',
    description: 'Changes the fields given; the range must stay inside its subnet and overlap no other range.',
    metadata: meta.write,
    pathParams: IdParams,
    body: UpdateRangeBody,
    responses: { 200: IpRange, ...errors(400, 401, 403, 404, 413, 415, 429) },
  },
  deleteRange: {
    method: 'DELETE',
    path: '/ranges/:id',
    summary: 'Delete a range',
    description: 'Removes the range; the address records inside it stay.',
    metadata: meta.write,
    pathParams: IdParams,
    responses: { 204: c.noBody(), ...errors(400, 401, 403, 404, 429) },
  },
});
