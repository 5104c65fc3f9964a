import type { z } from 'zod';
import type { TagsQuery } from '../../../contract/tags.contract';
import type { CreateVrfBody, UpdateVrfBody, Vrf } from '../../../contract/vrfs.contract';
import type { Db } from '../../db/connection';
import { inUse, isForeignKeyViolation } from '../../errors';
import type { Principal } from '../../principal';
import { vrfFields } from '../activity/activity.changes';
import type { Actor } from '../activity/activity.service';
import { plainCrud } from '../plain-resources/crud';
import { given, orNotFound } from '../shared/results';
import { tagFilterOf, tagsShown } from '../shared/tags';
import { assertTags } from '../tags/tags.service';
import * as repo from './vrfs.repo';

const toDto = (row: repo.VrfRow): z.infer<typeof Vrf> => ({
  id: row.id,
  name: row.name,
  rd: row.rd,
  description: row.description,
  ...tagsShown(row.tags),
  created_at: row.createdAt.toISOString(),
});

const vrf = plainCrud({ repo, limit: 'vrfs', type: 'vrf', name: 'VRF', fields: vrfFields, represent: toDto });

const duplicateName = (name: string) => `A VRF named "${name}" already exists`;

export async function listVrfs(db: Db, caller: Principal, query: z.infer<typeof TagsQuery>) {
  const rows = await repo.listWithCounts(db, caller.orgId, tagFilterOf(query));
  return rows.map((r) => ({ ...toDto(r.vrf), subnet_count: r.subnetCount }));
}

export async function getVrf(db: Db, caller: Principal, id: string) {
  return toDto(orNotFound(await repo.get(db, caller.orgId, id), vrf.name));
}

export async function createVrf(db: Db, caller: Principal, input: z.infer<typeof CreateVrfBody>) {
  const values = given({ name: input.name, rd: input.rd, description: input.description, tags: input.tags });
  const check = (tx: Db) => assertTags(tx, caller.orgId, input.tags);
  return vrf.create(db, caller, values as repo.VrfValues, duplicateName(input.name), toDto, check);
}

export async function updateVrf(
  db: Db,
  caller: Principal,
  id: string,
  input: z.infer<typeof UpdateVrfBody>,
  ifMatch?: string,
) {
  const values = given({ name: input.name, rd: input.rd, description: input.description, tags: input.tags });
  const check = (tx: Db) => assertTags(tx, caller.orgId, input.tags);
  return toDto(await vrf.update(db, caller, id, values, duplicateName(input.name ?? ''), { check, ifMatch }));
}

/** A VRF that subnets still use is refused: deleting it would silently merge their space into another. */
export async function deleteVrf(db: Db, caller: Principal, id: string, ifMatch?: string) {
  const row = orNotFound(await repo.get(db, caller.orgId, id), vrf.name);
  const used = await repo.countSubnets(db, caller.orgId, id);
  if (used > 0) throw inUse(`VRF "${row.name}" is used by ${used} subnet(s); move or delete them first`);
  try {
    await vrf.remove(db, caller, id, ifMatch);
  } catch (error) {
    if (isForeignKeyViolation(error)) throw inUse(`VRF "${row.name}" is used by subnets; move or delete them first`);
    throw error;
  }
}

/** The organisation's VRF with this name, created (within the plan's VRF limit, and logged) when missing. */
export const ensureVrf = (tx: Db, caller: Actor, name: string) =>
  vrf.ensure(tx, caller, () => repo.findByName(tx, caller.orgId, name), { name });

/**
 * Whether the organisation has this VRF, which then stays until the transaction ends: for other modules'
 * rows about to refer to it (a delete under way is waited for).
 */
export const lockForReference = vrf.lockForReference;
