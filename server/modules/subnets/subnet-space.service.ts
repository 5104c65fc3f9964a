/** Read-only questions about the address space of a subnet: usage, first free, free blocks, overlaps. */
import type { Db } from '../../db/connection';
import { badRequest } from '../../errors';
import {
  BITS,
  cidrRange,
  firstFree,
  formatCidr,
  formatIp,
  freeBlocks,
  freeInWindow,
  mergeRanges,
  parseCidr,
  parseIp,
  type Range,
  rangeToBlocks,
  usableRange,
  utilization,
} from '../../ipam';
import { jsonInteger } from '../../json';
import type { Principal } from '../../principal';
import { rangesForSearch } from '../ranges/ranges.service';
import { orNotFound } from '../shared/results';
import { firstFreeHomeOf } from './spaces';
import * as space from './subnet-space.repo';
import { totalOf } from './subnets.dto';
import * as repo from './subnets.repo';
import { getSubnetWithUsage } from './subnets.service';

/** A subnet of the organisation (404 otherwise) and its parsed network. */
export async function load(db: Db, orgId: string, id: string) {
  const row = orNotFound(await repo.get(db, orgId, id), 'Subnet');
  return { row, cidr: parseCidr(row.network)!.cidr };
}

export async function getUsage(db: Db, caller: Principal, id: string) {
  const { row: names, used } = await getSubnetWithUsage(db, caller.orgId, id);
  const row = names.subnet;
  const total = totalOf(row);
  return {
    subnet_id: id,
    network: row.network,
    used,
    total: jsonInteger(total),
    utilization: utilization(used, total),
  };
}

/** Where a first-free search looks (`FirstFreeQuery`): one range, outside the ranges, past the first N. */
export interface SearchTarget {
  rangeId?: string;
  skipRanges?: boolean;
  skipFirst?: number;
}

/**
 * The usable addresses and the excluded ones of a search narrowed by `target`: the range's part of the usable
 * addresses, or every range excluded, and the first `skipFirst` passed over (an empty window when none is left).
 */
async function narrowed(
  db: Db,
  orgId: string,
  subnetId: string,
  usable: Range,
  excluded: Range[],
  target: SearchTarget,
) {
  if (target.rangeId !== undefined && target.skipRanges) throw badRequest('skip_ranges: not with range_id');
  let window = usable;
  let skipped = excluded;
  const rangeId = target.rangeId?.toLowerCase();
  if (rangeId !== undefined || target.skipRanges) {
    const ranges = await rangesForSearch(db, orgId, subnetId);
    if (rangeId !== undefined) {
      const range = orNotFound(
        ranges.find((r) => r.id === rangeId),
        'Range',
      ).range;
      window = { first: max(usable.first, range.first), last: min(usable.last, range.last) };
    } else {
      skipped = mergeRanges([...excluded, ...ranges.map((r) => r.range)]);
    }
  }
  return { usable: { first: window.first + BigInt(target.skipFirst ?? 0), last: window.last }, excluded: skipped };
}
const max = (a: bigint, b: bigint) => (a > b ? a : b);
const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * The lowest usable address holding no record, skipping the gateway and the ranges of child subnets, in the part
 * of the subnet `target` names.
 */
export async function getFirstFree(db: Db, caller: Principal, id: string, target: SearchTarget = {}) {
  // The subnet, its children and where its records first leave a gap in one statement: the answer unless
  // that gap is in a child subnet (or the search starts elsewhere), when the search goes on from there.
  const subnet = orNotFound(await firstFreeHomeOf(db, caller.orgId, id), 'Subnet');
  const addressSpace = addressSpaceOf(subnet);
  const { text, value } = addressSpace;
  const { usable, excluded } = await narrowed(
    db,
    caller.orgId,
    subnet.id,
    addressSpace.usable,
    addressSpace.excluded,
    target,
  );
  if (usable.first > usable.last) return { ip: null, message: `No free address in ${subnet.network} there` };
  const searched = value(subnet.searchedFrom);
  // Every address from `searched` up to `unused` holds a record; none left at all is past the network.
  const unused = subnet.unused === null ? usable.last + 1n : value(subnet.unused);
  const search = unusedFrom(db, subnet.id, { ...addressSpace, usable });
  const ip = await firstFree(usable, excluded, (from) => (from >= searched && from <= unused ? unused : search(from)));
  return ip === null ? { ip: null, message: `No free address in ${subnet.network}` } : { ip: text(ip) };
}

/**
 * `firstFree`'s nextUnused from the database: the lowest address ≥ from holding no record of the subnet, up to
 * its last usable address; past that address when each holds one.
 */
const unusedFrom =
  (db: Db, subnetId: string, { text, value, usable }: ReturnType<typeof addressSpaceOf>) =>
  async (from: bigint) => {
    const ip = await space.nextUnusedAddress(db, subnetId, text(from), text(usable.last));
    return ip === null ? usable.last + 1n : value(ip);
  };

/** What the search for free addresses reads of a subnet. */
type SearchedSubnet = { id: string; network: string; isPool: boolean; gateway: string | null; children: string[] };

/**
 * The addresses a subnet may give out: its usable range, less `excluded` (its gateway and its children's
 * ranges, merged); with the conversions between ip texts and values of its family.
 */
export function addressSpaceOf(subnet: Omit<SearchedSubnet, 'id'>) {
  const cidr = parseCidr(subnet.network)!.cidr;
  const excluded: Range[] = subnet.children.map((network) => cidrRange(parseCidr(network)!.cidr));
  const gateway = subnet.gateway ? parseIp(subnet.gateway) : null;
  if (gateway) excluded.push({ first: gateway.value, last: gateway.value });
  return {
    text: (value: bigint) => formatIp({ version: cidr.version, value }),
    value: (ip: string) => parseIp(ip)!.value,
    usable: usableRange(cidr, subnet.isPool),
    excluded: mergeRanges(excluded),
    gateway: gateway?.value ?? null,
  };
}

/** How many records of a subnet a window of `freeAddresses` listed by a statement of its own may hold. */
const windowSize = (count: number) => 2 * count + 63;

/**
 * How many records of a subnet, from its lowest, its callers read with it (`head`) when they look for `count`
 * free addresses: the first window then covers as many addresses, so a /24 and the first thousand addresses
 * of a larger subnet are searched with no statement beyond that read (1,024 ips cost about 0.2 ms to read).
 */
export const headSize = (count: number) => Math.max(windowSize(count), 1024);

/**
 * Up to `count` free addresses of a subnet, lowest first: usable, not the gateway, in no child subnet,
 * holding no record; in the part of the subnet `target` names, when given. A listing of a window past the last address looked at finds them where records are
 * sparse (one round trip for a fresh subnet, none when the caller read `head`, the subnet's first
 * `headSize(count)` records in ip order); a run of records is passed by the database's search for the next
 * unused address (whole blocks of 256 by their tallies).
 */
export async function freeAddresses(
  db: Db,
  subnet: SearchedSubnet,
  count: number,
  head?: string[],
  target?: SearchTarget & { orgId: string },
) {
  const whole = addressSpaceOf(subnet);
  const { usable, excluded: merged } = target
    ? await narrowed(db, target.orgId, subnet.id, whole.usable, whole.excluded, target)
    : whole;
  const addressSpace = { ...whole, usable, excluded: merged };
  const { text, value } = addressSpace;
  if (usable.first > usable.last) return [];
  const list = async (low: bigint, high: bigint) =>
    (await space.addressesBetween(db, subnet.id, text(low), text(high))).map(value);
  const found: bigint[] = [];
  let from: bigint | null = usable.first;
  let listed = head?.map(value);
  while (from !== null && found.length < count) {
    const missing = count - found.length;
    // The first window is as large as the head read with the subnet, the next ones as a listing's.
    const size = listed ? headSize(missing) : windowSize(missing);
    const window: bigint = from + BigInt(size - 1);
    const high: bigint = window < usable.last ? window : usable.last;
    // The subnet's first `size` records hold every record of the window unless one lies below it (a network
    // address recorded while the subnet was a pool): then the window is listed.
    const lowest = listed?.[0];
    const used =
      listed && (listed.length < size || (lowest !== undefined && lowest >= from))
        ? listed.filter((ip) => ip <= high)
        : await list(from, high);
    listed = undefined;
    found.push(...freeInWindow({ first: from, last: high }, merged, used, missing));
    if (found.length === count || high === usable.last) break;
    from = await firstFree({ first: high + 1n, last: usable.last }, merged, unusedFrom(db, subnet.id, addressSpace));
    // What firstFree finds is free (in no excluded range, holding no record): the search goes on after it.
    if (from === null) break;
    found.push(from);
    from = from < usable.last ? from + 1n : null;
  }
  return found.map(text);
}

export async function getFreeBlocks(db: Db, caller: Principal, id: string, prefix: number, limit: number) {
  const { row, cidr } = await load(db, caller.orgId, id);
  if (prefix <= cidr.prefix || prefix > BITS[cidr.version]) {
    throw badRequest(
      `prefix: must be longer than the subnet's /${cidr.prefix} and at most ${BITS[cidr.version]}, not ${prefix}`,
    );
  }
  // Direct children cover every deeper descendant (each nests under its smallest container); runs of
  // adjacent children arrive merged and become the few CIDRs covering them.
  const occupied = (await space.childRuns(db, caller.orgId, id, BITS[cidr.version])).flatMap((run) =>
    rangeToBlocks({ first: parseIp(run.first)!.value, last: parseIp(run.last)!.value }, BITS[cidr.version]).map(
      (block) => ({ version: cidr.version, ...block }),
    ),
  );
  const result = freeBlocks(cidr, prefix, occupied, limit);
  return {
    subnet_id: id,
    network: row.network,
    prefix,
    blocks: result.blocks.map(formatCidr),
    total: result.total,
    capped: result.capped,
  };
}

export async function listOverlaps(db: Db, caller: Principal) {
  const side = (id: string, network: string, vrf: string | null) => ({
    id,
    network,
    ...(vrf !== null ? { vrf_name: vrf } : {}),
  });
  return (await repo.overlapPairs(db, caller.orgId)).map((p) => ({
    subnet_a: side(p.a_id, p.a_network, p.a_vrf),
    subnet_b: side(p.b_id, p.b_network, p.b_vrf),
    type: (p.a_network === p.b_network ? 'duplicate' : 'containment') as 'duplicate' | 'containment',
  }));
}
