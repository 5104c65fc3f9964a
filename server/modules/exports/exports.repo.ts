import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/connection';

/** Rows per query: the file is read in pages of this many, never all at once. */
export const PAGE = 2000;

export interface SubnetExportRow {
  spaceId: string;
  network: string;
  name: string;
  description: string;
  folder: string | null;
  vlan: number | null;
  vrf: string | null;
  location: string | null;
  gateway: string | null;
  dnsPrimary: string | null;
  dnsSecondary: string | null;
  isPool: boolean;
  scanEnabled: boolean;
  tracked: boolean;
}

/** A page of the organisation's subnets (of one folder) in (space, network) order, after the key given. */
export async function subnetPage(
  db: Db,
  orgId: string,
  folderId: string | undefined,
  after: { spaceId: string; network: string } | null,
) {
  const result = await db.execute(sql`
    SELECT s.space_id AS "spaceId", s.network::text AS network, s.name, s.description, f.name AS folder,
      v.vlan_number AS vlan, r.name AS vrf, l.name AS location, host(s.gateway) AS gateway,
      host(s.dns_primary) AS "dnsPrimary", host(s.dns_secondary) AS "dnsSecondary", s.is_pool AS "isPool",
      s.scan_enabled AS "scanEnabled", s.tracked
    FROM subnets s
    LEFT JOIN folders f ON f.org_id = s.org_id AND f.id = s.folder_id
    LEFT JOIN vlans v ON v.org_id = s.org_id AND v.id = s.vlan_id
    LEFT JOIN vrfs r ON r.org_id = s.org_id AND r.id = s.vrf_id
    LEFT JOIN locations l ON l.org_id = s.org_id AND l.id = s.location_id
    WHERE s.org_id = ${orgId}
      ${folderId ? sql`AND s.folder_id = ${folderId}` : sql``}
      ${after ? sql`AND (s.space_id, s.network) > (${after.spaceId}::uuid, ${after.network}::cidr)` : sql``}
    ORDER BY s.space_id, s.network
    LIMIT ${PAGE}`);
  return rowsOf<SubnetExportRow>(result);
}

export interface AddressExportRow {
  spaceId: string;
  ip: string;
  subnet: string;
  hostname: string;
  macAddress: string;
  description: string;
  status: string;
  owner: string;
  ptrRecord: string | null;
  vrf: string | null;
}

/** A page of the organisation's addresses (of one subnet) in (space, ip) order, after the key given. */
export async function addressPage(
  db: Db,
  orgId: string,
  subnetId: string | undefined,
  after: { spaceId: string; ip: string } | null,
) {
  const result = await db.execute(sql`
    SELECT a.space_id AS "spaceId", host(a.ip) AS ip, s.network::text AS subnet, a.hostname,
      a.mac_address AS "macAddress", a.description, a.status, a.owner, a.ptr_record AS "ptrRecord", r.name AS vrf
    FROM addresses a JOIN subnets s ON s.id = a.subnet_id
    LEFT JOIN vrfs r ON r.org_id = a.org_id AND r.id = a.vrf_id
    WHERE a.org_id = ${orgId}
      ${subnetId ? sql`AND a.subnet_id = ${subnetId}` : sql``}
      ${after ? sql`AND (a.space_id, a.ip) > (${after.spaceId}::uuid, ${after.ip}::inet)` : sql``}
    ORDER BY a.space_id, a.ip
    LIMIT ${PAGE}`);
  return rowsOf<AddressExportRow>(result);
}
