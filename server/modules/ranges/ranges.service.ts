/**
 * IP ranges inside a subnet (issue 24, part 4): a DHCP pool, a reserved block … Written one subnet at a time (its
 * row locked), so two ranges of a subnet never overlap; each write logs its activity entry (resource `range`).
 */
import type { z } from 'zod';
import {
  type CreateRangeBody,
  type IpRange,
  RANGES_PER_SUBNET_MAX,
  type UpdateRangeBody,
} from '../../../contract/ranges.contract';
import type { Db } from '../../db/connection';
import { badRequest } from '../../errors';
import { containsIp, formatIp, type Ip, parseCidr, parseIp, type Range } from '../../ipam';
import { jsonInteger } from '../../json';
import type { Principal } from '../../principal';
import { created } from '../activity/activity.changes';
import { recordActivities, recordCreate, recordDelete, recordUpdate } from '../activity/activity.service';
import { orNotFound, orRowErrorAsync, type RowOutcome } from '../shared/results';
import { commitTransaction } from '../writes/writes';
import * as repo from './ranges.repo';

type RangeDto = z.infer<typeof IpRange>;

const toDto = (row: repo.RangeRow): RangeDto => ({
  id: row.id,
  subnet_id: row.subnet_id,
  start: row.start,
  end: row.end,
  role: row.role as RangeDto['role'],
  description: row.description,
  size: jsonInteger(parseIp(row.end)!.value - parseIp(row.start)!.value + 1n),
  used: row.used,
  created_at: new Date(row.created_at).toISOString(),
  updated_at: new Date(row.updated_at).toISOString(),
});

/** The fields a range's activity entries record. */
const fieldsOf = (values: repo.RangeValues & { subnetId: string }) => ({
  subnet_id: values.subnetId,
  start: values.start,
  end: values.end,
  role: values.role,
  description: values.description,
});

/** The range's first and last address, inside the subnet and in order, as the API writes them (400 otherwise). */
function normalised(values: repo.RangeValues, network: string): repo.RangeValues {
  const start = addressIn('start', values.start, network);
  const end = addressIn('end', values.end, network);
  if (end.value < start.value) throw badRequest(`end: ${values.end} is before start ${values.start}`);
  return { ...values, start: formatIp(start), end: formatIp(end) };
}

/** An address of the range, of the subnet's family and inside it; a 400 naming `field` otherwise. */
function addressIn(field: 'start' | 'end', text: string, network: string): Ip {
  const ip = parseIp(text);
  if (!ip) throw badRequest(`${field}: ${text} is not an IP address`);
  if (!containsIp(parseCidr(network)!.cidr, ip)) throw badRequest(`${field}: ${text} is outside ${network}`);
  return ip;
}

/** The range's values checked against its subnet and the subnet's other ranges (`except`: the range itself). */
async function checked(
  tx: Db,
  subnet: { id: string; network: string },
  values: repo.RangeValues,
  except: string | null,
) {
  const normal = normalised(values, subnet.network);
  const { count, overlapping } = await repo.neighboursOf(tx, subnet.id, normal.start, normal.end, except);
  if (overlapping !== null) {
    throw badRequest(`start: ${normal.start}–${normal.end} overlaps the range ${overlapping} of ${subnet.network}`);
  }
  if (except === null && count >= RANGES_PER_SUBNET_MAX) {
    throw badRequest(`ranges: ${subnet.network} already holds ${RANGES_PER_SUBNET_MAX} ranges, the most a subnet may`);
  }
  return normal;
}

export async function listRanges(db: Db, caller: Principal, subnetId: string) {
  const rows = await repo.rangesOf(db, caller.orgId, subnetId);
  if (rows.length === 0) orNotFound(await repo.subnetOf(db, caller.orgId, subnetId), 'Subnet');
  return rows.map(toDto);
}

export async function createRange(db: Db, caller: Principal, subnetId: string, input: z.infer<typeof CreateRangeBody>) {
  return commitTransaction(db, async (tx) => {
    const subnet = orNotFound(await repo.lockSubnet(tx, caller.orgId, subnetId), 'Subnet');
    const values = await checked(tx, subnet, { ...input, description: input.description ?? '' }, null);
    const { id } = orNotFound(await repo.insert(tx, caller.orgId, subnet.id, values), 'Subnet');
    await recordCreate(tx, caller, 'range', id, fieldsOf({ ...values, subnetId: subnet.id }));
    return toDto(orNotFound(await repo.get(tx, caller.orgId, id), 'Range'));
  });
}

export async function updateRange(db: Db, caller: Principal, id: string, input: z.infer<typeof UpdateRangeBody>) {
  return commitTransaction(db, async (tx) => {
    // The subnet's row first, then the range's, as a subnet's delete takes them (its cascade): never a cycle.
    const found = orNotFound(await repo.get(tx, caller.orgId, id), 'Range');
    const subnet = orNotFound(await repo.lockSubnet(tx, caller.orgId, found.subnet_id), 'Range');
    orNotFound(await repo.lockRange(tx, caller.orgId, id), 'Range');
    const before = orNotFound(await repo.get(tx, caller.orgId, id), 'Range');
    const merged = {
      start: input.start ?? before.start,
      end: input.end ?? before.end,
      role: input.role ?? before.role,
      description: input.description ?? before.description,
    };
    const values = await checked(tx, subnet, merged, id);
    await repo.update(tx, caller.orgId, id, values);
    await recordUpdate(
      tx,
      caller,
      'range',
      id,
      fieldsOf({ ...before, subnetId: subnet.id }),
      fieldsOf({ ...values, subnetId: subnet.id }),
    );
    return toDto(orNotFound(await repo.get(tx, caller.orgId, id), 'Range'));
  });
}

export async function deleteRange(db: Db, caller: Principal, id: string) {
  await commitTransaction(db, async (tx) => {
    const before = orNotFound(await repo.get(tx, caller.orgId, id), 'Range');
    orNotFound(await repo.remove(tx, caller.orgId, id), 'Range');
    await recordDelete(tx, caller, 'range', id, fieldsOf({ ...before, subnetId: before.subnet_id }));
  });
}

/** A range of an import: its subnet (found by the import) and its fields. */
export interface ImportedRange {
  subnetId: string;
  input: { start: string; end: string; role: string; description?: string };
}

/**
 * Creates an import's ranges in the caller's transaction, in order, by the rules of POST /subnets/{id}/ranges:
 * each subnet's row locked first (in id order, so two imports never wait on each other in a cycle), then each
 * range checked against those before it. A range the subnet already has (the same start and end) is skipped.
 */
export async function importRanges(tx: Db, caller: Principal, items: ImportedRange[]): Promise<RowOutcome[]> {
  const subnets = new Map<string, { id: string; network: string }>();
  for (const id of [...new Set(items.map((item) => item.subnetId))].sort()) {
    const subnet = await repo.lockSubnet(tx, caller.orgId, id);
    if (subnet) subnets.set(id, subnet);
  }
  const outcomes: RowOutcome[] = [];
  for (const { subnetId, input } of items) {
    const subnet = subnets.get(subnetId);
    if (!subnet) {
      outcomes.push({ status: 'error', error: 'subnet: deleted or split while the import ran' });
      continue;
    }
    const given = { ...input, description: input.description ?? '' };
    const outcome = await orRowErrorAsync(async (): Promise<RowOutcome> => {
      const normal = normalised(given, subnet.network);
      const { overlapping } = await repo.neighboursOf(tx, subnet.id, normal.start, normal.end, null);
      if (overlapping === `${normal.start}–${normal.end}`) {
        return { status: 'skipped', error: `start: ${subnet.network} already has the range ${overlapping}` };
      }
      const values = await checked(tx, subnet, normal, null);
      const { id } = orNotFound(await repo.insert(tx, caller.orgId, subnet.id, values), 'Subnet');
      const changes = created(fieldsOf({ ...values, subnetId: subnet.id }));
      await recordActivities(tx, caller, [{ action: 'import', resourceType: 'range', resourceId: id, changes }]);
      return { status: 'created', id };
    });
    outcomes.push(outcome);
  }
  return outcomes;
}

/** The subnet's ranges as address ranges (for the free-address searches), and the one `rangeId` names. */
export async function rangesForSearch(db: Db, orgId: string, subnetId: string) {
  return (await repo.rangesOf(db, orgId, subnetId)).map((row) => ({
    id: row.id,
    range: { first: parseIp(row.start)!.value, last: parseIp(row.end)!.value } satisfies Range,
  }));
}
