/** Allocation of child subnets: the lowest free blocks of a size, taken under the space lock. */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { AllocateSubnetsBody } from '../../../contract/subnets.schemas';
import type { Db } from '../../db/connection';
import { onOneConnection, type Step, transaction } from '../../db/pipeline';
import { badRequest, exhausted, isRequirementFailed, refusalOf } from '../../errors';
import {
  BITS,
  type Cidr,
  cidrRange,
  formatCidr,
  formatIp,
  freeBlocks,
  mergeRanges,
  parseCidr,
  parseIp,
  rangeToBlocks,
} from '../../ipam';
import type { Principal } from '../../principal';
import { created, subnetFields } from '../activity/activity.changes';
import { withCreateFields } from '../custom-fields/custom-fields.service';
import { assertCallerWithinLimit, limitLockSteps, limitOf } from '../identity/limit-check';
import { orNotFound } from '../shared/results';
import { commitChange, isDryRun } from '../writes/writes';
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
export const allocateSubnets = (
  db: Db,
  caller: Principal,
  parentId: string,
  input: z.infer<typeof AllocateSubnetsBody>,
) =>
  withCreateFields(db, caller.orgId, 'subnet', input.custom_fields, (custom_fields, guard) =>
    allocate(db, caller, parentId, { ...input, custom_fields }, guard),
  );

/** allocateSubnets with its custom fields checked; `guard` fails the write when the definitions changed since. */
async function allocate(
  db: Db,
  caller: Principal,
  parentId: string,
  input: z.infer<typeof AllocateSubnetsBody>,
  guard: Step<unknown>,
) {
  // Right after this process's last allocation in the subnet, from what it left there, without a read.
  const key = `${caller.orgId}:${parentId.toLowerCase()}`;
  const hinted = hints.get(key);
  if (hinted) {
    // Used once; a dry run leaves it, as it leaves the subnet.
    if (!isDryRun()) hints.delete(key);
    const outcome = await allocateOnce(db, caller, parentId, input, guard, hinted);
    if (outcome !== 'changed') return outcome;
  }
  const optimistic = await onOneConnection(db, (connection) =>
    allocateOnce(connection, caller, parentId, input, guard),
  );
  if (optimistic !== 'changed') return optimistic;
  return transaction(db, async (tx) => {
    await lockSubnet(tx, caller.orgId, parentId, (await load(tx, caller.orgId, parentId)).row.vrfId);
    const outcome = await allocateOnce(tx, caller, parentId, input, guard);
    if (outcome === 'changed') throw new Error(`the subnet ${parentId} changed while its space was locked`);
    return outcome;
  });
}

/** What allocating child subnets reads of a subnet (subnet-space.repo.ts, allocationBasisOf). */
type Basis = NonNullable<Awaited<ReturnType<typeof space.allocationBasisOf>>>;

/**
 * What occupied each subnet after this process's last allocation of child subnets in it, for the next one
 * there: its blocks are chosen from it, and its insert is guarded by the digest of what occupies the subnet
 * (OCCUPANCY), so they are the lowest free ones unless something changed, in which case the allocation reads
 * the subnet as it would without it. Kept for the most recent subnets.
 */
const hints = new Map<string, Basis>();
const MOST_HINTS = 1000;

/**
 * One allocation: the read (or the `hint`), and the pipeline; 'changed' when the subnet was no longer as read
 * (and, with a hint, when it no longer holds free blocks enough as far as the hint knows).
 */
async function allocateOnce(
  db: Db,
  caller: Principal,
  parentId: string,
  input: z.infer<typeof AllocateSubnetsBody>,
  guard: Step<unknown>,
  hint?: Basis,
): Promise<SubnetDto[] | 'changed'> {
  const orgId = caller.orgId;
  const refs = {
    folderId: input.folder_id ?? null,
    vlanId: input.vlan_id ?? null,
    locationId: input.location_id ?? null,
  };
  const basis = hint ?? orNotFound(await space.allocationBasisOf(db, orgId, parentId), 'Subnet');
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
    if (hint) return 'changed';
    throw exhausted(
      `${parent.network} has ${blocks.length} free /${input.prefix_length} block(s), fewer than the ${input.count} asked for`,
    );
  }
  const values = subnetValues({ ...input, network: formatCidr(cidr) }, { ...refs, vrfId: parent.vrfId });
  const chosen = blocks.map((block) => ({ id: randomUUID(), network: formatCidr(block) }));
  try {
    const { subnets, before, hashes } = await commitChange(db, caller, {
      locks: [
        ...lockReferencesSteps(orgId, refs),
        ...limitLockSteps(caller, 'subnets'),
        lockSpaceStep(orgId, spaceOf(parent.vrfId)),
        guard,
      ],
      steps: {
        // Without a hint, whether the subnet is still as read once its space is held: then a hint can follow.
        before: hint ? [] : [space.occupancyStep(orgId, parentId)],
        ...insertAllocatedSteps(orgId, parent, chosen, values, bits, limitOf(caller, 'subnets'), hint?.occupancy),
        read: chosen.map((c) => withUsageStep(orgId, c.id)),
      },
      activity: chosen.map((c) => ({
        action: 'create' as const,
        resourceType: 'subnet' as const,
        resourceId: c.id,
        changes: created(subnetFields({ ...values, network: c.network })),
      })),
      answer: ({ read, before, inserted }) => ({
        subnets: read.map((row) => {
          const found = orNotFound(withUsageOf([row]), 'Subnet');
          return toSubnetDto(found.row, found.used);
        }),
        before: before[0]?.occupancy,
        hashes: inserted.map((row) => row.hash),
      }),
    });
    // What occupies the subnet now: what the hint or the read relied on (as held under the lock), and the blocks.
    const after = (hint || before === basis.occupancy) && space.withChildren(basis.occupancy, hashes);
    if (after && !isDryRun()) {
      // The children's runs with the blocks taken, merged: the next choice walks as few ranges as the read's.
      const text = (value: bigint) => formatIp({ version: cidr.version, value });
      const runs = mergeRanges([
        ...basis.runs.map((run) => ({ first: parseIp(run.first)!.value, last: parseIp(run.last)!.value })),
        ...chosen.map((c) => cidrRange(parseCidr(c.network)!.cidr)),
      ]).map((run) => ({ first: text(run.first), last: text(run.last) }));
      hints.set(`${orgId}:${parentId.toLowerCase()}`, { ...basis, runs, occupancy: after });
      if (hints.size > MOST_HINTS) hints.delete(hints.keys().next().value as string);
    }
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
