/**
 * The SQL of address spaces (spaces.ts): their advisory locks, and subnets read as addresses' homes. Prepared
 * statements: every address write runs one of them.
 */
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';

const lockSpace = prepared<unknown, { key: string }>(
  'lock_space',
  'SELECT pg_advisory_xact_lock(hashtextextended(:key, 0))',
);
const lockSpaceShared = prepared<unknown, { key: string }>(
  'lock_space_shared',
  'SELECT pg_advisory_xact_lock_shared(hashtextextended(:key, 0))',
);

/** Takes the advisory lock of `key` until the transaction ends, exclusive or shared. */
export const lockSpaceKey = (db: Db, key: string, mode: 'exclusive' | 'shared') =>
  (mode === 'shared' ? lockSpaceShared : lockSpace)(db, { key });

/** The exclusive lock of `key` as a step of a pipeline. */
export const lockSpaceKeyStep = (key: string) => lockSpace.step({ key });

/** What an address needs of its subnet: its range, pool flag and VRF. */
export interface AddressHome {
  network: string;
  isPool: boolean;
  vrfId: string | null;
}

const HOME_COLUMNS = 'network, is_pool AS "isPool", vrf_id AS "vrfId"';
/** A subnet of the organisation. */
type SubnetOf = { orgId: string; subnetId: string };

const addressHome = prepared<AddressHome, SubnetOf>(
  'address_home',
  `SELECT ${HOME_COLUMNS} FROM subnets WHERE org_id = :orgId AND id = :subnetId`,
);
// The key is built as spaces.ts's lockKey builds it: space_id is spaceOf(vrf_id), stored.
const addressHomeLocked = prepared<AddressHome, SubnetOf>(
  'address_home_locked',
  `SELECT ${HOME_COLUMNS}, pg_advisory_xact_lock_shared(hashtextextended('subnets:' || org_id || ':' || space_id, 0))
   FROM subnets WHERE org_id = :orgId AND id = :subnetId`,
);

/** The organisation's subnet as an address's home; undefined when there is none. */
export const addressHomeOf = async (db: Db, orgId: string, subnetId: string): Promise<AddressHome | undefined> =>
  (await addressHome(db, { orgId, subnetId }))[0];

/**
 * The same, with its space locked shared until the transaction ends (as `lockSpaces(…, 'shared')`), as a step
 * of the pipeline writing one address: no row when the organisation has no such subnet. (The row is as it was
 * before the lock was waited for: the statements after it see what a subnet write holding the space did.)
 */
export const lockAddressHomeStep = (orgId: string, subnetId: string) => addressHomeLocked.step({ orgId, subnetId });

/** The same, run alone: the home as it was before the lock was waited for; undefined when there is none. */
export const addressHomeLockedOf = async (db: Db, orgId: string, subnetId: string): Promise<AddressHome | undefined> =>
  (await addressHomeLocked(db, { orgId, subnetId }))[0];

const addressHomes = prepared<AddressHome & { id: string }, { orgId: string; ids: string[] }>(
  'spaces_address_homes',
  `SELECT id, ${HOME_COLUMNS} FROM subnets WHERE org_id = :orgId AND id = ANY(:ids::uuid[])`,
);

/** The organisation's subnets among `ids` as addresses' homes, by id (those it has). */
export async function addressHomesOf(db: Db, orgId: string, ids: string[]): Promise<Map<string, AddressHome>> {
  if (ids.length === 0) return new Map();
  return new Map((await addressHomes(db, { orgId, ids })).map((row) => [row.id, row]));
}

/** What allocating addresses in a subnet reads of it: its home, gateway and direct children. */
export interface AllocationHome extends AddressHome {
  id: string;
  gateway: string | null;
  children: string[];
}

const allocationHome = prepared<AllocationHome & { head: string[] }, SubnetOf & { records: number }>(
  'allocation_home',
  `SELECT id, ${HOME_COLUMNS}, host(gateway) AS gateway,
     ARRAY(SELECT c.network::text FROM subnets c WHERE c.org_id = s.org_id AND c.parent_id = s.id) AS children,
     ARRAY(SELECT host(a.ip) FROM addresses a WHERE a.subnet_id = s.id ORDER BY a.ip LIMIT :records) AS head
   FROM subnets s WHERE org_id = :orgId AND id = :subnetId`,
);

/**
 * A subnet as address allocation reads it before it writes (no lock: the write checks that what it relied
 * on still holds), with its first `records` address records in ip order; undefined when the organisation
 * has no such subnet.
 */
export async function allocationHomeOf(db: Db, orgId: string, subnetId: string, records: number) {
  const [home] = await allocationHome(db, { orgId, subnetId, records });
  return home;
}

const firstFreeHome = prepared<AllocationHome & { searchedFrom: string; unused: string | null }, SubnetOf>(
  'first_free_home',
  `SELECT id, ${HOME_COLUMNS}, host(gateway) AS gateway,
     ARRAY(SELECT c.network::text FROM subnets c WHERE c.org_id = s.org_id AND c.parent_id = s.id) AS children,
     host(h.start) AS "searchedFrom", host(ipam_next_unused(s.id, h.start, h.last)) AS unused
   FROM subnets s CROSS JOIN LATERAL (
     SELECT CASE WHEN u.first = s.gateway AND u.first < u.last THEN u.first + 1 ELSE u.first END AS start, u.last FROM (
       SELECT set_masklen(s.network::inet, f.bits) + f.edge AS first, set_masklen(broadcast(s.network), f.bits) AS last
       FROM (SELECT CASE WHEN family(s.network) = 4 THEN 32 ELSE 128 END AS bits,
               CASE WHEN family(s.network) = 4 AND masklen(s.network) <= 30 AND NOT s.is_pool THEN 1 ELSE 0 END AS edge) f
     ) u
   ) h
   WHERE org_id = :orgId AND id = :subnetId`,
);

/**
 * A subnet as first free reads it, with the lowest address holding no record from where its search likely
 * starts (`searchedFrom`: its first usable address, past the gateway there; `unused`: null when every address
 * from there to the end of its network holds a record). Only a hint: every address from `searchedFrom` up to
 * `unused` (excluded) holds a record. Undefined when the organisation has no such subnet.
 */
export async function firstFreeHomeOf(db: Db, orgId: string, subnetId: string) {
  const [home] = await firstFreeHome(db, { orgId, subnetId });
  return home;
}

/** A subnet an import names by its CIDR, with its VRF's name (null in the global space). */
export type NamedHome = AddressHome & { id: string; vrfName: string | null };

const namedHomes = prepared<NamedHome, { orgId: string; networks: string[] }>(
  'spaces_homes_by_network',
  `SELECT s.id, s.network::text AS network, s.is_pool AS "isPool", s.vrf_id AS "vrfId", v.name AS "vrfName"
   FROM subnets s LEFT JOIN vrfs v ON v.org_id = s.org_id AND v.id = s.vrf_id
   WHERE s.org_id = :orgId AND s.network = ANY(:networks::cidr[])`,
);

/** The organisation's subnets with one of these CIDRs, in every space: for an import's address rows. */
export async function homesByNetwork(db: Db, orgId: string, networks: string[]): Promise<NamedHome[]> {
  if (networks.length === 0) return [];
  return namedHomes(db, { orgId, networks });
}
