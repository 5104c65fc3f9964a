import type { z } from 'zod';
import type { Subnet } from '../../../contract/subnets.contract';
import { parseCidr, usableTotal, utilization } from '../../ipam';
import { jsonInteger } from '../../json';
import { tagsShown } from '../shared/tags';
import type { SubnetWithNames } from './subnets.repo';

export type SubnetDto = z.infer<typeof Subnet>;

/** Usable addresses of a stored subnet (its network is always a valid CIDR). */
export function totalOf(row: { network: string; isPool: boolean }): bigint {
  const parsed = parseCidr(row.network);
  if (!parsed) throw new Error(`stored network ${row.network} is not a CIDR`);
  return usableTotal(parsed.cidr, row.isPool);
}

/** The API shape of a subnet; `used` null omits the figures (an untracked subnet in a list). */
export function toSubnetDto(row: SubnetWithNames, used: number | null): SubnetDto {
  const s = row.subnet;
  const total = totalOf(s);
  return {
    id: s.id,
    folder_id: s.folderId,
    ...(s.parentId ? { parent_id: s.parentId } : {}),
    network: s.network,
    name: s.name,
    description: s.description,
    vlan_id: s.vlanId,
    vrf_id: s.vrfId,
    location_id: s.locationId,
    is_pool: s.isPool,
    gateway: s.gateway,
    dns_primary: s.dnsPrimary,
    dns_secondary: s.dnsSecondary,
    scan_enabled: s.scanEnabled,
    tracked: s.tracked,
    utilization: used === null ? 0 : utilization(used, total),
    ...(used === null ? {} : { used_count: used, total_count: jsonInteger(total) }),
    folder_name: row.folderName,
    ...(row.vlanNumber !== null ? { vlan_number: row.vlanNumber } : {}),
    ...(row.vrfName !== null ? { vrf_name: row.vrfName } : {}),
    ...(row.locationName !== null ? { location_name: row.locationName } : {}),
    ...tagsShown(s.tags),
    ...(s.customFields ? { custom_fields: s.customFields } : {}),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

/**
 * Used counts of every subnet of a list: its own address records plus those of descendants reached
 * through tracked subnets only (an untracked subnet and everything under it count in no ancestor).
 */
export function rollUpUsed(rows: { id: string; parentId: string | null; tracked: boolean; ownUsed: number }[]) {
  const used = new Map(rows.map((r) => [r.id, r.ownUsed]));
  const children = new Map<string, string[]>();
  for (const r of rows) {
    if (!r.parentId || !r.tracked) continue;
    const siblings = children.get(r.parentId);
    if (siblings) siblings.push(r.id);
    else children.set(r.parentId, [r.id]);
  }
  const visit = (id: string): number => {
    let total = used.get(id) ?? 0;
    for (const child of children.get(id) ?? []) total += visit(child);
    used.set(id, total);
    return total;
  };
  const roots = rows.filter((r) => !r.parentId || !used.has(r.parentId) || !r.tracked);
  for (const r of roots) visit(r.id);
  return used;
}
