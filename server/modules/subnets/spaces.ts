/**
 * Address spaces: a VRF, or the global (no-VRF) space. Other modules that write into a space (addresses)
 * take its lock through this file, and read subnets as addresses' homes (the SQL is in spaces.repo.ts).
 */
import type { Db } from '../../db/connection';
import { type AddressHome, addressHomeLockedOf, addressHomeOf, lockSpaceKey, lockSpaceKeyStep } from './spaces.repo';

export {
  type AddressHome,
  addressHomeOf,
  addressHomesOf,
  allocationHomeOf,
  firstFreeHomeOf,
  homesByNetwork,
  lockAddressHomeStep,
  type NamedHome,
} from './spaces.repo';

/** The global (no-VRF) space's key, as the generated space_id column stores it. */
export const GLOBAL_SPACE = '00000000-0000-0000-0000-000000000000';
export const spaceOf = (vrfId: string | null | undefined) => vrfId ?? GLOBAL_SPACE;

/**
 * Serialises hierarchy changes in one (organisation, space) until the transaction ends, across server
 * processes sharing the database; address writes take the lock shared, so they run alongside each other
 * but never while a subnet that could own their ip is being created. Spaces are locked in sorted order.
 */
export async function lockSpaces(
  db: Db,
  orgId: string,
  spaceIds: string[],
  mode: 'exclusive' | 'shared' = 'exclusive',
) {
  for (const spaceId of [...new Set(spaceIds)].sort()) await lockSpaceKey(db, lockKey(orgId, spaceId), mode);
}
/** The exclusive lock of one space as a step of a pipeline (a subnet write sent at once). */
export const lockSpaceStep = (orgId: string, spaceId: string) => lockSpaceKeyStep(lockKey(orgId, spaceId));

// spaces.repo.ts's address_home_locked builds the same key in SQL.
const lockKey = (orgId: string, spaceId: string) => `subnets:${orgId}:${spaceId}`;

/**
 * An address's home with its space locked shared until the transaction ends, read again under the lock, so
 * it cannot be deleted, split or moved before the transaction ends: undefined when it is gone (a subnet write
 * holding the space came first). One moved to another space meanwhile has that space locked too.
 */
export async function lockAddressHome(tx: Db, orgId: string, subnetId: string): Promise<AddressHome | undefined> {
  for (;;) {
    const held = await addressHomeLockedOf(tx, orgId, subnetId);
    const current = held && (await addressHomeOf(tx, orgId, subnetId));
    if (!current || spaceOf(current.vrfId) === spaceOf(held.vrfId)) return current;
  }
}
