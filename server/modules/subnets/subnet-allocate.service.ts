/** Allocation of child subnets: the lowest free blocks of a size, taken under the space lock. */
import type { z } from 'zod';
import type { AllocateSubnetsBody } from '../../../contract/subnets.schemas';
import type { Db } from '../../db/connection';
import { badRequest, exhausted } from '../../errors';
import { BITS, type Cidr, cidrRange, formatCidr, formatIp, freeBlocks, parseIp, rangeToBlocks } from '../../ipam';
import type { Principal } from '../../principal';
import { subnetFields } from '../activity/activity.changes';
import { recordCreatedMany } from '../activity/activity.service';
import { assertLimitLocked } from '../identity/limit-check';
import { commitTransaction } from '../writes/writes';
import { load } from './subnet-space.service';
import { insertManyNested, lockSubnet } from './subnets.hierarchy';
import * as repo from './subnets.repo';
import { assertReferences, getSubnetWithUsage, subnetValues } from './subnets.service';

/**
 * Creates `count` children of `prefix_length` at the lowest aligned blocks of the subnet that overlap no
 * subnet below it and hold none of its own address records. The space is locked exclusively, as for any
 * subnet write, so concurrent allocations take turns and each sees the blocks the one before took.
 */
export async function allocateSubnets(
  db: Db,
  caller: Principal,
  parentId: string,
  input: z.infer<typeof AllocateSubnetsBody>,
) {
  const orgId = caller.orgId;
  const { row, cidr } = await load(db, orgId, parentId);
  const bits = BITS[cidr.version];
  if (input.prefix_length <= cidr.prefix || input.prefix_length > bits) {
    throw badRequest(
      `prefix_length: must be longer than the subnet's /${cidr.prefix} and at most ${bits}, not ${input.prefix_length}`,
    );
  }
  return commitTransaction(db, async (tx) => {
    await assertReferences(tx, orgId, input);
    await assertLimitLocked(tx, caller, 'subnets', () => repo.countInOrg(tx, orgId), input.count);
    const parent = await lockSubnet(tx, orgId, parentId, row.vrfId);
    const blocks = freeBlocks(cidr, input.prefix_length, await occupied(tx, orgId, parent, cidr), input.count).blocks;
    if (blocks.length < input.count) {
      throw exhausted(
        `${parent.network} has ${blocks.length} free /${input.prefix_length} block(s), fewer than the ${input.count} asked for`,
      );
    }
    const refs = {
      folderId: input.folder_id ?? null,
      vlanId: input.vlan_id ?? null,
      vrfId: parent.vrfId,
      locationId: input.location_id ?? null,
    };
    const rows = await insertManyNested(
      tx,
      orgId,
      blocks.map((block) => subnetValues({ ...input, network: formatCidr(block) }, refs)),
    );
    await recordCreatedMany(tx, caller, 'create', 'subnet', rows, subnetFields);
    const subnets = [];
    for (const row of rows) subnets.push((await getSubnetWithUsage(tx, orgId, row.id)).dto);
    return subnets;
  });
}

/** What a new child may not overlap: the subnets below the parent and the parent's own address records. */
async function occupied(tx: Db, orgId: string, parent: repo.SubnetRow, cidr: Cidr): Promise<Cidr[]> {
  const bits = BITS[cidr.version];
  const runs = await repo.childRuns(tx, orgId, parent.id, bits);
  const children = runs.flatMap((run) =>
    rangeToBlocks({ first: parseIp(run.first)!.value, last: parseIp(run.last)!.value }, bits),
  );
  const range = cidrRange(cidr);
  const text = (value: bigint) => formatIp({ version: cidr.version, value });
  const records = (await repo.addressesBetween(tx, parent.id, text(range.first), text(range.last))).map((ip) => ({
    network: parseIp(ip)!.value,
    prefix: bits,
  }));
  return [...children, ...records].map((block) => ({ version: cidr.version, ...block }));
}
