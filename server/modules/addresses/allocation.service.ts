import { randomUUID } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import type { z } from 'zod';
import type { AllocateAddressesBody } from '../../../contract/addresses.contract';
import type { Db } from '../../db/connection';
import { onOneConnection, type Step } from '../../db/pipeline';
import { exhausted, isRequirementFailed } from '../../errors';
import { parseIp } from '../../ipam';
import type { Principal } from '../../principal';
import { addressFields, created } from '../activity/activity.changes';
import { isDefinitionsChanged, withCreateFields } from '../custom-fields/custom-fields.service';
import { assertCallerWithinLimit, limitLockSteps, limitOf } from '../identity/limit-check';
import { orNotFound } from '../shared/results';
import { allocationHomeOf, lockAddressHomeStep } from '../subnets/spaces';
import { freeAddresses, headSize } from '../subnets/subnet-space.service';
import { tagsLockSteps, unknownTagError } from '../tags/tags.service';
import { commitChange } from '../writes/writes';
import { type AddressDto, toDto } from './address-shape.repo';
import type { AllocationBasis, RecordsBelow } from './addresses.repo';
import * as repo from './addresses.repo';
import { givenFields, newRow, statusAndHold } from './addresses.service';
import { hintAfterHinted, hintAfterRead, hintedCandidates } from './allocation-hints';

/** Attempts before an allocation gives up on candidates that concurrent allocations keep holding. */
const ALLOCATION_ATTEMPTS = 20;
/**
 * Candidates beyond the count, doubled on each attempt: those concurrent allocations may hold (one each, a
 * pool's worth per process). Each costs an activity entry and an event sent with the write.
 */
const CANDIDATES_PASSED_OVER = 16;
/**
 * Candidates beyond the count after a hint: a few, for the allocations of this process running at once (the
 * hint gives them the same candidates); one that finds them all held reads the subnet and has the above.
 */
const HINTED_PASSED_OVER = 2;

/**
 * Creates `count` addresses at the lowest free ips of the subnet: in one round trip right after this
 * process's last allocation in the subnet (allocation-hints.ts), else in two where the subnet is sparse: a
 * read (no lock) of the subnet, its gateway, children and first records, from which the candidates are
 * chosen; then one pipeline, one transaction, that takes the organisation lock (limited plans) and the space
 * lock shared (as any address write), inserts at the first candidates it can, provided the subnet is still as
 * read and the limit holds, requires that it got them all, and writes the activity entries and events of the
 * addresses it created. Concurrent allocations take different ips through per-ip advisory
 * locks they pass over rather than wait for. When the write got fewer (candidates taken meanwhile, the
 * subnet changed) it rolls back and the allocation starts over with more candidates; a refusal by the limit
 * is a 402.
 */
export const allocateAddresses = (
  db: Db,
  caller: Principal,
  subnetId: string,
  input: z.infer<typeof AllocateAddressesBody>,
  now: Date,
) =>
  withCreateFields(db, caller.orgId, 'address', input.custom_fields, (custom_fields, guard) =>
    allocate(db, caller, subnetId, { ...input, custom_fields }, now, guard),
  );

/** allocateAddresses with its custom fields checked; `guard` fails the write when the definitions changed since. */
async function allocate(
  db: Db,
  caller: Principal,
  subnetId: string,
  input: z.infer<typeof AllocateAddressesBody>,
  now: Date,
  guard: Step<unknown>,
) {
  const orgId = caller.orgId;
  const limit = limitOf(caller, 'addresses');
  const values = { subnetId: subnetId.toLowerCase(), ...statusAndHold(input, now), ...givenFields(input) };
  /** The write of the first `input.count` of `ips` it can take; null when it got fewer (nothing written). */
  const write = async (connection: Db, subnet: AllocationBasis, ips: string[], below?: RecordsBelow) => {
    const candidates = ips.map((ip) => ({ ip, id: randomUUID() }));
    const entries = candidates.map(({ ip, id }) => ({
      action: 'create' as const,
      resourceType: 'address' as const,
      resourceId: id,
      changes: created(addressFields(newRow({ ...values, ip }))),
    }));
    try {
      return await commitChange(connection, caller, {
        locks: [
          ...tagsLockSteps(orgId, values.tags),
          ...limitLockSteps(caller, 'addresses'),
          lockAddressHomeStep(orgId, subnetId),
          guard,
        ],
        steps: {
          inserted: repo.insertAllocatedStep(orgId, subnet, candidates, input.count, values, limit, below),
          check: repo.requireAllocatedStep(
            candidates.map((c) => c.id),
            input.count,
          ),
        },
        activity: entries,
        onlyExisting: 'addresses',
        answer: ({ inserted }) => inserted.sort((a, b) => compareIps(a.ip, b.ip)).map(toDto),
      });
    } catch (error) {
      if (!isRequirementFailed(error) || isDefinitionsChanged(error)) throw error;
      const unknownTag = unknownTagError(error);
      if (unknownTag) throw unknownTag;
      return null;
    }
  };

  // A part of the subnet (a range, outside the ranges, past the first N): searched each time, hints neither used
  // nor kept (they follow the whole subnet's lowest free addresses).
  const target =
    input.range_id !== undefined || input.skip_ranges || input.skip_first !== undefined
      ? { orgId, rangeId: input.range_id, skipRanges: input.skip_ranges, skipFirst: input.skip_first }
      : undefined;
  // Right after this process's last allocation in the subnet, without reading it first (allocation-hints.ts).
  const hinted = target ? null : hintedCandidates(orgId, subnetId, input.count + HINTED_PASSED_OVER);
  if (hinted && hinted.ips.length >= input.count) {
    const addresses = await write(db, hinted.subnet, hinted.ips, hinted.below);
    hintAfterHinted(orgId, subnetId, hinted, addresses?.map((a) => a.ip) ?? []);
    if (addresses) return addresses;
  }

  for (let attempt = 0; ; attempt++) {
    const wanted = input.count + CANDIDATES_PASSED_OVER * 2 ** Math.min(attempt, 6);
    // The read and the write on one connection, one right after the other: the candidates are as fresh as
    // they can be without holding a transaction open across the choice.
    const outcome = await onOneConnection(
      db,
      async (connection): Promise<{ addresses: AddressDto[] } | { short: string }> => {
        const read = headSize(wanted);
        const subnet = orNotFound(await allocationHomeOf(connection, orgId, subnetId, read), 'Subnet');
        const free = await freeAddresses(connection, subnet, wanted, subnet.head, target);
        if (free.length < input.count) {
          throw exhausted(
            `${subnet.network} has ${free.length} free address(es), fewer than the ${input.count} asked for`,
          );
        }
        const addresses = await write(connection, subnet, free);
        if (!addresses) return { short: subnet.network };
        if (target) return { addresses };
        hintAfterRead(
          orgId,
          subnetId,
          subnet,
          read,
          free,
          addresses.map((a) => a.ip),
        );
        return { addresses };
      },
    );
    if ('addresses' in outcome) return outcome.addresses;
    if (limit !== null) {
      assertCallerWithinLimit(caller, 'addresses', await repo.countInOrg(db, orgId), input.count);
    }
    if (attempt === ALLOCATION_ATTEMPTS) throw new Error(`no free address of ${outcome.short} could be locked`);
    // Candidates held by other allocations become records (or free again) when those commit: wait a little.
    await setTimeout(5 * (attempt + 1));
  }
}

const compareIps = (a: string, b: string) => {
  const [x, y] = [parseIp(a)!.value, parseIp(b)!.value];
  return x < y ? -1 : x > y ? 1 : 0;
};
