import type { Db } from '../../db/connection';
import { duplicate, isUniqueViolation, notFound } from '../../errors';
import { getOrganization, lockOrganization } from '../identity/identity.service';
import type { Principal } from '../identity/principal';
import { assertWithinLimit, effectiveLimits, type LimitName } from '../plans/limits';

export function orNotFound<T>(row: T | undefined | null, resource: string): T {
  if (row === undefined || row === null) throw notFound(resource);
  return row;
}

/** Runs an insert or update, turning a unique violation into a 400 `duplicate` with this message. */
export async function uniqueOr<T>(action: () => Promise<T>, message: string): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicate(message);
    throw error;
  }
}

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
  const { orgId } = owner;
  const known = owner.plan ? owner : await getOrganization(tx, orgId);
  if (known?.plan && effectiveLimits(known.plan, known.limitOverrides ?? {})[name] === null) return;
  const org = await lockOrganization(tx, orgId);
  assertWithinLimit(effectiveLimits(org.plan, org.limitOverrides), name, await countCurrent(), adding);
}

/** Keeps only the keys whose value was given, so a PATCH changes just those columns. */
export function given<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}
