/** The single-subnet read, the hottest query of the IPAM core: one prepared statement. */
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';
import type { SubnetRow } from './subnets.repo';

/** The host-length bounds of a cidr expression, for range conditions on the addresses index. */
const hostBounds = (network: string) => {
  const bits = `CASE WHEN family(${network}) = 4 THEN 32 ELSE 128 END`;
  return `set_masklen(${network}::inet, ${bits}) AND set_masklen(broadcast(${network}), ${bits})`;
};

/**
 * One subnet with its resolved names, its used count (address records of its space inside its range, less
 * those inside its outermost untracked descendants) and its direct children: one round trip.
 */
const subnetWithUsage = prepared<
  {
    id: string;
    org_id: string;
    parent_id: string | null;
    folder_id: string | null;
    vrf_id: string | null;
    space_id: string;
    vlan_id: string | null;
    location_id: string | null;
    network: string;
    name: string;
    description: string;
    is_pool: boolean;
    gateway: string | null;
    dns_primary: string | null;
    dns_secondary: string | null;
    scan_enabled: boolean;
    tracked: boolean;
    custom_fields: Record<string, unknown> | null;
    created_at: Date;
    updated_at: Date;
    folder_name: string | null;
    vlan_number: number | null;
    vrf_name: string | null;
    location_name: string | null;
    used: number;
    children: { id: string; network: string; name: string }[];
  },
  { orgId: string; id: string }
>(
  'subnet_with_usage',
  `SELECT s.id, s.org_id, s.parent_id, s.folder_id, s.vrf_id, s.space_id, s.vlan_id, s.location_id, s.network,
     s.name, s.description, s.is_pool, s.gateway, s.dns_primary, s.dns_secondary, s.scan_enabled, s.tracked,
     s.custom_fields, s.created_at, s.updated_at,
     f.name AS folder_name, v.vlan_number, r.name AS vrf_name, l.name AS location_name,
     (SELECT count(*) FROM addresses a
      WHERE a.org_id = s.org_id AND a.space_id = s.space_id AND a.ip BETWEEN ${hostBounds('s.network')})::int
     - (SELECT coalesce(sum((SELECT count(*) FROM addresses a
          WHERE a.org_id = u.org_id AND a.space_id = u.space_id AND a.ip BETWEEN ${hostBounds('u.network')})), 0)
        FROM subnets u
        WHERE u.org_id = s.org_id AND u.space_id = s.space_id AND NOT u.tracked AND u.network << s.network
          AND NOT EXISTS (SELECT 1 FROM subnets o
            WHERE o.org_id = s.org_id AND o.space_id = s.space_id AND NOT o.tracked
              AND o.network << s.network AND o.network >> u.network))::int AS used,
     (SELECT coalesce(json_agg(json_build_object('id', c.id, 'network', c.network, 'name', c.name) ORDER BY c.network), '[]')
      FROM subnets c WHERE c.org_id = s.org_id AND c.parent_id = s.id) AS children
   FROM subnets s
   LEFT JOIN folders f ON f.org_id = s.org_id AND f.id = s.folder_id
   LEFT JOIN vlans v ON v.org_id = s.org_id AND v.id = s.vlan_id
   LEFT JOIN vrfs r ON r.org_id = s.org_id AND r.id = s.vrf_id
   LEFT JOIN locations l ON l.org_id = s.org_id AND l.id = s.location_id
   WHERE s.org_id = :orgId AND s.id = :id`,
);

export async function getWithUsage(db: Db, orgId: string, id: string) {
  const [r] = await subnetWithUsage(db, { orgId, id });
  if (!r) return undefined;
  const subnet: SubnetRow = {
    id: r.id,
    orgId: r.org_id,
    parentId: r.parent_id,
    folderId: r.folder_id,
    vrfId: r.vrf_id,
    spaceId: r.space_id,
    vlanId: r.vlan_id,
    locationId: r.location_id,
    network: r.network,
    name: r.name,
    description: r.description,
    isPool: r.is_pool,
    gateway: r.gateway,
    dnsPrimary: r.dns_primary,
    dnsSecondary: r.dns_secondary,
    scanEnabled: r.scan_enabled,
    tracked: r.tracked,
    customFields: r.custom_fields,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
  const names = {
    folderName: r.folder_name,
    vlanNumber: r.vlan_number,
    vrfName: r.vrf_name,
    locationName: r.location_name,
  };
  return { row: { subnet, ...names }, used: r.used, children: r.children };
}
