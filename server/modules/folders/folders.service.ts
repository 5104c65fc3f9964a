import type { z } from 'zod';
import type { CreateFolderBody, Folder, UpdateFolderBody } from '../../../contract/folders.contract';
import type { Db } from '../../db/connection';
import type { Principal } from '../../principal';
import { folderFields } from '../activity/activity.changes';
import { recordCreate, recordDelete, recordUpdate } from '../activity/activity.service';
import { assertLimitLocked } from '../plans/limit-check';
import { given, orNotFound, uniqueOr } from '../shared/results';
import * as repo from './folders.repo';

type FolderDto = z.infer<typeof Folder>;

const toDto = (row: repo.FolderRow): FolderDto => ({
  id: row.id,
  name: row.name,
  description: row.description,
  sort_order: row.sortOrder,
  created_at: row.createdAt.toISOString(),
});

const duplicateName = (name: string) => `A folder named "${name}" already exists`;

export async function listFolders(db: Db, caller: Principal) {
  return (await repo.list(db, caller.orgId)).map(toDto);
}

export async function getFolder(db: Db, caller: Principal, id: string) {
  return toDto(orNotFound(await repo.get(db, caller.orgId, id), 'Folder'));
}

export async function createFolder(db: Db, caller: Principal, input: z.infer<typeof CreateFolderBody>) {
  return db.transaction(async (tx) => {
    await assertLimitLocked(tx, caller, 'folders', () => repo.countInOrg(tx, caller.orgId));
    const values = { name: input.name, description: input.description, sortOrder: input.sort_order };
    const row = await uniqueOr(
      () => repo.insert(tx, caller.orgId, given(values) as repo.FolderValues),
      duplicateName(input.name),
    );
    await recordCreate(tx, caller, 'folder', row.id, folderFields(row));
    return toDto(row);
  });
}

export async function updateFolder(db: Db, caller: Principal, id: string, input: z.infer<typeof UpdateFolderBody>) {
  const values = given({ name: input.name, description: input.description, sortOrder: input.sort_order });
  return db.transaction(async (tx) => {
    const before = orNotFound(await repo.getForUpdate(tx, caller.orgId, id), 'Folder');
    const row = await uniqueOr(() => repo.update(tx, caller.orgId, id, values), duplicateName(input.name ?? ''));
    await recordUpdate(tx, caller, 'folder', id, folderFields(before), folderFields(row));
    return toDto(row);
  });
}

export async function deleteFolder(db: Db, caller: Principal, id: string) {
  await db.transaction(async (tx) => {
    const row = orNotFound(await repo.remove(tx, caller.orgId, id), 'Folder');
    await recordDelete(tx, caller, 'folder', id, folderFields(row));
  });
}

/** Whether the organisation has this folder: for other modules' references to it. */
export const exists = async (db: Db, orgId: string, id: string) => Boolean(await repo.get(db, orgId, id));
