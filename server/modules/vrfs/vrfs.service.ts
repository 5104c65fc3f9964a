import type { z } from 'zod';
import type { CreateVrfBody, UpdateVrfBody, Vrf } from '../../../contract/vrfs.contract';
import type { Db } from '../../db/connection';
import { inUse, isForeignKeyViolation } from '../../errors';
import type { Principal } from '../../principal';
import { vrfFields } from '../activity/activity.changes';
import { type Actor, recordCreate, recordDelete, recordUpdate } from '../activity/activity.service';
import { assertLimitLocked } from '../plans/limit-check';
import { given, orNotFound, uniqueOr } from '../shared/results';
import * as repo from './vrfs.repo';

const toDto = (row: repo.VrfRow): z.infer<typeof Vrf> => ({
  id: row.id,
  name: row.name,
  rd: row.rd,
  description: row.description,
  created_at: row.createdAt.toISOString(),
});

const duplicateName = (name: string) => `A VRF named "${name}" already exists`;

export async function listVrfs(db: Db, caller: Principal) {
  const rows = await repo.listWithCounts(db, caller.orgId);
  return rows.map((r) => ({ ...toDto(r.vrf), subnet_count: r.subnetCount }));
}

export async function getVrf(db: Db, caller: Principal, id: string) {
  return toDto(orNotFound(await repo.get(db, caller.orgId, id), 'VRF'));
}

export async function createVrf(db: Db, caller: Principal, input: z.infer<typeof CreateVrfBody>) {
  return db.transaction(async (tx) => {
    await assertLimitLocked(tx, caller, 'vrfs', () => repo.countInOrg(tx, caller.orgId));
    const values = given({ name: input.name, rd: input.rd, description: input.description }) as repo.VrfValues;
    const row = await uniqueOr(() => repo.insert(tx, caller.orgId, values), duplicateName(input.name));
    await recordCreate(tx, caller, 'vrf', row.id, vrfFields(row));
    return toDto(row);
  });
}

export async function updateVrf(db: Db, caller: Principal, id: string, input: z.infer<typeof UpdateVrfBody>) {
  const values = given({ name: input.name, rd: input.rd, description: input.description });
  return db.transaction(async (tx) => {
    const before = orNotFound(await repo.getForUpdate(tx, caller.orgId, id), 'VRF');
    const row = await uniqueOr(() => repo.update(tx, caller.orgId, id, values), duplicateName(input.name ?? ''));
    await recordUpdate(tx, caller, 'vrf', id, vrfFields(before), vrfFields(row));
    return toDto(row);
  });
}

/** A VRF that subnets still use is refused: deleting it would silently merge their space into another. */
export async function deleteVrf(db: Db, caller: Principal, id: string) {
  const vrf = orNotFound(await repo.get(db, caller.orgId, id), 'VRF');
  const used = await repo.countSubnets(db, caller.orgId, id);
  if (used > 0) throw inUse(`VRF "${vrf.name}" is used by ${used} subnet(s); move or delete them first`);
  try {
    await db.transaction(async (tx) => {
      const row = orNotFound(await repo.remove(tx, caller.orgId, id), 'VRF');
      await recordDelete(tx, caller, 'vrf', id, vrfFields(row));
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) throw inUse(`VRF "${vrf.name}" is used by subnets; move or delete them first`);
    throw error;
  }
}

/** The organisation's VRF with this name, created (within the plan's VRF limit, and logged) when missing. */
export async function ensureVrf(tx: Db, caller: Actor, name: string) {
  const existing = await repo.findByName(tx, caller.orgId, name);
  if (existing) return existing;
  await assertLimitLocked(tx, caller, 'vrfs', () => repo.countInOrg(tx, caller.orgId));
  const row = await repo.insert(tx, caller.orgId, { name });
  await recordCreate(tx, caller, 'vrf', row.id, vrfFields(row));
  return row;
}

/** Whether the organisation has this VRF: for other modules' references to it. */
export const exists = async (db: Db, orgId: string, id: string) => Boolean(await repo.get(db, orgId, id));
