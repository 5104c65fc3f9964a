/** Allocation of child subnets: the lowest free blocks of a size, taken under the space lock. */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { AllocateSubnetsBody } from '../../../contract/subnets.schemas';
import type { Db } from '../../db/connection';
import { onOneConnection, transaction } from '../../db/pipeline';
import { badRequest, exhausted, isRequirementFailed, refusalOf } from '../../errors';
import { BITS, type Cidr, formatCidr, freeBlocks, parseCidr, parseIp, rangeToBlocks } from '../../ipam';
import type { Principal } from '../../principal';
import { created, subnetFields } from '../activity/activity.changes';
import { assertCallerWithinLimit, limitLockSteps, limitOf } from '../identity/limit-check';
import { orNotFound } from '../shared/results';
import { commitChange } from '../writes/writes';
import { lockSpaceStep, spaceOf } from './spaces';
import * as space from './subnet-space.repo';
import { load } from './subnet-space.service';
import { withUsageOf, withUsageStep } from './subnet-usage.repo';
import { insertAllocatedSteps, lockReferencesSteps, type Refusal } from './subnet-writes.repo';
import { type SubnetDto, toSubnetDto } from './subnets.dto';
import { lockSubnet } from './subnets.hierarchy';
import { missingReference, subnetValues } from './subnets.service';

/**
 * Creates `count` children of `prefix_length` at the lowest aligned blocks of the subnet that overlap no
 * subnet below it and hold none of its own address records, in two round trips: a read (no lock) of what
 * occupies the subnet, from which the blocks are chosen; then one pipeline, one transaction, that locks the
 * references, the organisation's row (limited plans) and the space exclusively (as any subnet write), inserts
 * the blocks under it provided it is as read, none of them is taken and the limit holds, requires that it
 * inserted them all, writes their activity entries and events, and reads them back. When a
 * concurrent write in the space changed the subnet meanwhile, that batch rolls back and the allocation is
 * made again with the space held from before the read, as the writes that came first release it: so
 * concurrent allocations take turns, and each sees the blocks the one before took.
 */
export async function allocateSubnets(
  db: Db,
  caller: Principal,
  parentId: string,
  input: z.infer<typeof AllocateSubnetsBody>,
) {
  const optimistic = await onOneConnection(db, (connection) => allocateOnce(connection, caller, parentId, input));
  if (optimistic !== 'changed') return optimistic;
  return transaction(db, async (tx) => {
    await lockSubnet(tx, caller.orgId, parentId, (await load(tx, caller.orgId, parentId)).row.vrfId);
    const outcome = await allocateOnce(tx, caller, parentId, input);
    if (outcome === 'changed') throw new Error(`the subnet ${parentId} changed while its space was locked`);
    return outcome;
  });
}

/** One allocation: the read, and the pipeline; 'changed' when the subnet was no longer as read. */
async function allocateOnce(
  db: Db,
  caller: Principal,
  parentId: string,
  input: z.infer<typeof AllocateSubnetsBody>,
): Promise<SubnetDto[] | 'changed'> {
  const orgId = caller.orgId;
  const refs = {
    folderId: input.folder_id ?? null,
    vlanId: input.vlan_id ?? null,
    locationId: input.location_id ?? null,
  };
  const basis = orNotFound(await space.allocationBasisOf(db, orgId, parentId), 'Subnet');
  const parent = basis.subnet;
  const cidr = parseCidr(parent.network)!.cidr;
  const bits = BITS[cidr.version];
  if (input.prefix_length <= cidr.prefix || input.prefix_length > bits) {
    throw badRequest(
      `prefix_length: must be longer than the subnet's /${cidr.prefix} and at most ${bits}, not ${input.prefix_length}`,
    );
  }
  const occupiedBlocks = occupied(basis, cidr);
  const blocks = freeBlocks(cidr, input.prefix_length, occupiedBlocks, input.count).blocks;
  if (blocks.length < input.count) {
    throw exhausted(
      `${parent.network} has ${blocks.length} free /${input.prefix_length} block(s), fewer than the ${input.count} asked for`,
    );
  }
  const values = subnetValues({ ...input, network: formatCidr(cidr) }, { ...refs, vrfId: parent.vrfId });
  const chosen = blocks.map((block) => ({ id: randomUUID(), network: formatCidr(block) }));
  try {
    const subnets = await commitChange(db, caller, {
      locks: [
        ...lockReferencesSteps(orgId, refs),
        ...limitLockSteps(caller, 'subnets'),
        lockSpaceStep(orgId, spaceOf(parent.vrfId)),
      ],
      steps: {
        ...insertAllocatedSteps(orgId, parent, chosen, values, bits, limitOf(caller, 'subnets')),
        read: chosen.map((c) => withUsageStep(orgId, c.id)),
      },
      activity: chosen.map((c) => ({
        action: 'create' as const,
        resourceType: 'subnet' as const,
        resourceId: c.id,
        changes: created(subnetFields({ ...values, network: c.network })),
      })),
      answer: ({ read }) =>
        read.map((row) => {
          const found = orNotFound(withUsageOf([row]), 'Subnet');
          return toSubnetDto(found.row, found.used);
        }),
    });
    return subnets;
  } catch (error) {
    if (!isRequirementFailed(error)) throw error;
    const refusal = refusalOf<Refusal>(error);
    if (refusal.rule === 'reference') throw missingReference(refusal.field, input);
    if (refusal.rule === 'limit') assertCallerWithinLimit(caller, 'subnets', refusal.count, input.count);
    if (refusal.rule !== 'changed') throw error;
    return 'changed';
  }
}

/** What a new child may not overlap: the subnets below the parent and the parent's own address records. */
function occupied(basis: { runs: { first: string; last: string }[]; records: string[] }, cidr: Cidr): Cidr[] {
  const bits = BITS[cidr.version];
  const children = basis.runs.flatMap((run) =>
    rangeToBlocks({ first: parseIp(run.first)!.value, last: parseIp(run.last)!.value }, bits),
  );
  const records = basis.records.map((ip) => ({ network: parseIp(ip)!.value, prefix: bits }));
  return [...children, ...records].map((block) => ({ version: cidr.version, ...block }));
}
