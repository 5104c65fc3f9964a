/** Splitting a subnet into equal parts. */
import type { Db } from '../../db/connection';
import { badRequest, duplicate } from '../../errors';
import { BITS, formatCidr, splitCidr, splitPrefix } from '../../ipam';
import type { Principal } from '../../principal';
import { created, subnetFields } from '../activity/activity.changes';
import { recordActivities } from '../activity/activity.service';
import { assertLimitLocked } from '../identity/limit-check';
import { commitTransaction } from '../writes/writes';
import { spaceOf } from './spaces';
import { load } from './subnet-space.service';
import * as writes from './subnet-writes.repo';
import { lockSubnet } from './subnets.hierarchy';
import * as repo from './subnets.repo';
import { lockReferences } from './subnets.service';

/**
 * Replaces a subnet by `parts` equal subnets that inherit its folder, parent, name, VRF and pool flag; its
 * own addresses are deleted, its children nest under the part containing them (or become the parent of
 * the parts inside them).
 */
export async function splitSubnet(db: Db, caller: Principal, id: string, parts: number) {
  const orgId = caller.orgId;
  const { row: before, cidr } = await load(db, orgId, id);
  const prefix = splitPrefix(cidr, parts);
  if (prefix === null) {
    throw badRequest(
      `parts: ${before.network} cannot be split into ${parts} (the parts would pass /${BITS[cidr.version]})`,
    );
  }
  const networks = splitCidr(cidr, parts).map(formatCidr);
  return commitTransaction(db, async (tx) => {
    await assertLimitLocked(tx, caller, 'subnets', () => repo.countInOrg(tx, orgId), parts - 1);
    const row = await lockSubnet(tx, orgId, id, before.vrfId);
    // The parts refer to its folder and VRF: kept from being deleted (a folder deleted meanwhile is none).
    const gone = await lockReferences(tx, orgId, { folder_id: row.folderId, vrf_id: row.vrfId });
    // A part can equal any descendant, not only a direct child.
    const clash = await repo.findInsideWithPrefix(tx, orgId, spaceOf(row.vrfId), row.network, prefix);
    if (clash) throw duplicate(`parts: the part ${clash.network} already exists as a subnet (${clash.id})`);
    await repo.reparentChildren(tx, orgId, id, row.parentId);
    const addressesRemoved = await repo.deleteOwnAddresses(tx, orgId, id);
    await repo.remove(tx, orgId, id);
    const folderId = gone.includes('folder_id') ? null : row.folderId;
    const inherited = { folderId, name: row.name, vrfId: row.vrfId, isPool: row.isPool };
    const pieces = await repo.insertMany(
      tx,
      orgId,
      networks.map((network) => ({ ...inherited, network, parentId: row.parentId })),
    );
    await writes.nestInserted(
      tx,
      orgId,
      pieces.map((piece) => piece.id),
    );
    // The split on the original, then each part's creation: a feed or a webhook receiver learns the parts' ids.
    await recordActivities(tx, caller, [
      {
        action: 'split',
        resourceType: 'subnet',
        resourceId: id,
        changes: {
          network: [row.network, null],
          parts: [null, networks],
          addresses_removed: [addressesRemoved, 0],
        },
      },
      ...pieces.map((piece) => ({
        action: 'create' as const,
        resourceType: 'subnet' as const,
        resourceId: piece.id,
        changes: created(subnetFields(piece)),
      })),
    ]);
    return pieces.map((piece) => ({ id: piece.id, network: piece.network }));
  });
}
