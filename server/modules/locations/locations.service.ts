import type { z } from 'zod';
import type { CreateLocationBody, Location, UpdateLocationBody } from '../../../contract/locations.contract';
import type { Db } from '../../db/connection';
import type { Principal } from '../../principal';
import { locationFields } from '../activity/activity.changes';
import { recordCreate, recordDelete, recordUpdate } from '../activity/activity.service';
import { assertLimitLocked } from '../plans/limit-check';
import { given, orNotFound, uniqueOr } from '../shared/results';
import * as repo from './locations.repo';

const toDto = (row: repo.LocationRow): z.infer<typeof Location> => ({
  id: row.id,
  name: row.name,
  address: row.address,
  created_at: row.createdAt.toISOString(),
});

const duplicateName = (name: string) => `A location named "${name}" already exists`;

export async function listLocations(db: Db, caller: Principal) {
  const rows = await repo.listWithCounts(db, caller.orgId);
  return rows.map((r) => ({ ...toDto(r.location), subnet_count: r.subnetCount, vlan_count: r.vlanCount }));
}

export async function getLocation(db: Db, caller: Principal, id: string) {
  return toDto(orNotFound(await repo.get(db, caller.orgId, id), 'Location'));
}

export async function createLocation(db: Db, caller: Principal, input: z.infer<typeof CreateLocationBody>) {
  return db.transaction(async (tx) => {
    await assertLimitLocked(tx, caller, 'locations', () => repo.countInOrg(tx, caller.orgId));
    const values = given({ name: input.name, address: input.address }) as repo.LocationValues;
    const row = await uniqueOr(() => repo.insert(tx, caller.orgId, values), duplicateName(input.name));
    await recordCreate(tx, caller, 'location', row.id, locationFields(row));
    return toDto(row);
  });
}

export async function updateLocation(db: Db, caller: Principal, id: string, input: z.infer<typeof UpdateLocationBody>) {
  const values = given({ name: input.name, address: input.address });
  return db.transaction(async (tx) => {
    const before = orNotFound(await repo.getForUpdate(tx, caller.orgId, id), 'Location');
    const row = await uniqueOr(() => repo.update(tx, caller.orgId, id, values), duplicateName(input.name ?? ''));
    await recordUpdate(tx, caller, 'location', id, locationFields(before), locationFields(row));
    return toDto(row);
  });
}

export async function deleteLocation(db: Db, caller: Principal, id: string) {
  await db.transaction(async (tx) => {
    const row = orNotFound(await repo.remove(tx, caller.orgId, id), 'Location');
    await recordDelete(tx, caller, 'location', id, locationFields(row));
  });
}

/** Whether the organisation has this location: for other modules' references to it. */
export const exists = async (db: Db, orgId: string, id: string) => Boolean(await repo.get(db, orgId, id));
