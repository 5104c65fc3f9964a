import type { z } from 'zod';
import type { CreateVlanBody, UpdateVlanBody, Vlan } from '../../../contract/vlans.contract';
import type { Db } from '../../db/connection';
import { badRequest } from '../../errors';
import type { Principal } from '../../principal';
import { vlanFields } from '../activity/activity.changes';
import { type Actor, recordCreate, recordDelete, recordUpdate } from '../activity/activity.service';
import * as locations from '../locations/locations.service';
import { assertLimitLocked } from '../plans/limit-check';
import { given, orNotFound, uniqueOr } from '../shared/results';
import * as repo from './vlans.repo';

const toDto = (row: repo.VlanRow): z.infer<typeof Vlan> => ({
  id: row.id,
  vlan_number: row.vlanNumber,
  name: row.name,
  description: row.description,
  location_id: row.locationId,
  created_at: row.createdAt.toISOString(),
});

const duplicateNumber = (n: number | undefined) => `VLAN ${n} already exists in this organisation`;

/** A location referenced in a body must be one of the caller's; a missing one is the request's fault (400). */
async function assertLocation(db: Db, orgId: string, locationId: string | null | undefined) {
  if (locationId && !(await locations.exists(db, orgId, locationId))) {
    throw badRequest(`location_id: no location with id ${locationId}`);
  }
}

export async function listVlans(db: Db, caller: Principal) {
  const rows = await repo.listWithCounts(db, caller.orgId);
  return rows.map((r) => ({ ...toDto(r.vlan), subnet_count: r.subnetCount }));
}

export async function getVlan(db: Db, caller: Principal, id: string) {
  return toDto(orNotFound(await repo.get(db, caller.orgId, id), 'VLAN'));
}

export async function createVlan(db: Db, caller: Principal, input: z.infer<typeof CreateVlanBody>) {
  await assertLocation(db, caller.orgId, input.location_id);
  return db.transaction(async (tx) => {
    await assertLimitLocked(tx, caller, 'vlans', () => repo.countInOrg(tx, caller.orgId));
    const values = given({
      vlanNumber: input.vlan_number,
      name: input.name,
      description: input.description,
      locationId: input.location_id,
    }) as repo.VlanValues;
    const row = await uniqueOr(() => repo.insert(tx, caller.orgId, values), duplicateNumber(input.vlan_number));
    await recordCreate(tx, caller, 'vlan', row.id, vlanFields(row));
    return toDto(row);
  });
}

export async function updateVlan(db: Db, caller: Principal, id: string, input: z.infer<typeof UpdateVlanBody>) {
  orNotFound(await repo.get(db, caller.orgId, id), 'VLAN');
  await assertLocation(db, caller.orgId, input.location_id);
  const values = given({
    vlanNumber: input.vlan_number,
    name: input.name,
    description: input.description,
    locationId: input.location_id,
  });
  return db.transaction(async (tx) => {
    const before = orNotFound(await repo.getForUpdate(tx, caller.orgId, id), 'VLAN');
    const row = await uniqueOr(() => repo.update(tx, caller.orgId, id, values), duplicateNumber(input.vlan_number));
    await recordUpdate(tx, caller, 'vlan', id, vlanFields(before), vlanFields(row));
    return toDto(row);
  });
}

export async function deleteVlan(db: Db, caller: Principal, id: string) {
  await db.transaction(async (tx) => {
    const row = orNotFound(await repo.remove(tx, caller.orgId, id), 'VLAN');
    await recordDelete(tx, caller, 'vlan', id, vlanFields(row));
  });
}

/** The organisation's VLAN with this number, created (within the plan's VLAN limit, and logged) when missing. */
export async function ensureVlan(tx: Db, caller: Actor, vlanNumber: number) {
  const existing = await repo.findByNumber(tx, caller.orgId, vlanNumber);
  if (existing) return existing;
  await assertLimitLocked(tx, caller, 'vlans', () => repo.countInOrg(tx, caller.orgId));
  const row = await repo.insert(tx, caller.orgId, { vlanNumber });
  await recordCreate(tx, caller, 'vlan', row.id, vlanFields(row));
  return row;
}

/** Whether the organisation has this VLAN: for other modules' references to it. */
export const exists = async (db: Db, orgId: string, id: string) => Boolean(await repo.get(db, orgId, id));
