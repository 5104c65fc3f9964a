/**
 * The hierarchy rules, run inside the caller's transaction with the space locked: a subnet's parent is
 * the smallest containing subnet of its space; a new subnet adopts the subnets and addresses it covers.
 */
import type { Db } from '../../db/connection';
import { duplicate } from '../../errors';
import { orNotFound } from '../shared/results';
import { lockSpaces, spaceOf } from './spaces';
import * as writes from './subnet-writes.repo';
import * as repo from './subnets.repo';

/**
 * Locks the spaces (the subnet's own, as read before the transaction, and `alsoSpaces`) and re-reads the
 * subnet under the lock: a subnet deleted meanwhile is a 404, one moved meanwhile has its new space locked too.
 * Callers then work on the fresh row, never on the one read before the lock.
 */
export async function lockSubnet(tx: Db, orgId: string, id: string, vrfId: string | null, alsoSpaces: string[] = []) {
  let spaces = [spaceOf(vrfId), ...alsoSpaces];
  for (;;) {
    await lockSpaces(tx, orgId, spaces);
    const row = orNotFound(await repo.get(tx, orgId, id), 'Subnet');
    if (spaces.includes(spaceOf(row.vrfId))) return row;
    spaces = [spaceOf(row.vrfId)];
  }
}

async function assertNotInSpace(tx: Db, orgId: string, spaceId: string, network: string) {
  const existing = await repo.findByNetwork(tx, orgId, spaceId, network);
  if (existing) throw duplicate(`network: ${network} already exists in this space (subnet ${existing.id})`);
}

/** Inserts subnets (none equal to another of its space) and nests them, among themselves too (an import). */
export async function insertManyNested(tx: Db, orgId: string, values: repo.SubnetInsert[]) {
  if (values.length === 0) return [];
  const rows = await repo.insertMany(tx, orgId, values);
  await writes.nestInserted(
    tx,
    orgId,
    rows.map((row) => row.id),
  );
  return rows;
}

/**
 * Moves a subnet (with its own addresses) to another space: its children stay and nest under its former
 * parent; in the new space it nests under its smallest container and adopts what it covers there.
 */
export async function moveToSpace(tx: Db, orgId: string, subnet: repo.SubnetRow, vrfId: string | null) {
  const spaceId = spaceOf(vrfId);
  await assertNotInSpace(tx, orgId, spaceId, subnet.network);
  await repo.reparentChildren(tx, orgId, subnet.id, subnet.parentId);
  const parent = await repo.smallestContaining(tx, orgId, spaceId, subnet.network);
  const parentId = parent?.id ?? null;
  await repo.update(tx, orgId, subnet.id, { vrfId, parentId });
  await repo.setAddressesSpace(tx, orgId, subnet.id, vrfId);
  await repo.adoptContained(tx, orgId, spaceId, subnet.network, subnet.id, parentId);
  if (parentId) await repo.moveAddressesInto(tx, orgId, parentId, subnet.network, subnet.id);
  await repo.moveAddressesToChildren(tx, orgId, subnet.id);
}
