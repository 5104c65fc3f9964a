import type { z } from 'zod';
import type { TagsQuery } from '../../../contract/tags.contract';
import type { CreateVlanBody, UpdateVlanBody, Vlan } from '../../../contract/vlans.contract';
import type { Db } from '../../db/connection';
import { badRequest } from '../../errors';
import type { Principal } from '../../principal';
import { vlanFields } from '../activity/activity.changes';
import type { Actor } from '../activity/activity.service';
import * as locations from '../locations/locations.service';
import { plainCrud } from '../plain-resources/crud';
import { given, orNotFound } from '../shared/results';
import { tagFilterOf, tagsShown } from '../shared/tags';
import { assertTags } from '../tags/tags.service';
import * as repo from './vlans.repo';

const toDto = (row: repo.VlanRow): z.infer<typeof Vlan> => ({
  id: row.id,
  vlan_number: row.vlanNumber,
  name: row.name,
  description: row.description,
  location_id: row.locationId,
  ...tagsShown(row.tags),
  created_at: row.createdAt.toISOString(),
});

const vlan = plainCrud({ repo, limit: 'vlans', type: 'vlan', name: 'VLAN', fields: vlanFields, represent: toDto });

const duplicateNumber = (n: number | undefined) => `VLAN ${n} already exists in this organisation`;

/**
 * A location referenced in a body must be one of the caller's (a missing one is the request's fault: 400);
 * checked in the transaction that writes the reference, which it keeps from being deleted meanwhile.
 */
const assertReferences = (orgId: string, input: { location_id?: string | null; tags?: string[] }) => async (tx: Db) => {
  await assertTags(tx, orgId, input.tags);
  const locationId = input.location_id;
  if (locationId && !(await locations.lockForReference(tx, orgId, locationId))) {
    throw badRequest(`location_id: no location with id ${locationId}`);
  }
};

export async function listVlans(db: Db, caller: Principal, query: z.infer<typeof TagsQuery>) {
  const rows = await repo.listWithCounts(db, caller.orgId, tagFilterOf(query));
  return rows.map((r) => ({ ...toDto(r.vlan), subnet_count: r.subnetCount }));
}

export async function getVlan(db: Db, caller: Principal, id: string) {
  return toDto(orNotFound(await repo.get(db, caller.orgId, id), vlan.name));
}

export async function createVlan(db: Db, caller: Principal, input: z.infer<typeof CreateVlanBody>) {
  const values = given({
    vlanNumber: input.vlan_number,
    name: input.name,
    description: input.description,
    locationId: input.location_id,
    tags: input.tags,
  }) as repo.VlanValues;
  const check = assertReferences(caller.orgId, input);
  return vlan.create(db, caller, values, duplicateNumber(input.vlan_number), toDto, check);
}

export async function updateVlan(
  db: Db,
  caller: Principal,
  id: string,
  input: z.infer<typeof UpdateVlanBody>,
  ifMatch?: string,
) {
  orNotFound(await repo.get(db, caller.orgId, id), vlan.name);
  const values = given({
    vlanNumber: input.vlan_number,
    name: input.name,
    description: input.description,
    locationId: input.location_id,
    tags: input.tags,
  });
  const check = assertReferences(caller.orgId, input);
  return toDto(await vlan.update(db, caller, id, values, duplicateNumber(input.vlan_number), { check, ifMatch }));
}

export async function deleteVlan(db: Db, caller: Principal, id: string, ifMatch?: string) {
  await vlan.remove(db, caller, id, ifMatch);
}

/** The organisation's VLAN with this number, created (within the plan's VLAN limit, and logged) when missing. */
export const ensureVlan = (tx: Db, caller: Actor, vlanNumber: number) =>
  vlan.ensure(tx, caller, () => repo.findByNumber(tx, caller.orgId, vlanNumber), { vlanNumber });

/**
 * Whether the organisation has this VLAN, which then stays until the transaction ends: for other modules'
 * rows about to refer to it (a delete under way is waited for).
 */
export const lockForReference = vlan.lockForReference;
