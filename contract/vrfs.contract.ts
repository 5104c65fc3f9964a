import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors } from './common/errors';
import { IdempotencyHeaders, idempotent } from './common/idempotency';
import { access } from './common/meta';
import { describedUuid, IdParams, requiredName, Timestamp, text } from './common/schemas';
import { IfMatchHeaders, IfNoneMatchHeaders, versioned } from './common/versions';
import { ResourceTags, TagNames, TagsQuery } from './tags.contract';

const c = initContract();
const meta = access('VRFs');

const RouteDistinguisher = text(64).describe('Route distinguisher such as 65000:100');

const vrfShape = {
  id: describedUuid('Unique id of the VRF (UUID)'),
  name: z.string().describe('Display name of the VRF, e.g. customer-a'),
  rd: z.string().describe('Route distinguisher, e.g. 65000:100'),
  description: z.string().describe('Free-text description of the VRF; empty when unset'),
  tags: ResourceTags.optional(),
  created_at: Timestamp,
};
const example = {
  id: '5e7a9c1b-3d5f-4a7c-9e1b-3d5f7a9c1b2d',
  name: 'customer-a',
  rd: '65000:100',
  description: 'Customer A routing table',
  created_at: '2026-11-22T10:00:00.000Z',
};

export const Vrf = extendApi(z.object(vrfShape).strict(), {
  title: 'Vrf',
  description: 'A VRF: a separate address space',
  example,
});
export const VrfListItem = extendApi(
  z.object({ ...vrfShape, subnet_count: z.number().int().describe('Subnets in this VRF') }).strict(),
  {
    title: 'VrfListItem',
    description: 'A VRF with its computed subnet count',
    example: { ...example, subnet_count: 12 },
  },
);

export const CreateVrfBody = extendApi(
  z
    .object({
      name: requiredName(100).describe('VRF name, unique in the organisation'),
      rd: RouteDistinguisher.optional(),
      description: text().optional().describe('Free-text description of the VRF'),
      tags: TagNames.optional(),
    })
    .strict(),
  {
    title: 'CreateVrfBody',
    description: 'A new VRF (separate address space)',
    example: { name: 'customer-a', rd: '65000:100' },
  },
);
export const UpdateVrfBody = extendApi(
  z
    .object({
      name: requiredName(100).optional().describe('Display name of the VRF, e.g. customer-a'),
      rd: RouteDistinguisher.optional(),
      description: text().optional().describe('Free-text description of the VRF'),
      tags: TagNames.optional(),
    })
    .strict(),
  { title: 'UpdateVrfBody', description: 'Only the fields given change', example: { rd: '65000:200' } },
);

export const vrfsContract = c.router({
  listVrfs: {
    method: 'GET',
    path: '/vrfs',
    summary: 'List VRFs',
    description: 'All VRFs of the organisation, ordered by name, each with its subnet count.',
    metadata: meta.read,
    query: TagsQuery,
    responses: { 200: z.array(VrfListItem), ...errors(400, 401, 403, 429) },
  },
  createVrf: {
    method: 'POST',
    path: '/vrfs',
    summary: 'Create a VRF',
    description:
      'Creates a VRF. A name already used in the organisation is a 400 (`duplicate`). Counts against the plan’s VRF limit.',
    metadata: idempotent(meta.write),
    headers: IdempotencyHeaders,
    body: CreateVrfBody,
    responses: { 201: Vrf, ...errors(400, 401, 402, 403, 409, 413, 415, 422, 429) },
  },
  getVrf: {
    method: 'GET',
    path: '/vrfs/:id',
    summary: 'Get a VRF',
    description: 'One VRF of the organisation.',
    metadata: versioned(meta.read),
    headers: IfNoneMatchHeaders,
    pathParams: IdParams,
    responses: { 200: Vrf, 304: c.noBody(), ...errors(400, 401, 403, 404, 429) },
  },
  updateVrf: {
    method: 'PATCH',
    path: '/vrfs/:id',
    summary: 'Update a VRF',
    description: 'Changes only the fields given.',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    body: UpdateVrfBody,
    responses: { 200: Vrf, ...errors(400, 401, 403, 404, 412, 413, 415, 429) },
  },
  deleteVrf: {
    method: 'DELETE',
    path: '/vrfs/:id',
    summary: 'Delete a VRF',
    description: 'Deletes the VRF. A VRF that subnets still use is a 400 (`in_use`).',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    responses: { 204: c.noBody(), ...errors(400, 401, 403, 404, 412, 429) },
  },
});
