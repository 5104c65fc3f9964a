import { and, asc, count, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';
import { addresses } from '../../db/schema';
import { first } from '../shared/rows';
import { ADDRESS_COLUMNS, type AddressRow } from './address-shape.repo';

export type AddressInsert = Omit<typeof addresses.$inferInsert, 'id' | 'orgId' | 'spaceId' | 'createdAt' | 'updatedAt'>;
export type AddressChanges = Partial<
  Pick<AddressInsert, 'hostname' | 'macAddress' | 'description' | 'status' | 'owner' | 'customFields' | 'expiresAt'>
>;

const inOrg = (orgId: string, id: string) => and(eq(addresses.orgId, orgId), eq(addresses.id, id));

export const get = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(addresses).where(inOrg(orgId, id)))[0];

/** The row locked until the transaction ends, so its old values stay true while it is changed. */
export const getForUpdate = async (db: Db, orgId: string, id: string) =>
  (await db.select().from(addresses).where(inOrg(orgId, id)).for('update'))[0];

/** The organisation's rows among `ids`, locked in id order (two batches never wait on each other in a cycle). */
export const lockMany = (db: Db, orgId: string, ids: string[]) =>
  db
    .select()
    .from(addresses)
    .where(and(eq(addresses.orgId, orgId), inArray(addresses.id, ids)))
    .orderBy(asc(addresses.id))
    .for('update');

export const countInOrg = async (db: Db, orgId: string) =>
  first(await db.select({ n: count() }).from(addresses).where(eq(addresses.orgId, orgId)), 'a count of addresses').n;

const childContaining = prepared<
  { ip: string; id: string; network: string },
  { orgId: string; subnetId: string; ip: string }
>(
  'address_child_containing',
  `SELECT host(:ip::inet) AS ip, id, network::text AS network FROM subnets
   WHERE org_id = :orgId AND parent_id = :subnetId AND network >>= :ip::inet LIMIT 1`,
);

const childrenContainingAll = prepared<
  { ip: string; id: string; network: string },
  { orgId: string; subnetId: string; ips: string[] }
>(
  'address_children_containing',
  `SELECT host(ip.value) AS ip, c.id, c.network::text AS network
   FROM unnest(:ips::inet[]) AS ip(value)
   JOIN subnets c ON c.org_id = :orgId AND c.parent_id = :subnetId AND c.network >>= ip.value
   ORDER BY ip.value`,
);

/** For each of `ips`, the child subnet of `subnetId` containing it (the address belongs there instead). */
export async function childrenContaining(db: Db, orgId: string, subnetId: string, ips: string[]) {
  if (ips.length === 0) return [];
  const [only] = ips;
  if (only !== undefined && ips.length === 1) return childContaining(db, { orgId, subnetId, ip: only });
  return childrenContainingAll(db, { orgId, subnetId, ips });
}

const assignedCounted = prepared<{ n: number }, { orgId: string; spaceId: string; ips: string[] }>(
  'address_count_assigned',
  `SELECT count(*)::int AS n FROM addresses
   WHERE org_id = :orgId AND space_id = :spaceId AND ip = ANY(:ips::inet[])`,
);

/** How many of `ips` already hold a record in the space (a batch skips them). */
export async function countAssigned(db: Db, orgId: string, spaceId: string, ips: string[]) {
  return first(await assignedCounted(db, { orgId, spaceId, ips }), 'a count of assigned addresses').n;
}

const assignedPairs = prepared<{ i: number }, { orgId: string; spaceIds: string[]; ips: string[]; indexes: number[] }>(
  'address_assigned_among',
  `SELECT pair.i FROM unnest(:spaceIds::uuid[], :ips::inet[], :indexes::int[]) AS pair(space_id, ip, i)
   WHERE EXISTS (SELECT 1 FROM addresses a WHERE a.org_id = :orgId AND a.space_id = pair.space_id AND a.ip = pair.ip)`,
);

/** Which of the (space, ip) pairs already hold a record, by their `i`. */
export async function assignedAmong(db: Db, orgId: string, pairs: { spaceId: string; ip: string; i: number }[]) {
  if (pairs.length === 0) return new Set<number>();
  const rows = await assignedPairs(db, {
    orgId,
    spaceIds: pairs.map((p) => p.spaceId),
    ips: pairs.map((p) => p.ip),
    indexes: pairs.map((p) => p.i),
  });
  return new Set(rows.map((r) => Number(r.i)));
}

/** The values of an address a statement writes (as given: the statement puts in the columns' defaults). */
const written = (values: Omit<AddressInsert, 'ip' | 'vrfId'>) => ({
  subnetId: values.subnetId,
  hostname: values.hostname ?? null,
  macAddress: values.macAddress ?? null,
  description: values.description ?? null,
  status: values.status ?? null,
  owner: values.owner ?? null,
  customFields: values.customFields == null ? null : JSON.stringify(values.customFields),
  tags: values.tags ?? [],
  expiresAt: values.expiresAt?.toISOString() ?? null,
});

type Written = ReturnType<typeof written>;

/**
 * Inserts an address with the given id into the organisation's subnet, in the subnet's VRF, only where the
 * rules allow it: the ip inside the subnet, not its network or broadcast address (`edgePrefixes`: the prefix
 * lengths of the non-pool subnets that could not assign it), and in no child subnet (it belongs there); with
 * a limit, the organisation under it (counted after the organisation's row was locked by an earlier step).
 * No row when any fails. The subnet is found by its id alone (OFFSET 0 keeps the planner from scanning
 * subnets by their range for the containment test). The statement without a limit has no
 * count in its plan: a plan that might count would be planned anew on every execution.
 */
const insertIfAllowed = (limited: boolean) =>
  prepared<
    AddressRow,
    Written & { orgId: string; id: string; ip: string; edgePrefixes: number[]; limit: number | null }
  >(
    limited ? 'address_insert_limited' : 'address_insert',
    `INSERT INTO addresses (id, org_id, subnet_id, vrf_id, ip, hostname, mac_address, description, status, owner, custom_fields,
       expires_at, tags)
     SELECT :id, s.org_id, s.id, s.vrf_id, :ip, coalesce(:hostname, ''), coalesce(:macAddress, ''),
       coalesce(:description, ''), coalesce(:status, 'assigned'), coalesce(:owner, ''), :customFields,
       :expiresAt::timestamptz, :tags::text[]
     FROM (SELECT * FROM subnets WHERE org_id = :orgId AND id = :subnetId OFFSET 0) s
     WHERE :ip::inet <<= s.network
       AND (s.is_pool OR masklen(s.network) <> ALL(:edgePrefixes::int[]))
       AND NOT EXISTS (SELECT 1 FROM subnets c
         WHERE c.org_id = :orgId AND c.parent_id = :subnetId AND c.network >>= :ip::inet)
       ${limited ? 'AND (SELECT count(*) FROM addresses WHERE org_id = :orgId) < :limit' : ''}
     RETURNING ${ADDRESS_COLUMNS}`,
  );
const insertOne = insertIfAllowed(false);
const insertOneLimited = insertIfAllowed(true);

/** The guarded insert of one address as a step of a pipeline (see insertIfAllowed). */
export const insertIfAllowedStep = (
  orgId: string,
  id: string,
  values: Omit<AddressInsert, 'vrfId'>,
  rules: { edgePrefixes: number[]; limit: number | null },
) => {
  const params = { ...written(values), orgId, id, ip: values.ip, ...rules };
  return rules.limit === null ? insertOne.step(params) : insertOneLimited.step(params);
};

/** Why the guarded insert wrote nothing: the first of its rules, in the order the API checks them, that failed. */
export type Refusal =
  | { rule: 'no_subnet' }
  | { rule: 'limit'; count: number }
  | { rule: 'outside' | 'edge'; network: string }
  | { rule: 'child'; network: string; id: string };

/**
 * Fails (SQLSTATE P0001) unless the address with this id exists, so the steps after a guarded insert do not
 * run, and the batch rolls back, when the insert wrote nothing; its message is then the Refusal, as JSON,
 * worked out by the insert's own rules (ipam_address_refusal, migration 0016; run only on a refusal). It also
 * fails (`custom_fields_changed`) unless the organisation's custom field definitions are still at the version the
 * create checked its values against (migration 0024; the custom fields module's guard, here so that a create
 * runs no statement more for it).
 */
const inserted = prepared<
  unknown,
  {
    orgId: string;
    subnetId: string;
    id: string;
    ip: string;
    edgePrefixes: number[];
    limit: number | null;
    customFieldsVersion: number;
  }
>(
  'address_inserted',
  `SELECT ipam_require(false, ipam_address_refusal(:orgId, :subnetId, :ip, :edgePrefixes, :limit))
   WHERE NOT EXISTS (SELECT 1 FROM addresses WHERE id = :id)
   UNION ALL
   SELECT ipam_require(false, '{"rule":"custom_fields_changed"}')
   WHERE coalesce((SELECT version FROM custom_field_versions WHERE org_id = :orgId), 0) <> :customFieldsVersion::bigint`,
);

/** The check after the guarded insert (see inserted), with the same values. */
export const requireInsertedStep = (
  orgId: string,
  id: string,
  values: { subnetId: string; ip: string },
  rules: { edgePrefixes: number[]; limit: number | null },
  customFieldsVersion: number,
) => inserted.step({ orgId, id, subnetId: values.subnetId, ip: values.ip, ...rules, customFieldsVersion });

/**
 * Inserts addresses of one subnet, with the ids given, at the first `count` of `ips` (in order) that are in
 * no child subnet, hold no record and that this transaction can lock, provided the subnet is still as the
 * candidates were chosen from (pool flag, gateway, VRF). The record check comes first and sees what
 * committed before this statement (an ip another allocation took since the candidates were listed is passed
 * over, not locked and then refused); the lock is a transaction-level advisory lock per ip, tried, not
 * waited for, so an ip another allocation holds is passed over too. No ORDER BY: the function scan yields
 * the candidates in order and LIMIT stops it, so no lock is taken past the last candidate kept. With a limit,
 * nothing unless the organisation's addresses and these stay within it. Guarded by `below` (an allocation that
 * chose its candidates without reading the subnet, see allocation.service.ts), nothing unless the subnet
 * holds `below.count` records from `below.from` up to `below.next` (excluded) and the child subnets
 * `below.children` (sorted), so that no address below the candidates can have become free.
 */
const insertAllocated = (limited: boolean, guarded: boolean) =>
  prepared<
    AddressRow,
    Written &
      AllocationBasis & {
        orgId: string;
        ips: string[];
        ids: string[];
        count: number;
        limit: number | null;
        from?: string;
        next?: string;
        below?: number;
        children?: string[];
      }
  >(
    `address_insert_allocated${limited ? '_limited' : ''}${guarded ? '_guarded' : ''}`,
    `INSERT INTO addresses (id, org_id, subnet_id, vrf_id, ip, hostname, mac_address, description, status, owner,
       custom_fields, expires_at, tags)
     SELECT candidate.id, s.org_id, s.id, s.vrf_id, candidate.ip, coalesce(:hostname, ''), coalesce(:macAddress, ''),
       coalesce(:description, ''), coalesce(:status, 'assigned'), coalesce(:owner, ''), :customFields::jsonb,
       :expiresAt::timestamptz, :tags::text[]
     FROM (SELECT * FROM subnets WHERE org_id = :orgId AND id = :subnetId AND vrf_id IS NOT DISTINCT FROM :vrfId::uuid
             AND is_pool = :isPool AND gateway IS NOT DISTINCT FROM :gateway::inet
             ${
               guarded
                 ? `AND ipam_count_records(:subnetId, :from::inet, :next::inet - 1) = :below
                    AND ARRAY(SELECT c.network FROM subnets c WHERE c.org_id = :orgId AND c.parent_id = :subnetId
                      ORDER BY c.network) = :children::cidr[]`
                 : ''
             }
             OFFSET 0) s,
       LATERAL (SELECT c.ip, c.id FROM ROWS FROM (unnest(:ips::inet[]), unnest(:ids::uuid[])) AS c(ip, id)
         WHERE NOT EXISTS (SELECT 1 FROM subnets ch
           WHERE ch.org_id = :orgId AND ch.parent_id = :subnetId AND ch.network >>= c.ip)
           AND CASE WHEN EXISTS (SELECT 1 FROM addresses a
               WHERE a.org_id = :orgId AND a.space_id = s.space_id AND a.ip = c.ip)
             THEN false
             ELSE pg_try_advisory_xact_lock(
               hashtextextended('address:' || :orgId::uuid || ':' || s.space_id || ':' || host(c.ip), 0))
           END
         LIMIT :count) candidate
     ${limited ? 'WHERE (SELECT count(*) FROM addresses WHERE org_id = :orgId) + :count <= :limit' : ''}
     ON CONFLICT DO NOTHING
     RETURNING ${ADDRESS_COLUMNS}`,
  );
const insertAllocatedStatements = [
  [insertAllocated(false, false), insertAllocated(false, true)],
  [insertAllocated(true, false), insertAllocated(true, true)],
] as const;

/** What an allocation relied on when it chose its candidates: the insert writes nothing if it changed. */
export interface AllocationBasis {
  vrfId: string | null;
  isPool: boolean;
  gateway: string | null;
}

/** What a guarded allocation relied on below its candidates (see insertAllocated). */
export interface RecordsBelow {
  from: string;
  next: string;
  count: number;
  children: string[];
}

/** The insert of allocated addresses as a step of a pipeline (see insertAllocated). */
export const insertAllocatedStep = (
  orgId: string,
  basis: AllocationBasis,
  candidates: { ip: string; id: string }[],
  count: number,
  values: Omit<AddressInsert, 'ip' | 'vrfId'>,
  limit: number | null,
  below?: RecordsBelow,
) => {
  const params = {
    ...written(values),
    vrfId: basis.vrfId,
    isPool: basis.isPool,
    gateway: basis.gateway,
    orgId,
    ips: candidates.map((c) => c.ip),
    ids: candidates.map((c) => c.id),
    count,
    limit,
    ...(below && { from: below.from, next: below.next, below: below.count, children: below.children }),
  };
  return insertAllocatedStatements[limit === null ? 0 : 1][below ? 1 : 0].step(params);
};

const allocated = prepared<unknown, { ids: string[]; count: number }>(
  'addresses_allocated',
  `SELECT ipam_require((SELECT count(*) FROM addresses WHERE id = ANY(:ids::uuid[])) = :count,
     'fewer addresses allocated')`,
);

/** A step that fails (SQLSTATE P0001) unless `count` of these ids are addresses: the allocation got them all. */
export const requireAllocatedStep = (ids: string[], count: number) => allocated.step({ ids, count });

/** Inserts the rows whose ip is free in the space; answers the rows created. */
export const insertSkippingAssigned = (db: Db, orgId: string, rows: AddressInsert[]) =>
  db
    .insert(addresses)
    .values(rows.map((r) => ({ orgId, ...r })))
    .onConflictDoNothing()
    .returning();

/** Sets the given columns of the address; answers its row as changed (no row when there is no such address). */
export const update = async (db: Db, orgId: string, id: string, values: AddressChanges) =>
  db
    .update(addresses)
    .set({ ...values, updatedAt: new Date() })
    .where(inOrg(orgId, id))
    .returning();

export const remove = async (db: Db, orgId: string, id: string) =>
  (await db.delete(addresses).where(inOrg(orgId, id)).returning())[0];

/** Updates the organisation's rows among `ids`; answers the rows as updated. */
export const updateMany = (db: Db, orgId: string, ids: string[], values: AddressChanges) =>
  db
    .update(addresses)
    .set({ ...values, updatedAt: new Date() })
    .where(and(eq(addresses.orgId, orgId), inArray(addresses.id, ids)))
    .returning();

/** Deletes the organisation's rows among `ids`; answers the rows deleted. */
export const removeMany = (db: Db, orgId: string, ids: string[]) =>
  db
    .delete(addresses)
    .where(and(eq(addresses.orgId, orgId), inArray(addresses.id, ids)))
    .returning();

const releasedExpired = prepared<AddressRow, { now: string; limit: number }>(
  'addresses_release_expired',
  `DELETE FROM addresses WHERE id IN (
     SELECT id FROM addresses WHERE expires_at <= :now::timestamptz
     ORDER BY expires_at LIMIT :limit FOR UPDATE SKIP LOCKED)
   RETURNING ${ADDRESS_COLUMNS}`,
);

/**
 * Deletes at most `limit` held addresses whose hold ended at `now`, oldest first, passing over those another
 * transaction holds (a release in another process, or a PATCH confirming the address: it re-reads `expires_at`
 * once that commits); answers the rows deleted.
 */
export const releaseExpired = (db: Db, now: Date, limit: number) =>
  releasedExpired(db, { now: now.toISOString(), limit });
