import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors } from './common/errors';
import { IdempotencyHeaders, idempotent } from './common/idempotency';
import { access } from './common/meta';
import { describedUuid, IdParams, Timestamp, text } from './common/schemas';
import { IfMatchHeaders, IfNoneMatchHeaders, versioned } from './common/versions';

const c = initContract();
const meta = access('Tags');

/** Most tags one subnet, address, VLAN, VRF, location or folder may carry. */
export const TAGS_PER_RESOURCE_MAX = 20;
/** Longest tag name. */
export const TAG_NAME_MAX = 50;

/**
 * A tag's name: what resources carry and `?tag=` names. No commas (a filter lists several with them) and no
 * control characters; surrounding spaces are trimmed.
 */
export const TagName = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(TAG_NAME_MAX)
  .regex(/^[^,\p{Cc}]*$/u, 'may not hold commas or control characters');

/** The tags given to a resource: names of the organisation's tags, each once. */
export const TagNames = extendApi(
  z
    .array(TagName)
    .max(TAGS_PER_RESOURCE_MAX)
    .refine((names) => new Set(names).size === names.length, 'names a tag more than once'),
  {
    description:
      `Names of the organisation's tags (see /tags), at most ${TAGS_PER_RESOURCE_MAX}, each once; an empty list ` +
      'removes every tag. A name that is no tag of the organisation is a 400 naming it',
    example: ['production', 'dhcp'],
  },
);

/** The `tags` of a resource as it is read: omitted when it has none. */
export const ResourceTags = z.array(z.string()).describe('Names of the tags the resource carries; omitted when none');

const Colour = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour as #rrggbb, e.g. #2e7d32')
  .transform((colour) => colour.toLowerCase());

/** `?tag=` and `?tag_match=` of the lists of tagged resources. */
export const TagFilterQuery = {
  tag: z
    .union([z.string().max(2000), z.array(z.string().max(2000)).max(TAGS_PER_RESOURCE_MAX)])
    .optional()
    .describe(
      'Only resources carrying this tag; repeat it (`?tag=a&tag=b`) or separate names by commas for several, ' +
        'which match as `tag_match` says',
    ),
  tag_match: z
    .enum(['any', 'all'])
    .optional()
    .describe('With several tags: `any` (the default) keeps resources carrying any of them, `all` those carrying all'),
};

/** The query of a list that filters by tag only (folders, VLANs, VRFs, locations). */
export const TagsQuery = z.object(TagFilterQuery).strict();

const example = {
  id: '8e4b2c1d-3f5a-4b6c-9d7e-0f1a2b3c4d5e',
  name: 'production',
  colour: '#2e7d32',
  description: 'Serves customers',
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
};

export const Tag = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the tag (UUID)'),
      name: z.string().describe('Name of the tag, unique in the organisation, e.g. production'),
      colour: z.string().describe('Colour for display, #rrggbb'),
      description: z.string().describe('Free-text description; empty when unset'),
      created_at: Timestamp,
      updated_at: Timestamp,
    })
    .strict(),
  { title: 'Tag', description: 'A label the organisation attaches to its resources', example },
);

export const CreateTagBody = extendApi(
  z
    .object({
      name: TagName.describe(`Tag name, unique in the organisation, at most ${TAG_NAME_MAX} characters, no commas`),
      colour: Colour.optional().describe('Colour for display, #rrggbb (default #9e9e9e)'),
      description: text().optional().describe('Free text'),
    })
    .strict(),
  {
    title: 'CreateTagBody',
    description: 'A new tag',
    example: { name: 'production', colour: '#2e7d32', description: 'Serves customers' },
  },
);

export const UpdateTagBody = extendApi(
  z
    .object({
      name: TagName.optional().describe('New name: every resource carrying the tag carries the new name'),
      colour: Colour.optional().describe('Colour for display, #rrggbb'),
      description: text().optional().describe('Free text; empty clears it'),
    })
    .strict(),
  { title: 'UpdateTagBody', description: 'Only the fields given change', example: { colour: '#c62828' } },
);

export const tagsContract = c.router({
  listTags: {
    method: 'GET',
    path: '/tags',
    summary: 'List tags',
    description: 'The tags of the caller’s organisation, by name.',
    metadata: meta.read,
    responses: { 200: z.array(Tag), ...errors(401, 403, 429) },
  },
  createTag: {
    method: 'POST',
    path: '/tags',
    summary: 'Create a tag',
    description:
      'A tag that subnets, addresses, VLANs, VRFs, locations and folders may then carry (their `tags`). Names are ' +
      'unique in the organisation (400). Counts against the plan’s tag limit (402 when reached).',
    metadata: idempotent(meta.write),
    headers: IdempotencyHeaders,
    body: CreateTagBody,
    responses: { 201: Tag, ...errors(400, 401, 402, 403, 409, 413, 415, 422, 429) },
  },
  getTag: {
    method: 'GET',
    path: '/tags/:id',
    summary: 'Get a tag',
    description: 'One tag of the caller’s organisation.',
    metadata: versioned(meta.read),
    headers: IfNoneMatchHeaders,
    pathParams: IdParams,
    responses: { 200: Tag, 304: c.noBody(), ...errors(400, 401, 403, 404, 429) },
  },
  updateTag: {
    method: 'PATCH',
    path: '/tags/:id',
    summary: 'Update a tag',
    description:
      'Changes only the fields given. A new name is carried by every resource that carried the old one, in the ' +
      'same transaction; the activity log and the change feed record it once, as an update of the tag.',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    body: UpdateTagBody,
    responses: { 200: Tag, ...errors(400, 401, 403, 404, 412, 413, 415, 429) },
  },
  deleteTag: {
    method: 'DELETE',
    path: '/tags/:id',
    summary: 'Delete a tag',
    description:
      'Deletes the tag and takes it off every resource carrying it, in the same transaction; the activity log and ' +
      'the change feed record it once, as the tag’s deletion.',
    metadata: versioned(meta.write),
    headers: IfMatchHeaders,
    pathParams: IdParams,
    responses: { 204: c.noBody(), ...errors(400, 401, 403, 404, 412, 429) },
  },
});
