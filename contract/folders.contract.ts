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
const meta = access('Folders');

export const Folder = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the folder (UUID)'),
      name: z.string().describe('Display name of the folder, e.g. Datacenter A'),
      description: z.string().describe('Free-text description of the folder; empty when unset'),
      sort_order: z.number().int().describe('Position among sibling folders, ascending'),
      tags: ResourceTags.optional(),
      created_at: Timestamp,
    })
    .strict(),
  {
    title: 'Folder',
    description: 'A container for subnets',
    example: {
      id: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f',
      name: 'Datacenter A',
      description: 'Production networks',
      sort_order: 0,
      created_at: '2026-11-22T10:00:00.000Z',
    },
  },
);

const folderFields = {
  name: requiredName().describe('Folder name, unique in the organisation'),
  description: text().describe('Free text'),
  sort_order: z.number().int().min(-1_000_000).max(1_000_000).describe('Ordering hint for clients'),
};

export const CreateFolderBody = extendApi(
  z
    .object({
      name: folderFields.name,
      description: folderFields.description.optional(),
      sort_order: folderFields.sort_order.optional(),
      tags: TagNames.optional(),
    })
    .strict(),
  {
    title: 'CreateFolderBody',
    description: 'A new folder',
    example: { name: 'Datacenter A', description: 'Production networks' },
  },
);

export const UpdateFolderBody = extendApi(
  z
    .object({
      name: folderFields.name.optional(),
      description: folderFields.description.optional(),
      sort_order: folderFields.sort_order.optional(),
      tags: TagNames.optional(),
    })
    .strict(),
  { title: 'UpdateFolderBody', description: 'Only the fields given change', example: { sort_order: 10 } },
);

export const foldersContract = c.router({
  listFolders: {
    method: 'GET',
    path: '/folders',
    summary: 'List folders',
    description: 'All folders of the caller’s organisation, ordered by sort_order then name.',
    metadata: meta.read,
    query: TagsQuery,
    responses: { 200: z.array(Folder), ...errors(400, 401, 403, 429) },
  },
  createFolder: {
    method: 'POST',
    path: '/folders',
    summary: 'Create a folder',
    description: 'Creates a folder. Counts against the plan’s folder limit (402 when reached).',
    metadata: idempotent(meta.write),
    headers: IdempotencyHeaders,
    body: CreateFolderBody,
    responses: { 201: Folder, ...errors(400, 401, 402, 403, 409, 413, 415, 422, 429) },
  },
  getFolder: {
    method: 'GET',
    path: '/folders/:id',
    summary: 'Get a folder',
    description: 'One folder of the caller’s organisation.',
    metadata: versioned(meta.read),
    headers: IfNoneMatchHeaders,
    pathParams: IdParams,
    responses: { 200: Folder, 304: c.noBody(), ...errors(400, 401, 403, 404, 429) },
  },
  updateFolder: {
    method: 'PATCH',
    path: '/folders/:id',
    summary: 'Update a folder',
    description: 'Changes only the fields given.',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    body: UpdateFolderBody,
    responses: { 200: Folder, ...errors(400, 401, 403, 404, 412, 413, 415, 429) },
  },
  deleteFolder: {
    method: 'DELETE',
    path: '/folders/:id',
    summary: 'Delete a folder',
    description: 'Deletes the folder; its subnets are kept and become unfoldered.',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    responses: { 204: c.noBody(), ...errors(400, 401, 403, 404, 412, 429) },
  },
});
