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
const meta = access('Locations');

const locationShape = {
  id: describedUuid('Unique id of the location (UUID)'),
  name: z.string().describe('Display name of the location, e.g. Frankfurt DC1'),
  address: z.string().describe('Postal or site address, e.g. Kruppstraße 121, 60388 Frankfurt'),
  tags: ResourceTags.optional(),
  created_at: Timestamp,
};
const example = {
  id: '7c9e1a3b-5d7f-4b9d-8f1a-3b5d7f9b1c3e',
  name: 'Frankfurt DC1',
  address: 'Hanauer Landstraße 1, Frankfurt',
  created_at: '2026-11-22T10:00:00.000Z',
};

export const Location = extendApi(z.object(locationShape).strict(), {
  title: 'Location',
  description: 'A site that subnets and VLANs belong to',
  example,
});
export const LocationListItem = extendApi(
  z
    .object({
      ...locationShape,
      subnet_count: z.number().int().describe('Subnets at this location'),
      vlan_count: z.number().int().describe('VLANs at this location'),
    })
    .strict(),
  {
    title: 'LocationListItem',
    description: 'A location with its computed counts',
    example: { ...example, subnet_count: 4, vlan_count: 2 },
  },
);

export const CreateLocationBody = extendApi(
  z
    .object({
      name: requiredName().describe('Location name, unique in the organisation'),
      address: text(500).optional().describe('Postal address'),
      tags: TagNames.optional(),
    })
    .strict(),
  { title: 'CreateLocationBody', description: 'A new location', example: { name: 'Frankfurt DC1' } },
);
export const UpdateLocationBody = extendApi(
  z
    .object({
      name: requiredName().optional().describe('New display name of the location, e.g. Frankfurt DC1'),
      address: text(500).optional().describe('New postal or site address, e.g. Kruppstraße 121, 60388 Frankfurt'),
      tags: TagNames.optional(),
    })
    .strict(),
  { title: 'UpdateLocationBody', description: 'Only the fields given change', example: { address: 'Building 2' } },
);

export const locationsContract = c.router({
  listLocations: {
    method: 'GET',
    path: '/locations',
    summary: 'List locations',
    description: 'All locations of the organisation, ordered by name, each with its subnet and VLAN counts.',
    metadata: meta.read,
    query: TagsQuery,
    responses: { 200: z.array(LocationListItem), ...errors(400, 401, 403, 429) },
  },
  createLocation: {
    method: 'POST',
    path: '/locations',
    summary: 'Create a location',
    description:
      'Creates a location. A name already used in the organisation is a 400 (`duplicate`). Counts against the plan’s location limit.',
    metadata: idempotent(meta.write),
    headers: IdempotencyHeaders,
    body: CreateLocationBody,
    responses: { 201: Location, ...errors(400, 401, 402, 403, 409, 413, 415, 422, 429) },
  },
  getLocation: {
    method: 'GET',
    path: '/locations/:id',
    summary: 'Get a location',
    description: 'One location of the organisation.',
    metadata: versioned(meta.read),
    headers: IfNoneMatchHeaders,
    pathParams: IdParams,
    responses: { 200: Location, 304: c.noBody(), ...errors(400, 401, 403, 404, 429) },
  },
  updateLocation: {
    method: 'PATCH',
    path: '/locations/:id',
    summary: 'Update a location',
    description: 'Changes only the fields given.',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    body: UpdateLocationBody,
    responses: { 200: Location, ...errors(400, 401, 403, 404, 412, 413, 415, 429) },
  },
  deleteLocation: {
    method: 'DELETE',
    path: '/locations/:id',
    summary: 'Delete a location',
    description: 'Deletes the location; subnets and VLANs at it keep existing without a location.',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    responses: { 204: c.noBody(), ...errors(400, 401, 403, 404, 412, 429) },
  },
});
