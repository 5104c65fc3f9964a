/**
 * Address spaces: a VRF, or the global (no-VRF) space. Other modules that write into a space (addresses)
 * take its lock through this file.
 */
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';

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
  const lock = mode === 'shared' ? lockSpaceShared : lockSpace;
  for (const spaceId of [...new Set(spaceIds)].sort()) await lock(db, `subnets:${orgId}:${spaceId}`);
}
const lockSpace = prepared('lock_space', 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))');
const lockSpaceShared = prepared('lock_space_shared', 'SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))');
