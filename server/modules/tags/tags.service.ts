/**
 * Tags (issue 24, part 1): an organisation's labels, which subnets, addresses, VLANs, VRFs, locations and folders
 * carry by name. A write that tags a resource locks the tags it names (tagsLockStep / assertTags) before the row it
 * tags; a rename or delete of a tag locks the tag, then rewrites the rows carrying it, in its transaction, and is
 * logged once, as a change of the tag.
 */
import type { z } from 'zod';
import type { CreateTagBody, Tag, UpdateTagBody } from '../../../contract/tags.contract';
import type { Db } from '../../db/connection';
import { badRequest, type HttpError, isRequirementFailed, refusalOf } from '../../errors';
import type { Principal } from '../../principal';
import type { Actor } from '../activity/activity.service';
import { plainCrud } from '../plain-resources/crud';
import { given, orNotFound } from '../shared/results';
import * as repo from './tags.repo';

const toDto = (row: repo.TagRow): z.infer<typeof Tag> => ({
  id: row.id,
  name: row.name,
  colour: row.colour,
  description: row.description,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

const tag = plainCrud({
  repo,
  limit: 'tags',
  type: 'tag',
  name: 'Tag',
  fields: (row: repo.TagRow) => ({ name: row.name, colour: row.colour, description: row.description }),
  represent: toDto,
  afterUpdate: async (tx, orgId, before, after) => {
    if (after.name !== before.name) await repo.renameEverywhere(tx, orgId, before.name, after.name);
  },
  afterRemove: async (tx, orgId, row) => {
    await repo.removeEverywhere(tx, orgId, row.name);
  },
});

const duplicateName = (name: string) => `name: a tag named "${name}" already exists`;

export async function listTags(db: Db, caller: Principal) {
  return (await repo.listInOrg(db, caller.orgId)).map(toDto);
}

export async function getTag(db: Db, caller: Principal, id: string) {
  return toDto(orNotFound(await repo.get(db, caller.orgId, id), tag.name));
}

export async function createTag(db: Db, caller: Principal, input: z.infer<typeof CreateTagBody>) {
  const values = given({ name: input.name, colour: input.colour, description: input.description }) as repo.TagValues;
  return tag.create(db, caller, values, duplicateName(input.name), toDto);
}

export async function updateTag(
  db: Db,
  caller: Principal,
  id: string,
  input: z.infer<typeof UpdateTagBody>,
  ifMatch?: string,
) {
  const values = given({ name: input.name, colour: input.colour, description: input.description });
  return toDto(await tag.update(db, caller, id, values, duplicateName(input.name ?? ''), { ifMatch }));
}

export async function deleteTag(db: Db, caller: Principal, id: string, ifMatch?: string) {
  await tag.remove(db, caller, id, ifMatch);
}

const unknownTag = (name: string) => badRequest(`tags: the organisation has no tag named ${JSON.stringify(name)}`);

/**
 * The pipeline step that locks the tags a write names (none when it names none); a name the organisation has
 * no tag for fails the pipeline, which `unknownTagError` answers.
 */
export const tagsLockSteps = (orgId: string, names: string[] | undefined) =>
  names && names.length > 0 ? [repo.lockNamedStep(orgId, names)] : [];

/**
 * The 400 naming the tag when `error` is the refusal of tagsLockSteps or assertTags (a name the organisation has
 * no tag for); undefined for any other error. Drizzle wraps the driver's error in `cause`.
 */
export function unknownTagError(error: unknown): HttpError | undefined {
  if (!isRequirementFailed(error)) return undefined;
  const refusal = refusalOf<repo.TagRefusal>((error as { cause?: unknown }).cause ?? error);
  return refusal.rule === 'tag' ? unknownTag(refusal.name) : undefined;
}

/** In a transaction, before the row the write tags is locked: the named tags locked, each one the organisation's. */
export async function assertTags(tx: Db, orgId: string, names: string[] | undefined) {
  if (!names || names.length === 0) return;
  try {
    await repo.lockNamed(tx, orgId, names);
  } catch (error) {
    throw unknownTagError(error) ?? error;
  }
}

/**
 * The organisation's tag with this name (an import's), created (within the plan's limit, and logged) when missing;
 * locked against a rename or delete until the transaction ends.
 */
export const ensureTag = (tx: Db, caller: Actor, name: string) =>
  tag.ensure(tx, caller, () => repo.findByName(tx, caller.orgId, name), { name });
