/** Questions about the address space of a subnet (usage, first free, free blocks, overlaps) and split. */
import type { Db } from '../../db/connection';
import { badRequest, duplicate } from '../../errors';
import {
  BITS,
  type Cidr,
  cidrRange,
  firstFree,
  formatCidr,
  formatIp,
  freeBlocks,
  nextUnused,
  parseCidr,
  parseIp,
  type Range,
  rangeToBlocks,
  splitCidr,
  splitPrefix,
  usableRange,
  utilization,
} from '../../ipam';
import { recordActivity } from '../activity/activity.service';
import type { Principal } from '../identity/principal';
import { assertLimitLocked, orNotFound } from '../shared/rows';
import { spaceOf } from './spaces';
import { totalOf } from './subnets.dto';
import { lockSubnet } from './subnets.hierarchy';
import * as repo from './subnets.repo';
import { getSubnetWithUsage } from './subnets.service';

async function load(db: Db, orgId: string, id: string) {
  const row = orNotFound(await repo.get(db, orgId, id), 'Subnet');
  return { row, cidr: parseCidr(row.network)!.cidr };
}

const childCidrs = async (db: Db, orgId: string, id: string): Promise<Cidr[]> =>
  (await repo.children(db, orgId, id)).map((c) => parseCidr(c.network)!.cidr);

export async function getUsage(db: Db, caller: Principal, id: string) {
  const { row: names, used } = await getSubnetWithUsage(db, caller.orgId, id);
  const row = names.subnet;
  const total = totalOf(row);
  return { subnet_id: id, network: row.network, used, total: Number(total), utilization: utilization(used, total) };
}

/** The lowest usable address holding no record, skipping the gateway and the ranges of child subnets. */
export async function getFirstFree(db: Db, caller: Principal, id: string) {
  const { row, cidr } = await load(db, caller.orgId, id);
  const text = (value: bigint) => formatIp({ version: cidr.version, value });
  const value = (ip: string) => parseIp(ip)!.value;
  const usable = usableRange(cidr, row.isPool);
  const excluded: Range[] = (await childCidrs(db, caller.orgId, id)).map(cidrRange);
  const gateway = row.gateway ? parseIp(row.gateway) : null;
  if (gateway) excluded.push({ first: gateway.value, last: gateway.value });
  const records = {
    countUpTo: (low: bigint, ends: bigint[]) => repo.countAddressesUpTo(db, id, text(low), ends.map(text)),
    list: async (low: bigint, high: bigint) => (await repo.addressesBetween(db, id, text(low), text(high))).map(value),
  };
  const ip = await firstFree(usable, excluded, (from) => nextUnused(from, usable.last, records));
  if (ip === null) return { ip: null, message: `No free address in ${row.network}` };
  return { ip: text(ip) };
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
  const occupied = (await repo.childRuns(db, caller.orgId, id, BITS[cidr.version])).flatMap((run) =>
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

/**
 * Replaces a subnet by `parts` equal subnets that inherit its folder, parent, name, VRF and pool flag; its
 * own addresses are deleted, its children nest under the part containing them (or become the parent of
 * the parts inside them).
 */
export async function splitSubnet(db: Db, caller: Principal, id: string, parts: number) {
  const orgId = caller.orgId;
  const { row: before, cidr } = await load(db, orgId, id);
  const prefix = splitPrefix(cidr, parts);
  if (prefix === null) {
    throw badRequest(
      `parts: ${before.network} cannot be split into ${parts} (the parts would pass /${BITS[cidr.version]})`,
    );
  }
  const networks = splitCidr(cidr, parts).map(formatCidr);
  return db.transaction(async (tx) => {
    await assertLimitLocked(tx, caller, 'subnets', () => repo.countInOrg(tx, orgId), parts - 1);
    const row = await lockSubnet(tx, orgId, id, before.vrfId);
    // A part can equal any descendant, not only a direct child.
    const clash = await repo.findInsideWithPrefix(tx, orgId, spaceOf(row.vrfId), row.network, prefix);
    if (clash) throw duplicate(`parts: the part ${clash.network} already exists as a subnet (${clash.id})`);
    await repo.reparentChildren(tx, orgId, id, row.parentId);
    const addressesRemoved = await repo.deleteOwnAddresses(tx, orgId, id);
    await repo.remove(tx, orgId, id);
    const inherited = { folderId: row.folderId, name: row.name, vrfId: row.vrfId, isPool: row.isPool };
    const created = await repo.insertMany(
      tx,
      orgId,
      networks.map((network) => ({ ...inherited, network, parentId: row.parentId })),
    );
    await repo.nestSplitParts(
      tx,
      orgId,
      created.map((c) => c.id),
    );
    await recordActivity(tx, caller, {
      action: 'split',
      resourceType: 'subnet',
      resourceId: id,
      changes: {
        network: [row.network, null],
        parts: [null, networks],
        addresses_removed: [addressesRemoved, 0],
      },
    });
    return created.map((c) => ({ id: c.id, network: c.network }));
  });
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
