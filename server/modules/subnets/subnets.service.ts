import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  type CreateSubnetBody,
  type ListSubnetsQuery,
  SUBNET_PAGE_MAX,
  type UpdateSubnetBody,
} from '../../../contract/subnets.contract';
import { decodeCursor, encodeCursor } from '../../cursors';
import type { Db } from '../../db/connection';
import type { Step } from '../../db/pipeline';
import { badRequest, duplicate, isRequirementFailed, refusalOf } from '../../errors';
import { BITS, type Cidr, containsCidr, containsIp, formatCidr, formatIp, parseCidr, parseIp } from '../../ipam';
import type { Principal } from '../../principal';
import { assertVersion, versionOf } from '../../versions';
import { created, deleted, subnetFields } from '../activity/activity.changes';
import { recordActivities, recordCreatedMany, recordUpdate } from '../activity/activity.service';
import {
  assertUpdateFields,
  listFilter,
  matchesFilter,
  withCreateFields,
} from '../custom-fields/custom-fields.service';
import * as folders from '../folders/folders.service';
import { assertCallerWithinLimit, limitLockSteps, limitOf, limitRoomLocked } from '../identity/limit-check';
import * as locations from '../locations/locations.service';
import { given, orNotFound, orRowError, type RowOutcome, uniqueOr } from '../shared/results';
import { first } from '../shared/rows';
import { passesTags, tagFilterOf } from '../shared/tags';
import { assertTags, tagsLockSteps, unknownTagError } from '../tags/tags.service';
import * as vlans from '../vlans/vlans.service';
import { ensureVlan } from '../vlans/vlans.service';
import * as vrfs from '../vrfs/vrfs.service';
import { ensureVrf } from '../vrfs/vrfs.service';
import { commitChange, commitTransaction } from '../writes/writes';
import { lockSpaceStep, lockSpaces, spaceOf } from './spaces';
import {
  getWithUsage,
  type ListPosition,
  pageOfSubnets,
  type SubnetFilter,
  withUsageOf,
  withUsageStep,
} from './subnet-usage.repo';
import * as writes from './subnet-writes.repo';
import { rollUpUsed, type SubnetDto, toSubnetDto } from './subnets.dto';
import { insertManyNested, lockSubnet, moveToSpace } from './subnets.hierarchy';
import * as repo from './subnets.repo';

/** A network as given: a CIDR without host bits (the error names the field and the normalised form). */
export function parseNetwork(text: string, field = 'network'): Cidr {
  const parsed = parseCidr(text.trim());
  if (!parsed) throw badRequest(`${field}: ${text} is not an IPv4 or IPv6 CIDR block such as 10.0.0.0/24`);
  if (parsed.hostBitsSet) {
    throw badRequest(`${field}: ${text} has host bits set; the network is ${formatCidr(parsed.cidr)}`);
  }
  return parsed.cidr;
}

/**
 * An IP field of a subnet: the subnet's family; the gateway also inside the subnet. Answered in the form the
 * database keeps (a create's activity entry records it before the row exists).
 */
function hostField(field: 'gateway' | 'dns_primary' | 'dns_secondary', text: string, cidr: Cidr): string {
  const ip = parseIp(text);
  if (!ip) throw badRequest(`${field}: ${text} is not an IP address`);
  if (ip.version !== cidr.version) throw badRequest(`${field}: ${text} is not an IPv${cidr.version} address`);
  if (field === 'gateway' && !containsIp(cidr, ip)) {
    throw badRequest(`gateway: ${text} is outside ${formatCidr(cidr)}`);
  }
  return formatIp(ip);
}

function hostFields(input: Partial<Record<'gateway' | 'dns_primary' | 'dns_secondary', string | null>>, cidr: Cidr) {
  const check = (field: 'gateway' | 'dns_primary' | 'dns_secondary') => {
    const value = input[field];
    return value === undefined || value === null ? value : hostField(field, value, cidr);
  };
  return { gateway: check('gateway'), dnsPrimary: check('dns_primary'), dnsSecondary: check('dns_secondary') };
}

type References = {
  folder_id?: string | null;
  vlan_id?: string | null;
  vrf_id?: string | null;
  location_id?: string | null;
};

/**
 * Locks the folder, VLAN, VRF and location these ids name against deletion until the transaction ends, so
 * the subnet written next may refer to them (a delete under way is waited for); answers the fields whose
 * object is gone. Taken before any subnet row is locked: a delete locks its row, then the subnets it clears.
 */
export async function lockReferences(tx: Db, orgId: string, refs: References): Promise<(keyof References)[]> {
  const checks: [keyof References, (tx: Db, org: string, id: string) => Promise<boolean>][] = [
    ['folder_id', folders.lockForReference],
    ['vlan_id', vlans.lockForReference],
    ['vrf_id', vrfs.lockForReference],
    ['location_id', locations.lockForReference],
  ];
  const gone: (keyof References)[] = [];
  for (const [field, lock] of checks) {
    const id = refs[field];
    if (id && !(await lock(tx, orgId, id))) gone.push(field);
  }
  return gone;
}

/**
 * References given by id in a body must be the caller's: a missing one is the request's fault (400), also
 * when it is deleted while the request runs (checked and locked in the transaction that writes them).
 */
export async function assertReferences(tx: Db, orgId: string, refs: References) {
  const [field] = await lockReferences(tx, orgId, refs);
  if (field) throw missingReference(field, refs);
}

/** The 400 of a reference that is not the caller's (or was deleted), naming its field and the id given. */
export const missingReference = (field: keyof References, given: References) =>
  badRequest(`${field}: no such object with id ${given[field]}`);

/** A subnet as the API shows it, with its utilization and its direct children. */
export async function getSubnetWithUsage(db: Db, orgId: string, id: string) {
  const found = orNotFound(await getWithUsage(db, orgId, id), 'Subnet');
  return { ...found, dto: toSubnetDto(found.row, found.used) };
}

const SUBNET_LIST = 'the subnet list';

/** The list position a cursor names; a 400 naming `cursor` for anything else (never a failed cast: a 500). */
function listPositionOf(cursor: string): ListPosition {
  const [global, vrfId, family, network] = decodeCursor(SUBNET_LIST, cursor, 4);
  const cidr = typeof network === 'string' ? parseCidr(network) : null;
  const valid =
    (global === 0 || global === 1) &&
    typeof vrfId === 'string' &&
    UUID.test(vrfId) &&
    (family === 4 || family === 6) &&
    cidr !== null &&
    !cidr.hostBitsSet &&
    (cidr.cidr.version === 4 ? 4 : 6) === family;
  if (!valid) throw badRequest(`cursor: not a cursor of ${SUBNET_LIST}`);
  return { global: global === 1, vrfId, family, network: formatCidr(cidr.cidr) };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A CIDR of a filter as given (an ip alone is its own block); a 400 naming `field` for anything else. */
function filterCidr(field: string, text: string): Cidr {
  const ip = parseIp(text);
  if (ip) return { version: ip.version, network: ip.value, prefix: BITS[ip.version] };
  return parseNetwork(text, field);
}

/** The ids of a filter given as one id or several separated by commas; a 400 naming `field` for anything else. */
function idsOf(field: string, text: string | undefined, also: string[] = []): string[] | undefined {
  if (text === undefined) return undefined;
  const ids = text.split(',').map((id) => id.trim().toLowerCase());
  const bad = ids.find((id) => !UUID.test(id) && !also.includes(id));
  if (bad !== undefined)
    throw badRequest(`${field}: ${JSON.stringify(bad)} is not an id${also.length ? ` or ${also.join(', ')}` : ''}`);
  return ids;
}

/** The VRF filter: its VRFs, and whether the global space (`global`) is among them. */
function vrfsOf(text: string | undefined): Pick<SubnetFilter, 'vrfIds' | 'globalSpace'> {
  const ids = idsOf('vrf_id', text, ['global']);
  if (ids === undefined) return {};
  return { vrfIds: ids.filter((id) => id !== 'global'), globalSpace: ids.includes('global') };
}

/** The filters of the subnet list, read from its query (a malformed CIDR is a 400 naming its parameter). */
function subnetFilterOf(query: z.infer<typeof ListSubnetsQuery>): SubnetFilter {
  return {
    folderId: query.folder_id,
    ...vrfsOf(query.vrf_id),
    vlanIds: idsOf('vlan_id', query.vlan_id),
    locationIds: idsOf('location_id', query.location_id),
    isPool: query.is_pool === undefined ? undefined : query.is_pool === 'true',
    contains: query.contains === undefined ? undefined : filterCidr('contains', query.contains),
    within: query.within === undefined ? undefined : parseNetwork(query.within, 'within'),
    tags: tagFilterOf(query),
  };
}

/** Whether a subnet passes the filters the database does not apply: the utilization thresholds (tracked only). */
function passesUtilization(query: z.infer<typeof ListSubnetsQuery>, dto: SubnetDto) {
  const above = query.utilization_above;
  const below = query.utilization_below;
  if (above === undefined && below === undefined) return true;
  return (
    dto.tracked && (above === undefined || dto.utilization > above) && (below === undefined || dto.utilization < below)
  );
}

/** Whether a subnet of the whole list passes the filters (as the page's SQL applies them). */
function passes(filter: SubnetFilter, s: repo.SubnetRow) {
  const network = parseCidr(s.network)!.cidr;
  return (
    (filter.folderId === undefined || s.folderId === filter.folderId) &&
    (filter.vrfIds === undefined ||
      (s.vrfId === null ? filter.globalSpace === true : filter.vrfIds.includes(s.vrfId))) &&
    (filter.vlanIds === undefined || (s.vlanId !== null && filter.vlanIds.includes(s.vlanId))) &&
    (filter.locationIds === undefined || (s.locationId !== null && filter.locationIds.includes(s.locationId))) &&
    (filter.isPool === undefined || s.isPool === filter.isPool) &&
    (filter.contains === undefined || containsCidr(network, filter.contains)) &&
    (filter.within === undefined || containsCidr(filter.within, network)) &&
    passesTags(filter.tags, s.tags) &&
    (filter.customFields === undefined || matchesFilter(filter.customFields, s.customFields))
  );
}

/**
 * The organisation's subnets that pass the filters: all at once, or, when a `limit` or `cursor` is given, a page in
 * the same order and the cursor of the next one (null on the last). A page is chosen before the utilization
 * thresholds apply (they need each subnet's count), so with them a page may hold fewer than `limit`.
 */
export async function listSubnets(db: Db, caller: Principal, query: z.infer<typeof ListSubnetsQuery>) {
  const customFields = await listFilter(db, caller.orgId, 'subnet', query);
  const filter = { ...subnetFilterOf(query), ...(customFields ? { customFields } : {}) };
  if (query.limit === undefined && query.cursor === undefined) {
    const rows = await repo.listWithNames(db, caller.orgId);
    const used = rollUpUsed(rows.map((r) => ({ ...r.subnet, ownUsed: r.ownUsed })));
    const list = rows
      .filter((r) => passes(filter, r.subnet))
      .map((r) => toSubnetDto(r, r.subnet.tracked ? (used.get(r.subnet.id) ?? 0) : null))
      .filter((dto) => passesUtilization(query, dto));
    return { list, next: null };
  }
  const limit = query.limit ?? SUBNET_PAGE_MAX;
  const after = query.cursor === undefined ? null : listPositionOf(query.cursor);
  const rows = await pageOfSubnets(db, caller.orgId, filter, after, limit + 1);
  const page = rows.slice(0, limit);
  const last = page.at(-1)?.row.subnet;
  const next =
    rows.length > limit && last
      ? encodeCursor(SUBNET_LIST, [
          last.vrfId === null ? 1 : 0,
          spaceOf(last.vrfId),
          last.network.includes(':') ? 6 : 4,
          last.network,
        ])
      : null;
  const list = page
    .map((r) => toSubnetDto(r.row, r.row.subnet.tracked ? r.used : null))
    .filter((dto) => passesUtilization(query, dto));
  return { list, next };
}

export async function getSubnet(db: Db, caller: Principal, id: string) {
  const { dto, children } = await getSubnetWithUsage(db, caller.orgId, id);
  return { ...dto, children };
}

/** `If-Match` against the subnet's representation, its GET's answer, read in the write's transaction. */
const assertSubnetVersion = (tx: Db, caller: Principal, id: string, ifMatch: string | undefined) =>
  assertVersion(ifMatch, () => getSubnet(tx, caller, id), 'Subnet');

/** The fields of a subnet as POST /subnets and the import check them; references are given as ids. */
type SubnetFields = Omit<z.infer<typeof CreateSubnetBody>, 'folder_id' | 'vlan_id' | 'vrf_id' | 'location_id'>;
type SubnetRefs = { folderId: string | null; vlanId: string | null; vrfId: string | null; locationId: string | null };

/** The row a subnet is created with: the network normalised, the host fields checked against it (400 when wrong). */
export function subnetValues(input: SubnetFields, refs: SubnetRefs): repo.SubnetValues {
  const cidr = parseNetwork(input.network);
  const hosts = hostFields(input, cidr);
  return {
    network: formatCidr(cidr),
    ...refs,
    name: input.name ?? '',
    description: input.description ?? '',
    isPool: input.is_pool ?? false,
    tracked: input.tracked ?? true,
    scanEnabled: input.scan_enabled ?? false,
    customFields: input.custom_fields ?? null,
    tags: input.tags ?? [],
    gateway: hosts.gateway ?? null,
    dnsPrimary: hosts.dnsPrimary ?? null,
    dnsSecondary: hosts.dnsSecondary ?? null,
  };
}

/**
 * One pipeline, one round trip, one transaction: the references locked (each must be the caller's), the
 * organisation's row on limited plans, the space locked exclusively, the insert guarded by the rules (a new
 * network in its space, under the limit) and a check that it wrote (naming the rule that refused it), the
 * nesting (its parent; the subnets and addresses it covers), the activity entry and events, and the subnet read
 * back with the overlap warnings. A refusal rolls the batch back and is answered as its rule says.
 */
export const createSubnet = (db: Db, caller: Principal, input: z.infer<typeof CreateSubnetBody>) =>
  withCreateFields(db, caller.orgId, 'subnet', input.custom_fields, (custom_fields, guard) =>
    createChecked(db, caller, { ...input, custom_fields }, guard),
  );

/** createSubnet with its custom fields checked, and the guard that they were checked against the current definitions. */
async function createChecked(
  db: Db,
  caller: Principal,
  input: z.infer<typeof CreateSubnetBody>,
  customFieldsGuard: Step<unknown>,
) {
  const orgId = caller.orgId;
  const values = subnetValues(input, {
    folderId: input.folder_id ?? null,
    vlanId: input.vlan_id ?? null,
    vrfId: input.vrf_id ?? null,
    locationId: input.location_id ?? null,
  });
  const { network, vrfId } = values;
  const id = randomUUID();
  try {
    return await commitChange(db, caller, {
      locks: [
        ...tagsLockSteps(orgId, values.tags),
        ...writes.lockReferencesSteps(orgId, values),
        ...limitLockSteps(caller, 'subnets'),
        lockSpaceStep(orgId, spaceOf(vrfId)),
        customFieldsGuard,
      ],
      steps: {
        ...writes.insertIfNewSteps(orgId, id, values, limitOf(caller, 'subnets')),
        adopted: writes.adoptionSteps(orgId, [id]),
        // Before the read, after the adoption: the statements planned generically go together (pipeline.ts).
        overlaps: vrfId ? [] : [writes.overlappingInVrfsStep(orgId, network)],
        read: withUsageStep(orgId, id),
      },
      activity: [{ action: 'create', resourceType: 'subnet', resourceId: id, changes: created(subnetFields(values)) }],
      answer: ({ read, overlaps }) => {
        const found = orNotFound(withUsageOf(read), 'Subnet');
        // A new subnet's children are the subnets it adopted.
        const subnet = { ...toSubnetDto(found.row, found.used), children: found.children };
        const warnings = overlaps.map((w) => ({ id: w.id, network: w.network, name: w.name, vrf_name: w.vrfName }));
        return warnings.length > 0 ? { subnet, warnings } : subnet;
      },
    });
  } catch (error) {
    if (!isRequirementFailed(error)) throw error;
    const unknownTag = unknownTagError(error);
    if (unknownTag) throw unknownTag;
    const refusal = refusalOf<writes.Refusal>(error);
    switch (refusal.rule) {
      case 'reference':
        throw missingReference(refusal.field, input);
      case 'limit':
        assertCallerWithinLimit(caller, 'subnets', refusal.count);
        break;
      case 'duplicate':
        throw duplicate(`network: ${network} already exists in this space (subnet ${refusal.id})`);
    }
    throw error;
  }
}

/**
 * The subnet as changed, and its version: the ETag of its representation (with its children, which the answer
 * leaves out), as its GET would answer it.
 */
export async function updateSubnet(
  db: Db,
  caller: Principal,
  id: string,
  input: z.infer<typeof UpdateSubnetBody>,
  ifMatch?: string,
) {
  const orgId = caller.orgId;
  const current = orNotFound(await repo.get(db, orgId, id), 'Subnet');
  const cidr = parseCidr(current.network)!.cidr;
  const hosts = hostFields(input, cidr);
  await commitTransaction(db, async (tx) => {
    await assertTags(tx, orgId, input.tags);
    await assertReferences(tx, orgId, input);
    await assertUpdateFields(tx, orgId, 'subnet', input.custom_fields);
    const values: Partial<repo.SubnetInsert> = given({
      name: input.name,
      description: input.description,
      folderId: input.folder_id,
      locationId: input.location_id,
      isPool: input.is_pool,
      tracked: input.tracked,
      scanEnabled: input.scan_enabled,
      customFields: input.custom_fields,
      tags: input.tags,
      ...hosts,
    });
    if (input.vlan !== undefined) {
      values.vlanId = input.vlan === '' ? null : (await ensureVlan(tx, caller, Number(input.vlan))).id;
    }
    const vrfId =
      input.vrf === undefined ? current.vrfId : input.vrf === '' ? null : (await ensureVrf(tx, caller, input.vrf)).id;
    // Spaces are locked before rows (as deletes and splits do), so the old values are read under both.
    if (vrfId !== current.vrfId) await lockSubnet(tx, orgId, id, current.vrfId, [spaceOf(vrfId)]);
    const before = orNotFound(await repo.getForUpdate(tx, orgId, id), 'Subnet');
    await assertSubnetVersion(tx, caller, id, ifMatch);
    if (vrfId !== current.vrfId && before.vrfId !== vrfId) {
      await uniqueOr(
        () => moveToSpace(tx, orgId, before, vrfId),
        `vrf: an address of ${current.network} is already assigned in ${input.vrf ? `VRF "${input.vrf}"` : 'the global space'}`,
      );
    }
    // The row is locked (above): the update answers it, and the read finds it.
    const after =
      Object.keys(values).length > 0
        ? first(await repo.update(tx, orgId, id, values), 'the locked subnet, updated')
        : orNotFound(await repo.get(tx, orgId, id), 'Subnet');
    await recordUpdate(tx, caller, 'subnet', id, subnetFields(before), subnetFields(after));
  });
  const { dto, children } = await getSubnetWithUsage(db, orgId, id);
  return { subnet: dto, version: versionOf({ ...dto, children }) };
}

/** Deletes the subnet and its subtree; answers what went (a dry run's answer: `SubnetDeletion`). */
export async function deleteSubnet(db: Db, caller: Principal, id: string, ifMatch?: string) {
  const subnet = orNotFound(await repo.get(db, caller.orgId, id), 'Subnet');
  return commitTransaction(db, async (tx) => {
    await lockSubnet(tx, caller.orgId, id, subnet.vrfId);
    await assertSubnetVersion(tx, caller, id, ifMatch);
    // One entry per subnet the delete cascades to, with the address records it took along (not one per address).
    const removed = await repo.subtreeWithAddressCounts(tx, caller.orgId, id);
    await repo.remove(tx, caller.orgId, id);
    await recordActivities(
      tx,
      caller,
      removed.map(({ subnet: row, addressCount }) => ({
        action: 'delete',
        resourceType: 'subnet',
        resourceId: row.id,
        changes: { ...deleted(subnetFields(row)), addresses_removed: [addressCount, 0] },
      })),
    );
    const subnets = removed.map(({ subnet: row, addressCount }) => ({
      id: row.id,
      network: row.network,
      addresses: addressCount,
    }));
    return {
      subnets,
      subnet_count: subnets.length,
      address_count: subnets.reduce((sum, s) => sum + s.addresses, 0),
    };
  });
}

/**
 * Creates an import's subnets in the caller's transaction, in order, by the rules of POST /subnets: a
 * network already in its space (or earlier in the import) is skipped; one past the plan's limit is an
 * error; the others are inserted together and nested (among themselves too), each logged as `import`.
 */
export async function importSubnets(tx: Db, caller: Principal, rows: repo.SubnetInsert[]): Promise<RowOutcome[]> {
  const orgId = caller.orgId;
  const take = await limitRoomLocked(tx, caller, 'subnets', () => repo.countInOrg(tx, orgId));
  const spaces = rows.map((row) => spaceOf(row.vrfId));
  await lockSpaces(tx, orgId, spaces);
  const existing = await repo.existingNetworks(
    tx,
    orgId,
    rows.map((row) => ({ spaceId: spaceOf(row.vrfId), network: row.network })),
  );
  const taken = new Set<string>();
  const accepted: repo.SubnetInsert[] = [];
  const outcomes = rows.map((row, i): RowOutcome | { accepted: repo.SubnetInsert } => {
    const where = row.vrfId ? 'its VRF' : 'the global space';
    const key = `${spaceOf(row.vrfId)}/${row.network}`;
    if (existing.has(i)) return { status: 'skipped', error: `duplicate: ${row.network} already exists in ${where}` };
    if (taken.has(key)) {
      return { status: 'skipped', error: `duplicate: ${row.network} is imported by an earlier row in ${where}` };
    }
    const refused = orRowError(take);
    if (refused) return refused;
    taken.add(key);
    accepted.push(row);
    return { accepted: row };
  });
  const inserted = await insertManyNested(tx, orgId, accepted);
  await recordCreatedMany(tx, caller, 'import', 'subnet', inserted, subnetFields);
  // Matched by (space, network), not by the order RETURNING happens to keep.
  const idOf = new Map(inserted.map((row) => [`${row.spaceId}/${formatCidr(parseCidr(row.network)!.cidr)}`, row.id]));
  return outcomes.map((o) =>
    'accepted' in o ? { status: 'created', id: idOf.get(`${spaceOf(o.accepted.vrfId)}/${o.accepted.network}`)! } : o,
  );
}
