import type { z } from 'zod';
import type { CreateFolderBody, Folder, UpdateFolderBody } from '../../../contract/folders.contract';
import type { TagsQuery } from '../../../contract/tags.contract';
import type { Db } from '../../db/connection';
import type { Principal } from '../../principal';
import { folderFields } from '../activity/activity.changes';
import type { Actor } from '../activity/activity.service';
import { plainCrud } from '../plain-resources/crud';
import { given, orNotFound } from '../shared/results';
import { tagFilterOf, tagsShown } from '../shared/tags';
import { assertTags } from '../tags/tags.service';
import * as repo from './folders.repo';

type FolderDto = z.infer<typeof Folder>;

const toDto = (row: repo.FolderRow): FolderDto => ({
  id: row.id,
  name: row.name,
  description: row.description,
  sort_order: row.sortOrder,
  ...tagsShown(row.tags),
  created_at: row.createdAt.toISOString(),
});

const folder = plainCrud({
  repo,
  limit: 'folders',
  type: 'folder',
  name: 'Folder',
  fields: folderFields,
  represent: toDto,
});

const duplicateName = (name: string) => `A folder named "${name}" already exists`;

export async function listFolders(db: Db, caller: Principal, query: z.infer<typeof TagsQuery>) {
  return (await repo.list(db, caller.orgId, tagFilterOf(query))).map(toDto);
}

export async function getFolder(db: Db, caller: Principal, id: string) {
  return toDto(orNotFound(await repo.get(db, caller.orgId, id), folder.name));
}

/** The columns a body gives, in the repository's names. */
const valuesOf = (input: z.infer<typeof UpdateFolderBody>) =>
  given({ name: input.name, description: input.description, sortOrder: input.sort_order, tags: input.tags });

export async function createFolder(db: Db, caller: Principal, input: z.infer<typeof CreateFolderBody>) {
  const check = (tx: Db) => assertTags(tx, caller.orgId, input.tags);
  return folder.create(db, caller, valuesOf(input) as repo.FolderValues, duplicateName(input.name), toDto, check);
}

export async function updateFolder(
  db: Db,
  caller: Principal,
  id: string,
  input: z.infer<typeof UpdateFolderBody>,
  ifMatch?: string,
) {
  const check = (tx: Db) => assertTags(tx, caller.orgId, input.tags);
  const values = valuesOf(input);
  return toDto(await folder.update(db, caller, id, values, duplicateName(input.name ?? ''), { check, ifMatch }));
}

export async function deleteFolder(db: Db, caller: Principal, id: string, ifMatch?: string) {
  await folder.remove(db, caller, id, ifMatch);
}

/** The organisation's folder with this name, created (within the plan's limit, and logged) when missing. */
export const ensureFolder = (tx: Db, caller: Actor, name: string) =>
  folder.ensure(tx, caller, () => repo.findByName(tx, caller.orgId, name), { name });

/** Whether the organisation has this folder (a plain read, as a filter's check). */
export const exists = async (db: Db, orgId: string, id: string) => Boolean(await repo.get(db, orgId, id));

/**
 * Whether the organisation has this folder, which then stays until the transaction ends: for other modules'
 * rows about to refer to it (a delete under way is waited for).
 */
export const lockForReference = folder.lockForReference;
