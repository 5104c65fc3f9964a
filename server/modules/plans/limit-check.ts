/** Plan limits checked where rows are added, inside the adding transaction. */
import type { Db } from '../../db/connection';
import type { Principal } from '../../principal';
import { getOrganization, lockOrganization } from '../identity/identity.service';
import { assertWithinLimit, effectiveLimits, type LimitName } from './limits';

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
