import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  type AddressStatus,
  addressStatuses,
  type BatchCreateAddressesBody,
  type BatchUpdateAddressesBody,
  type CreateAddressBody,
  type ListAddressesQuery,
  type UpdateAddressBody,
} from '../../../contract/addresses.contract';
import type { ImportAddressRow } from '../../../contract/import-export.contract';
import { assertOneWay, decodeCursor, encodeCursor } from '../../cursors';
import type { Db } from '../../db/connection';
import { badRequest, duplicate, isRequirementFailed, isUniqueViolation, notFound, refusalOf } from '../../errors';
import { type Cidr, containsIp, edgePrefixes, formatIp, isAssignable, parseCidr, parseIp } from '../../ipam';
import type { Principal } from '../../principal';
import { addressFields, created, deleted, updated } from '../activity/activity.changes';
import { recordActivities, recordCreatedMany, recordDelete, recordUpdate } from '../activity/activity.service';
import { assertUpdateFields, listFilter, withCreateFields } from '../custom-fields/custom-fields.service';
import { assertCallerWithinLimit, limitLockSteps, limitOf, limitRoomLocked } from '../identity/limit-check';
import { runPeriodically } from '../shared/periodic';
import { atVersion, given, orNotFound, orRowError, type RowOutcome } from '../shared/results';
import { first } from '../shared/rows';
import { tagFilterOf } from '../shared/tags';
import { postgresTime } from '../shared/times';
import {
  type AddressHome,
  addressHomesOf,
  lockAddressHome,
  lockAddressHomeStep,
  lockSpaces,
  spaceOf,
} from '../subnets/spaces';
import { assertTags, tagsLockSteps, unknownTagError } from '../tags/tags.service';
import { commitChange, commitTransaction } from '../writes/writes';
import { type AddressFilter, filteredPageInSubnet, type PageStart, pageInSubnet } from './address-page.repo';
import { toDto } from './address-shape.repo';
import * as repo from './addresses.repo';

/** Any accepted MAC form, stored lower-case and colon-separated; '' clears. */
const normalizeMac = (mac: string) =>
  mac === '' ? '' : (mac.replace(/[:-]/g, '').toLowerCase().match(/../g) ?? []).join(':');

/** The fields of an address a body may give, in the repository's names; only those given (MAC normalised). */
export const givenFields = (input: {
  hostname?: string;
  mac_address?: string;
  description?: string;
  owner?: string;
  ptr_record?: string;
  tags?: string[];
  custom_fields?: Record<string, unknown>;
}) =>
  given({
    hostname: input.hostname,
    macAddress: input.mac_address === undefined ? undefined : normalizeMac(input.mac_address),
    description: input.description,
    owner: input.owner,
    ptrRecord: input.ptr_record,
    tags: input.tags,
    customFields: input.custom_fields,
  });

/** The values a new address row holds, the columns' defaults where none is given. */
/** A new address's status and hold: a held one (`hold_seconds`) is reserved until `now` plus the hold. */
export const statusAndHold = (input: { status?: z.infer<typeof AddressStatus>; hold_seconds?: number }, now: Date) => ({
  status: input.status ?? (input.hold_seconds === undefined ? 'assigned' : 'reserved'),
  expiresAt: input.hold_seconds === undefined ? null : new Date(now.getTime() + input.hold_seconds * 1000),
});

export const newRow = (values: Omit<repo.AddressInsert, 'vrfId'>) => ({
  hostname: '',
  macAddress: '',
  description: '',
  status: 'assigned',
  owner: '',
  ptrRecord: null,
  customFields: null,
  ...values,
});

/** The subnet an address is written into, with its parsed range; 404 when the organisation has none. */
function homeOf(found: AddressHome | undefined) {
  const row = orNotFound(found, 'Subnet');
  return { row, cidr: parseCidr(row.network)!.cidr as Cidr };
}

/** An ip that may be assigned in this subnet: its family, inside it, not its network or broadcast. */
function assignableIp(subnet: { row: { network: string; isPool: boolean }; cidr: Cidr }, text: string): string {
  const ip = parseIp(text);
  if (!ip) throw badRequest(`ip: ${text} is not an IP address`);
  if (!containsIp(subnet.cidr, ip)) throw badRequest(`ip: ${text} is outside ${subnet.row.network}`);
  if (!isAssignable(subnet.cidr, subnet.row.isPool, ip)) {
    throw badRequest(`ip: ${text} is the network or broadcast address of ${subnet.row.network}`);
  }
  return formatIp(ip);
}

/** An address belongs to the smallest subnet containing it: one inside a child must be created there. */
async function assertNotInChild(db: Db, orgId: string, subnetId: string, ips: string[]) {
  const [inChild] = await repo.childrenContaining(db, orgId, subnetId, ips);
  if (inChild) {
    throw badRequest(
      `ip: ${inChild.ip} belongs to the child subnet ${inChild.network} (${inChild.id}); create it there`,
    );
  }
}

/** The filters of a subnet's address list, or null when none is given (the packed page answers then). */
function addressFilterOf(query: z.infer<typeof ListAddressesQuery>): AddressFilter | null {
  let statuses: string[] | undefined;
  if (query.status !== undefined) {
    statuses = query.status.split(',').map((status) => status.trim());
    const unknown = statuses.find((status) => !(addressStatuses as readonly string[]).includes(status));
    if (unknown !== undefined) {
      throw badRequest(`status: ${JSON.stringify(unknown)} is none of ${addressStatuses.join(', ')}`);
    }
  }
  const filter: AddressFilter = {
    statuses,
    hostnamePrefix: query.hostname_prefix,
    hostnameContains: query.hostname_contains,
    macAddress: query.mac_address === undefined ? undefined : normalizeMac(query.mac_address),
    createdAfter: postgresTime('created_after', query.created_after),
    updatedAfter: postgresTime('updated_after', query.updated_after),
    tags: tagFilterOf(query),
  };
  return Object.values(filter).some((value) => value !== undefined) ? filter : null;
}

/** A page of a subnet's addresses, by offset or after a cursor, with the cursor of the next page (null on the last). */
export async function listAddresses(
  db: Db,
  caller: Principal,
  subnetId: string,
  query: z.infer<typeof ListAddressesQuery>,
) {
  const { limit, offset, cursor } = query;
  assertOneWay(cursor, offset);
  const list = `the addresses of subnet ${subnetId.toLowerCase()}`;
  let start: PageStart;
  if (cursor === undefined) {
    // Past 2^63 PostgreSQL would refuse the offset (a 500); any offset past 2^53 is past the end anyway.
    start = { offset: Math.min(offset, Number.MAX_SAFE_INTEGER) };
  } else {
    const [after] = decodeCursor(list, cursor, 1);
    if (typeof after !== 'string' || !parseIp(after)) throw badRequest(`cursor: not a cursor of ${list}`);
    start = { after };
  }
  const customFields = await listFilter(db, caller.orgId, 'address', query);
  const filter = customFields ? { ...addressFilterOf(query), customFields } : addressFilterOf(query);
  const page = orNotFound(
    filter
      ? await filteredPageInSubnet(db, caller.orgId, subnetId.toLowerCase(), filter, limit, start)
      : await pageInSubnet(db, caller.orgId, subnetId, limit, start),
    'Subnet',
  );
  const last = page.page.at(-1);
  return {
    addresses: page.page,
    total: page.total,
    next: page.more && last ? encodeCursor(list, [last.ip]) : null,
  };
}

export async function getAddress(db: Db, caller: Principal, id: string) {
  return toDto(orNotFound(await repo.get(db, caller.orgId, id), 'Address'));
}

/**
 * One pipeline, one round trip, one transaction: the organisation's row locked on limited plans, the subnet
 * read with its shared space lock, the insert guarded by the rules (inside the subnet, assignable, in no
 * child, under the limit), a check that it wrote (which, when it did not, names the rule that refused it),
 * and the activity entry and events. A refusal rolls the batch back and is answered as its rule says.
 */
export const createAddress = (
  db: Db,
  caller: Principal,
  subnetId: string,
  input: z.infer<typeof CreateAddressBody>,
  now: Date,
) =>
  withCreateFields(db, caller.orgId, 'address', input.custom_fields, (custom_fields, _guard, version) =>
    createChecked(db, caller, subnetId, { ...input, custom_fields }, now, version),
  );

/**
 * createAddress with its custom fields checked against the definitions at `customFieldsVersion`: the check after
 * the insert fails the write when they changed since (the guard of withCreateFields, in a statement the create
 * runs anyway: a hot path pays no statement for it).
 */
async function createChecked(
  db: Db,
  caller: Principal,
  subnetId: string,
  input: z.infer<typeof CreateAddressBody>,
  now: Date,
  customFieldsVersion: number,
) {
  const orgId = caller.orgId;
  const parsed = parseIp(input.ip);
  if (!parsed) throw badRequest(`ip: ${input.ip} is not an IP address`);
  const id = randomUUID();
  const values = {
    subnetId: subnetId.toLowerCase(),
    ip: formatIp(parsed),
    ...statusAndHold(input, now),
    ...givenFields(input),
  };
  const rules = { edgePrefixes: edgePrefixes(parsed), limit: limitOf(caller, 'addresses') };
  try {
    return await commitChange(db, caller, {
      // The organisation's row first (limited plans), then the space: the order subnet writes take them in.
      locks: [
        ...tagsLockSteps(orgId, values.tags),
        ...limitLockSteps(caller, 'addresses'),
        lockAddressHomeStep(orgId, subnetId),
      ],
      steps: {
        inserted: repo.insertIfAllowedStep(orgId, id, values, rules),
        check: repo.requireInsertedStep(orgId, id, values, rules, customFieldsVersion),
      },
      activity: [
        { action: 'create', resourceType: 'address', resourceId: id, changes: created(addressFields(newRow(values))) },
      ],
      answer: ({ inserted }) => toDto(first(inserted, 'the inserted address')),
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicate(`ip: ${values.ip} is already assigned`);
    if (!isRequirementFailed(error)) throw error;
    const unknownTag = unknownTagError(error);
    if (unknownTag) throw unknownTag;
    refuse(caller, input.ip, refusalOf<repo.Refusal>(error), error);
  }
}

/** Throws the answer to an address the guarded insert refused, by the rule that refused it. */
function refuse(caller: Principal, ip: string, refusal: repo.Refusal | { rule: 'unknown' }, error: unknown): never {
  switch (refusal.rule) {
    case 'no_subnet':
      throw notFound('Subnet');
    case 'limit':
      assertCallerWithinLimit(caller, 'addresses', refusal.count);
      break;
    case 'outside':
      throw badRequest(`ip: ${ip} is outside ${refusal.network}`);
    case 'edge':
      throw badRequest(`ip: ${ip} is the network or broadcast address of ${refusal.network}`);
    case 'child':
      throw badRequest(`ip: ${ip} belongs to the child subnet ${refusal.network} (${refusal.id}); create it there`);
  }
  throw error;
}

/**
 * Validates every ip first (nothing is created when one is bad), then creates those not yet assigned. The
 * subnet is read under its space's shared lock, in the transaction: a delete or split of it that came first
 * is a 404, and none can come before the addresses are written.
 */
export async function batchCreateAddresses(
  db: Db,
  caller: Principal,
  subnetId: string,
  input: z.infer<typeof BatchCreateAddressesBody>,
) {
  const orgId = caller.orgId;
  return commitTransaction(db, async (tx) => {
    // The organisation's row first (limited plans), then the space: the order subnet writes take them in.
    const take = await limitRoomLocked(tx, caller, 'addresses', () => repo.countInOrg(tx, orgId));
    const subnet = homeOf(await lockAddressHome(tx, orgId, subnetId));
    const ips = [...new Set(input.ips.map((text) => assignableIp(subnet, text)))];
    const spaceId = spaceOf(subnet.row.vrfId);
    take(ips.length - (await repo.countAssigned(tx, orgId, spaceId, ips)));
    await assertNotInChild(tx, orgId, subnetId, ips);
    const rows = ips.map((ip) => ({ subnetId, vrfId: subnet.row.vrfId, ip, status: input.status }));
    const inserted = await repo.insertSkippingAssigned(tx, orgId, rows);
    await recordCreatedMany(tx, caller, 'batch_create', 'address', inserted, addressFields);
    return { created: inserted.length };
  });
}

/** The address locked, then its `If-Match` checked against its representation (412 when it moved on). */
const lockedAt = async (tx: Db, orgId: string, id: string, ifMatch: string | undefined) =>
  atVersion(await repo.getForUpdate(tx, orgId, id), 'Address', ifMatch, toDto);

/** A status given (whatever it is) confirms a hold: the address is kept past its `expires_at`, which is cleared. */
const confirming = (status: z.infer<typeof AddressStatus> | undefined) =>
  status === undefined ? {} : { status, expiresAt: null };

export async function updateAddress(
  db: Db,
  caller: Principal,
  id: string,
  input: z.infer<typeof UpdateAddressBody>,
  ifMatch?: string,
) {
  const values = { ...givenFields(input), ...confirming(input.status) };
  return commitTransaction(db, async (tx) => {
    await assertTags(tx, caller.orgId, input.tags);
    await assertUpdateFields(tx, caller.orgId, 'address', input.custom_fields);
    const before = await lockedAt(tx, caller.orgId, id, ifMatch);
    const row = first(await repo.update(tx, caller.orgId, id, values), 'the locked address, updated');
    await recordUpdate(tx, caller, 'address', id, addressFields(before), addressFields(row));
    return toDto(row);
  });
}

export async function deleteAddress(db: Db, caller: Principal, id: string, ifMatch?: string) {
  await commitTransaction(db, async (tx) => {
    if (ifMatch !== undefined) await lockedAt(tx, caller.orgId, id, ifMatch);
    const row = orNotFound(await repo.remove(tx, caller.orgId, id), 'Address');
    await recordDelete(tx, caller, 'address', id, addressFields(row));
  });
}

/** Rows in the order of the request's ids: `RETURNING` has no order, and the entries and events follow it. */
const inOrderOf = <Row extends { id: string }>(ids: string[], rows: Row[]) => {
  const position = new Map(ids.map((id, i) => [id, i]));
  return rows.sort((a, b) => (position.get(a.id) ?? 0) - (position.get(b.id) ?? 0));
};

/**
 * Only the caller's organisation's ids count; others are not found and not counted. Each address whose
 * values changed gets its own `batch_update` entry, in the order of the ids.
 */
export async function batchUpdateAddresses(db: Db, caller: Principal, input: z.infer<typeof BatchUpdateAddressesBody>) {
  const values = { ...given({ owner: input.owner }), ...confirming(input.status) };
  return commitTransaction(db, async (tx) => {
    const ids = [...new Set(input.ids)];
    const before = new Map((await repo.lockMany(tx, caller.orgId, ids)).map((row) => [row.id, row]));
    const rows = inOrderOf(ids, await repo.updateMany(tx, caller.orgId, ids, values));
    const entries = rows.flatMap((row) => {
      const old = before.get(row.id);
      const changes = old ? updated(addressFields(old), addressFields(row)) : {};
      return Object.keys(changes).length === 0
        ? []
        : [{ action: 'batch_update' as const, resourceType: 'address' as const, resourceId: row.id, changes }];
    });
    await recordActivities(tx, caller, entries);
    return { updated: rows.length };
  });
}

/** One `batch_delete` entry per address deleted, in the order of the ids. */
export async function batchDeleteAddresses(db: Db, caller: Principal, ids: string[]) {
  return commitTransaction(db, async (tx) => {
    const unique = [...new Set(ids)];
    const rows = inOrderOf(unique, await repo.removeMany(tx, caller.orgId, unique));
    await recordActivities(
      tx,
      caller,
      rows.map((row) => ({
        action: 'batch_delete',
        resourceType: 'address',
        resourceId: row.id,
        changes: deleted(addressFields(row)),
      })),
    );
    return { deleted: rows.length };
  });
}

/** An address row of an import: the subnet it goes into and its fields. */
export interface ImportedAddress {
  home: AddressHome & { id: string };
  input: Omit<z.infer<typeof ImportAddressRow>, 'subnet' | 'vrf'>;
}

/**
 * Creates an import's addresses in the caller's transaction, in order, by the rules of POST
 * /subnets/{id}/addresses: an ip outside its subnet, its network or broadcast address, or inside a child
 * subnet is an error; one already assigned in the space (or earlier in the import) is skipped; one past
 * the plan's limit is an error. The others are inserted together, each logged as `import`.
 */
export async function importAddresses(tx: Db, caller: Principal, items: ImportedAddress[]): Promise<RowOutcome[]> {
  const orgId = caller.orgId;
  const take = await limitRoomLocked(tx, caller, 'addresses', () => repo.countInOrg(tx, orgId));
  await lockSpaces(
    tx,
    orgId,
    items.map((item) => spaceOf(item.home.vrfId)),
    'shared',
  );
  // Read again under the locks: a subnet deleted, split or moved since the rows named it is their error.
  const current = await addressHomesOf(tx, orgId, [...new Set(items.map((item) => item.home.id))]);
  const checked = items.map((item): CheckedAddress => {
    const home = current.get(item.home.id);
    const network = item.home.network;
    if (!home)
      return { item, ip: { status: 'error', error: `subnet: ${network} was deleted or split while the import ran` } };
    if (spaceOf(home.vrfId) !== spaceOf(item.home.vrfId)) {
      return { item, ip: { status: 'error', error: `subnet: ${network} moved to another VRF while the import ran` } };
    }
    return { item, ip: orRowError(() => assignableIp(homeOf(home), item.input.ip)) };
  });
  const inChild = await childrenHolding(tx, orgId, checked);
  const assigned = await repo.assignedAmong(
    tx,
    orgId,
    checked.flatMap(({ item, ip }, i) =>
      typeof ip === 'string' ? [{ spaceId: spaceOf(item.home.vrfId), ip, i }] : [],
    ),
  );
  const taken = new Set<string>();
  const accepted: repo.AddressInsert[] = [];
  const outcomes = checked.map(({ item, ip }, i): RowOutcome | { accepted: repo.AddressInsert } => {
    if (typeof ip !== 'string') return ip;
    const child = inChild.get(i);
    if (child) return { status: 'error', error: `ip: ${ip} belongs to the child subnet ${child}; import it there` };
    const key = `${spaceOf(item.home.vrfId)}/${ip}`;
    if (assigned.has(i) || taken.has(key)) return { status: 'skipped', error: `ip: ${ip} is already assigned` };
    const refused = orRowError(take);
    if (refused) return refused;
    taken.add(key);
    const { input } = item;
    const row: repo.AddressInsert = {
      subnetId: item.home.id,
      vrfId: item.home.vrfId,
      ip,
      status: input.status ?? 'assigned',
      ...givenFields(input),
    };
    accepted.push(row);
    return { accepted: row };
  });
  // Under the shared space lock an ip can still be taken by a concurrent single create: that row is skipped.
  const inserted = accepted.length > 0 ? await repo.insertSkippingAssigned(tx, orgId, accepted) : [];
  const idOf = new Map(inserted.map((row) => [`${row.spaceId}/${formatIp(parseIp(row.ip)!)}`, row.id]));
  await recordCreatedMany(tx, caller, 'import', 'address', inserted, addressFields);
  return outcomes.map((o) => {
    if (!('accepted' in o)) return o;
    const row = o.accepted;
    const id = idOf.get(`${spaceOf(row.vrfId)}/${row.ip}`);
    return id ? { status: 'created', id } : { status: 'skipped', error: `ip: ${row.ip} is already assigned` };
  });
}

/** An import row with its ip as checked against its subnet, or the outcome that refused it. */
interface CheckedAddress {
  item: ImportedAddress;
  ip: string | RowOutcome;
}

/** For each import row whose ip lies in a child subnet of its subnet, that child's network, by row position. */
async function childrenHolding(tx: Db, orgId: string, checked: CheckedAddress[]) {
  const bySubnet = new Map<string, string[]>();
  for (const { item, ip } of checked) {
    if (typeof ip === 'string') bySubnet.set(item.home.id, [...(bySubnet.get(item.home.id) ?? []), ip]);
  }
  const found = new Map<string, string>();
  for (const [subnetId, subnetIps] of bySubnet) {
    for (const child of await repo.childrenContaining(tx, orgId, subnetId, subnetIps)) {
      found.set(`${subnetId}/${formatIp(parseIp(child.ip)!)}`, child.network);
    }
  }
  const holding = new Map<number, string>();
  checked.forEach(({ item, ip }, i) => {
    const network = found.get(`${item.home.id}/${ip}`);
    if (network) holding.set(i, network);
  });
  return holding;
}

/** Held addresses released per transaction. */
const RELEASE_BATCH = 500;

/**
 * Releases every held address whose hold ended at `now`: deleted, with a `release` activity entry by the system
 * and an `address.released` event, in one transaction per batch. Each is released once whatever other
 * processes run this at the same moment (each deletes only the rows it locked); answers how many it released.
 */
export async function releaseExpiredHolds(db: Db, now: Date): Promise<number> {
  let released = 0;
  for (;;) {
    const count = await commitTransaction(db, async (tx) => {
      const rows = await repo.releaseExpired(tx, now, RELEASE_BATCH);
      const byOrg = new Map<string, typeof rows>();
      for (const row of rows) byOrg.set(row.orgId, [...(byOrg.get(row.orgId) ?? []), row]);
      for (const [orgId, held] of byOrg) {
        await recordActivities(
          tx,
          { orgId, userId: null },
          held.map((row) => ({
            action: 'release',
            resourceType: 'address',
            resourceId: row.id,
            changes: deleted(addressFields(row)),
          })),
        );
      }
      return rows.length;
    });
    released += count;
    if (count < RELEASE_BATCH) return released;
  }
}

/** Releases ended holds now and then every `intervalMs`, without keeping the process alive. */
export const startHoldRelease = (
  db: Db,
  intervalMs: number,
  now: () => Date,
  log: (message: string, error: unknown) => void,
) => runPeriodically('hold release', intervalMs, () => releaseExpiredHolds(db, now()), log);
