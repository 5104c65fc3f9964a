import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors } from './common/errors';
import { IdempotencyHeaders, idempotent } from './common/idempotency';
import { access } from './common/meta';
import { describedUuid, IdParams, Timestamp, text, Uuid } from './common/schemas';
import { IfMatchHeaders, IfNoneMatchHeaders, versioned } from './common/versions';
import { ResourceTags, TagNames, TagsQuery } from './tags.contract';

const c = initContract();
const meta = access('VLANs');

const VlanNumber = z.number().int().min(1).max(4094).describe('VLAN number, 1 to 4094, unique in the organisation');

const vlanShape = {
  id: describedUuid('Unique id of the VLAN (UUID)'),
  vlan_number: VlanNumber,
  name: z.string().describe('Display name of the VLAN, e.g. Servers'),
  description: z.string().describe('Free-text description of the VLAN; empty when unset'),
  location_id: Uuid.nullable().describe('Location of the VLAN; null when none'),
  tags: ResourceTags.optional(),
  created_at: Timestamp,
};
const example = {
  id: '9a1c3e5f-7b2d-4f6a-8c0e-2d4f6a8c0e1b',
  vlan_number: 120,
  name: 'servers',
  description: 'Server VLAN, building 1',
  location_id: null,
  created_at: '2026-11-22T10:00:00.000Z',
};

export const Vlan = extendApi(z.object(vlanShape).strict(), { title: 'Vlan', description: 'A VLAN', example });
export const VlanListItem = extendApi(
  z.object({ ...vlanShape, subnet_count: z.number().int().describe('Subnets assigned to this VLAN') }).strict(),
  {
    title: 'VlanListItem',
    description: 'A VLAN with its computed subnet count',
    example: { ...example, subnet_count: 3 },
  },
);

export const CreateVlanBody = extendApi(
  z
    .object({
      vlan_number: VlanNumber,
      name: text(200).optional().describe('Display name of the VLAN, e.g. Servers'),
      description: text().optional().describe('Free-text description of the VLAN'),
      location_id: Uuid.nullable().optional().describe('Location of the VLAN'),
      tags: TagNames.optional(),
    })
    .strict(),
  { title: 'CreateVlanBody', description: 'A new VLAN', example: { vlan_number: 120, name: 'servers' } },
);
export const UpdateVlanBody = extendApi(
  z
    .object({
      vlan_number: VlanNumber.optional(),
      name: text(200).optional().describe('Display name of the VLAN, e.g. Servers'),
      description: text().optional().describe('Free-text description of the VLAN'),
      location_id: Uuid.nullable().optional().describe('Location of the VLAN; null clears it'),
      tags: TagNames.optional(),
    })
    .strict(),
  { title: 'UpdateVlanBody', description: 'Only the fields given change', example: { name: 'servers-b1' } },
);

export const vlansContract = c.router({
  listVlans: {
    method: 'GET',
    path: '/vlans',
    summary: 'List VLANs',
    description: 'All VLANs of the organisation, ordered by number, each with its subnet count.',
    metadata: meta.read,
    query: TagsQuery,
    responses: { 200: z.array(VlanListItem), ...errors(400, 401, 403, 429) },
  },
  createVlan: {
    method: 'POST',
    path: '/vlans',
    summary: 'Create a VLAN',
    description:
      'Creates a VLAN. A number already used in the organisation is a 400 (`duplicate`). Counts against the plan’s VLAN limit.',
    metadata: idempotent(meta.write),
    headers: IdempotencyHeaders,
    body: CreateVlanBody,
    responses: { 201: Vlan, ...errors(400, 401, 402, 403, 409, 413, 415, 422, 429) },
  },
  getVlan: {
    method: 'GET',
    path: '/vlans/:id',
    summary: 'Get a VLAN',
    description: 'One VLAN of the organisation.',
    metadata: versioned(meta.read),
    headers: IfNoneMatchHeaders,
    pathParams: IdParams,
    responses: { 200: Vlan, 304: c.noBody(), ...errors(400, 401, 403, 404, 429) },
  },
  updateVlan: {
    method: 'PATCH',
    path: '/vlans/:id',
    summary: 'Update a VLAN',
    description: 'Changes only the fields given.',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    body: UpdateVlanBody,
    responses: { 200: Vlan, ...errors(400, 401, 403, 404, 412, 413, 415, 429) },
  },
  deleteVlan: {
    method: 'DELETE',
    path: '/vlans/:id',
    summary: 'Delete a VLAN',
    description: 'Deletes the VLAN; subnets that used it keep existing without a VLAN.',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    responses: { 204: c.noBody(), ...errors(400, 401, 403, 404, 412, 429) },
  },
});
