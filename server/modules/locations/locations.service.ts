import type { z } from 'zod';
import type { CreateLocationBody, Location, UpdateLocationBody } from '../../../contract/locations.contract';
import type { TagsQuery } from '../../../contract/tags.contract';
import type { Db } from '../../db/connection';
import type { Principal } from '../../principal';
import { locationFields } from '../activity/activity.changes';
import type { Actor } from '../activity/activity.service';
import { plainCrud } from '../plain-resources/crud';
import { given, orNotFound } from '../shared/results';
import { tagFilterOf, tagsShown } from '../shared/tags';
import { assertTags } from '../tags/tags.service';
import * as repo from './locations.repo';

const toDto = (row: repo.LocationRow): z.infer<typeof Location> => ({
  id: row.id,
  name: row.name,
  address: row.address,
  ...tagsShown(row.tags),
  created_at: row.createdAt.toISOString(),
});

const location = plainCrud({
  repo,
  limit: 'locations',
  type: 'location',
  name: 'Location',
  fields: locationFields,
  represent: toDto,
});

const duplicateName = (name: string) => `A location named "${name}" already exists`;

export async function listLocations(db: Db, caller: Principal, query: z.infer<typeof TagsQuery>) {
  const rows = await repo.listWithCounts(db, caller.orgId, tagFilterOf(query));
  return rows.map((r) => ({ ...toDto(r.location), subnet_count: r.subnetCount, vlan_count: r.vlanCount }));
}

export async function getLocation(db: Db, caller: Principal, id: string) {
  return toDto(orNotFound(await repo.get(db, caller.orgId, id), location.name));
}

export async function createLocation(db: Db, caller: Principal, input: z.infer<typeof CreateLocationBody>) {
  const values = given({ name: input.name, address: input.address, tags: input.tags }) as repo.LocationValues;
  const check = (tx: Db) => assertTags(tx, caller.orgId, input.tags);
  return location.create(db, caller, values, duplicateName(input.name), toDto, check);
}

export async function updateLocation(
  db: Db,
  caller: Principal,
  id: string,
  input: z.infer<typeof UpdateLocationBody>,
  ifMatch?: string,
) {
  const values = given({ name: input.name, address: input.address, tags: input.tags });
  const check = (tx: Db) => assertTags(tx, caller.orgId, input.tags);
  return toDto(await location.update(db, caller, id, values, duplicateName(input.name ?? ''), { check, ifMatch }));
}

export async function deleteLocation(db: Db, caller: Principal, id: string, ifMatch?: string) {
  await location.remove(db, caller, id, ifMatch);
}

/** The organisation's location with this name, created (within the plan's limit, and logged) when missing. */
export const ensureLocation = (tx: Db, caller: Actor, name: string) =>
  location.ensure(tx, caller, () => repo.findByName(tx, caller.orgId, name), { name });

/**
 * Whether the organisation has this location, which then stays until the transaction ends: for other modules'
 * rows about to refer to it (a delete under way is waited for).
 */
export const lockForReference = location.lockForReference;
