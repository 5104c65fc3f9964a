/**
 * Plan limits checked where rows are added, inside the adding transaction, under the organisation's lock: in
 * the identity module, which owns the organisation row (identity reads the plans' names, so the check in
 * plans/ made the two modules a cycle).
 */
import type { Db } from '../../db/connection';
import type { Step } from '../../db/pipeline';
import type { Principal } from '../../principal';
import { assertWithinLimit, effectiveLimits, type LimitName } from '../plans/limits';
import { getOrganization, lockOrganization, lockOrganizationStep } from './identity.service';

/** The organisation a limit applies to, with its plan when the caller already knows it (a request's caller). */
type LimitOwner = { orgId: string } & Partial<Pick<Principal, 'plan' | 'limitOverrides'>>;

/**
 * Checks a plan limit inside the caller's transaction, with the organisation row locked, so two
 * concurrent creates cannot both take the last slot. An unlimited plan takes no lock and counts nothing;
 * the plan is the caller's (read with the request's authentication) or else read here.
 */
export async function assertLimitLocked(
  tx: Db,
  owner: LimitOwner,
  name: LimitName,
  countCurrent: () => Promise<number>,
  adding = 1,
): Promise<void> {
  const take = await limitRoomLocked(tx, owner, name, countCurrent);
  take(adding);
}

/**
 * For adding rows one at a time within a limit (an import): locks and counts as `assertLimitLocked` does,
 * once, and answers `take(adding = 1)`, which counts them or throws the 402 they would get.
 */
export async function limitRoomLocked(
  tx: Db,
  owner: LimitOwner,
  name: LimitName,
  countCurrent: () => Promise<number>,
): Promise<(adding?: number) => void> {
  const known = owner.plan ? owner : await getOrganization(tx, owner.orgId);
  if (known?.plan && effectiveLimits(known.plan, known.limitOverrides ?? {})[name] === null) return () => {};
  const org = await lockOrganization(tx, owner.orgId);
  // The owner's organisation: its row is there (none would be a bug, not the caller's doing).
  if (!org) throw new Error(`Expected the organisation ${owner.orgId} to lock, but it has no row`);
  let current = await countCurrent();
  return (adding = 1) => {
    assertWithinLimit(org, name, current, adding);
    current += adding;
  };
}

/** The caller's limit of `name` (null: unlimited), for a limit checked inside a guarded statement. */
export const limitOf = (caller: Principal, name: LimitName) =>
  effectiveLimits(caller.plan, caller.limitOverrides)[name];

/**
 * The step locking the organisation's row before a guarded write counts against a limit (so two writes
 * cannot both take the last slot); none on a plan without that limit.
 */
export const limitLockSteps = (caller: Principal, name: LimitName): Step<unknown>[] =>
  limitOf(caller, name) === null ? [] : [lockOrganizationStep(caller.orgId)];

/** 402 when adding `adding` to `current` would pass the caller's limit of `name`. */
export const assertCallerWithinLimit = (caller: Principal, name: LimitName, current: number, adding = 1) =>
  assertWithinLimit(caller, name, current, adding);
