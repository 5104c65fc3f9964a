/** The SQL of IP ranges (migration 0022). */
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';

/** A range as read: its fields, and its size and used count as the API shows them. */
export interface RangeRow {
  id: string;
  subnet_id: string;
  start: string;
  end: string;
  role: string;
  description: string;
  used: number;
  created_at: Date;
  updated_at: Date;
}

/** The columns of a range `r` of subnet `s`, with the records of the subnet's space inside it. */
const RANGE_COLUMNS = `r.id, r.subnet_id, host(r.start_ip) AS start, host(r.end_ip) AS "end", r.role, r.description,
  (SELECT count(*) FROM addresses a WHERE a.org_id = s.org_id AND a.space_id = s.space_id
     AND a.ip BETWEEN r.start_ip AND r.end_ip)::int AS used,
  r.created_at, r.updated_at`;

const ofSubnet = prepared<RangeRow, { orgId: string; subnetId: string }>(
  'ranges_of_subnet',
  `SELECT ${RANGE_COLUMNS} FROM ip_ranges r JOIN subnets s ON s.id = r.subnet_id
   WHERE r.org_id = :orgId AND r.subnet_id = :subnetId ORDER BY r.start_ip`,
);

/** The subnet's ranges, by first address. */
export const rangesOf = (db: Db, orgId: string, subnetId: string) => ofSubnet(db, { orgId, subnetId });

const one = prepared<RangeRow, { orgId: string; id: string }>(
  'range_by_id',
  `SELECT ${RANGE_COLUMNS} FROM ip_ranges r JOIN subnets s ON s.id = r.subnet_id
   WHERE r.org_id = :orgId AND r.id = :id`,
);

export const get = async (db: Db, orgId: string, id: string) => (await one(db, { orgId, id }))[0];

/** The range's subnet, locked until the transaction ends: ranges of a subnet are written one transaction at a time. */
const lockedSubnet = prepared<{ id: string; network: string }, { orgId: string; subnetId: string }>(
  'ranges_lock_subnet',
  `SELECT id, network::text AS network FROM subnets WHERE org_id = :orgId AND id = :subnetId FOR UPDATE`,
);

export const lockSubnet = async (db: Db, orgId: string, subnetId: string) =>
  (await lockedSubnet(db, { orgId, subnetId }))[0];

/** The range, locked until the transaction ends (after its subnet's row: see updateRange). */
const lockedRange = prepared<{ subnet_id: string }, { orgId: string; id: string }>(
  'ranges_lock_range',
  `SELECT r.subnet_id FROM ip_ranges r WHERE r.org_id = :orgId AND r.id = :id FOR UPDATE`,
);

export const lockRange = async (db: Db, orgId: string, id: string) => (await lockedRange(db, { orgId, id }))[0];

/** How many ranges the subnet has, and the first other range overlapping [start, end]. */
const neighbours = prepared<
  { count: number; overlapping: string | null },
  { subnetId: string; start: string; end: string; except: string | null }
>(
  'ranges_neighbours',
  `SELECT (SELECT count(*)::int FROM ip_ranges WHERE subnet_id = :subnetId) AS count,
          (SELECT host(start_ip) || '–' || host(end_ip) FROM ip_ranges
           WHERE subnet_id = :subnetId AND id IS DISTINCT FROM :except::uuid
             AND start_ip <= :end::inet AND end_ip >= :start::inet
           ORDER BY start_ip LIMIT 1) AS overlapping`,
);

export const neighboursOf = async (db: Db, subnetId: string, start: string, end: string, except: string | null) =>
  (await neighbours(db, { subnetId, start, end, except }))[0] ?? { count: 0, overlapping: null };

export interface RangeValues {
  start: string;
  end: string;
  role: string;
  description: string;
}

const inserted = prepared<{ id: string }, RangeValues & { orgId: string; subnetId: string }>(
  'ranges_insert',
  `INSERT INTO ip_ranges (org_id, subnet_id, start_ip, end_ip, role, description)
   VALUES (:orgId, :subnetId, :start::inet, :end::inet, :role, :description) RETURNING id`,
);

export const insert = async (db: Db, orgId: string, subnetId: string, values: RangeValues) =>
  (await inserted(db, { orgId, subnetId, ...values }))[0];

const updated = prepared<unknown, RangeValues & { orgId: string; id: string }>(
  'ranges_update',
  `UPDATE ip_ranges SET start_ip = :start::inet, end_ip = :end::inet, role = :role, description = :description,
     updated_at = now()
   WHERE org_id = :orgId AND id = :id`,
);

export const update = (db: Db, orgId: string, id: string, values: RangeValues) => updated(db, { orgId, id, ...values });

const removed = prepared<{ id: string }, { orgId: string; id: string }>(
  'ranges_delete',
  'DELETE FROM ip_ranges WHERE org_id = :orgId AND id = :id RETURNING id',
);

export const remove = async (db: Db, orgId: string, id: string) => (await removed(db, { orgId, id }))[0];

const subnet = prepared<{ id: string }, { orgId: string; subnetId: string }>(
  'ranges_subnet',
  'SELECT id FROM subnets WHERE org_id = :orgId AND id = :subnetId',
);

/** The subnet, when the organisation has it. */
export const subnetOf = async (db: Db, orgId: string, subnetId: string) => (await subnet(db, { orgId, subnetId }))[0];
