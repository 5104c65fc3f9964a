import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';

/** Rows per query: the file is read in pages of this many, never all at once. */
export const PAGE = 2000;

/**
 * Keyset pages: each page reads the rows after the last one of the page before. The bound is `>=` a key that
 * is never null, so that an index in key order (addresses_space_ip) starts at it in every plan, the generic one
 * included: the last row's key (the row itself left out by IS DISTINCT FROM) or, on the first page, the least
 * key there is, the global space's nil UUID and 0.0.0.0/0, which order before every network and address. A
 * cursor tested for null instead (`:afterSpaceId IS NULL OR …`) is a filter in a generic plan: every page
 * would scan the organisation's rows from its first.
 */
const NIL_SPACE = "'00000000-0000-0000-0000-000000000000'::uuid";
const LEAST_NETWORK = "'0.0.0.0/0'";

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
  /** Its tags' names separated by commas (which no name holds). */
  tags: string;
  /** As JSON text; null when unset. */
  customFields: string | null;
}

const subnetsAfter = prepared<
  SubnetExportRow,
  { orgId: string; folderId: string | null; afterSpaceId: string | null; afterNetwork: string | null }
>(
  'export_subnet_page',
  `SELECT s.space_id AS "spaceId", s.network::text AS network, s.name, s.description, f.name AS folder,
     v.vlan_number AS vlan, r.name AS vrf, l.name AS location, host(s.gateway) AS gateway,
     host(s.dns_primary) AS "dnsPrimary", host(s.dns_secondary) AS "dnsSecondary", s.is_pool AS "isPool",
     s.scan_enabled AS "scanEnabled", s.tracked, array_to_string(s.tags, ',') AS tags,
     s.custom_fields::text AS "customFields"
   FROM subnets s
   LEFT JOIN folders f ON f.org_id = s.org_id AND f.id = s.folder_id
   LEFT JOIN vlans v ON v.org_id = s.org_id AND v.id = s.vlan_id
   LEFT JOIN vrfs r ON r.org_id = s.org_id AND r.id = s.vrf_id
   LEFT JOIN locations l ON l.org_id = s.org_id AND l.id = s.location_id
   WHERE s.org_id = :orgId
     AND (:folderId::uuid IS NULL OR s.folder_id = :folderId::uuid)
     AND (s.space_id, s.network) >= (coalesce(:afterSpaceId::uuid, ${NIL_SPACE}),
       coalesce(:afterNetwork::cidr, ${LEAST_NETWORK}::cidr))
     AND (s.space_id, s.network) IS DISTINCT FROM (:afterSpaceId::uuid, :afterNetwork::cidr)
   ORDER BY s.space_id, s.network
   LIMIT ${PAGE}`,
);

/** A page of the organisation's subnets (of one folder) in (space, network) order, after the key given. */
export async function subnetPage(
  db: Db,
  orgId: string,
  folderId: string | undefined,
  after: { spaceId: string; network: string } | null,
) {
  return subnetsAfter(db, {
    orgId,
    folderId: folderId ?? null,
    afterSpaceId: after?.spaceId ?? null,
    afterNetwork: after?.network ?? null,
  });
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
  tags: string;
  /** As JSON text; null when unset. */
  customFields: string | null;
}

/**
 * A subnet's addresses are in its space, from its network on (docs/decisions.md, Spaces): the first page of
 * one subnet's starts there (`home`), not at the organisation's first address.
 */
const addressesAfter = prepared<
  AddressExportRow,
  { orgId: string; subnetId: string | null; afterSpaceId: string | null; afterIp: string | null }
>(
  'export_address_page',
  `WITH home AS (SELECT space_id, network FROM subnets WHERE org_id = :orgId AND id = :subnetId::uuid)
   SELECT a.space_id AS "spaceId", host(a.ip) AS ip, s.network::text AS subnet, a.hostname,
     a.mac_address AS "macAddress", a.description, a.status, a.owner, a.ptr_record AS "ptrRecord", r.name AS vrf,
     array_to_string(a.tags, ',') AS tags, a.custom_fields::text AS "customFields"
   FROM addresses a JOIN subnets s ON s.id = a.subnet_id
   LEFT JOIN vrfs r ON r.org_id = a.org_id AND r.id = a.vrf_id
   WHERE a.org_id = :orgId
     AND (:subnetId::uuid IS NULL OR a.subnet_id = :subnetId::uuid)
     AND (a.space_id, a.ip) >= (coalesce(:afterSpaceId::uuid, (SELECT space_id FROM home), ${NIL_SPACE}),
       coalesce(:afterIp::inet, (SELECT network FROM home), ${LEAST_NETWORK}::inet))
     AND (a.space_id, a.ip) IS DISTINCT FROM (:afterSpaceId::uuid, :afterIp::inet)
   ORDER BY a.space_id, a.ip
   LIMIT ${PAGE}`,
);

/** A page of the organisation's addresses (of one subnet) in (space, ip) order, after the key given. */
export async function addressPage(
  db: Db,
  orgId: string,
  subnetId: string | undefined,
  after: { spaceId: string; ip: string } | null,
) {
  return addressesAfter(db, {
    orgId,
    subnetId: subnetId ?? null,
    afterSpaceId: after?.spaceId ?? null,
    afterIp: after?.ip ?? null,
  });
}

export interface RangeExportRow {
  spaceId: string;
  subnetNetwork: string;
  id: string;
  subnet: string;
  vrf: string | null;
  start: string;
  end: string;
  role: string;
  description: string;
}

/** Ranges in (space, subnet, start) order: the range's id breaks ties (a child subnet's range may start alike). */
const rangesAfter = prepared<
  RangeExportRow,
  {
    orgId: string;
    subnetId: string | null;
    afterSpaceId: string | null;
    afterNetwork: string | null;
    afterStart: string | null;
    afterId: string | null;
  }
>(
  'export_range_page',
  `SELECT s.space_id AS "spaceId", s.network AS "subnetNetwork", r.id, s.network::text AS subnet, v.name AS vrf,
     host(r.start_ip) AS start, host(r.end_ip) AS "end", r.role, r.description
   FROM ip_ranges r JOIN subnets s ON s.id = r.subnet_id
   LEFT JOIN vrfs v ON v.org_id = s.org_id AND v.id = s.vrf_id
   WHERE r.org_id = :orgId AND (:subnetId::uuid IS NULL OR r.subnet_id = :subnetId::uuid)
     AND (:afterId::uuid IS NULL OR (s.space_id, s.network, r.start_ip, r.id)
       > (:afterSpaceId::uuid, :afterNetwork::cidr, :afterStart::inet, :afterId::uuid))
   ORDER BY s.space_id, s.network, r.start_ip, r.id
   LIMIT ${PAGE}`,
);

/** A page of the organisation's ranges (of one subnet), after the row given. */
export const rangePage = (db: Db, orgId: string, subnetId: string | undefined, after: RangeExportRow | null) =>
  rangesAfter(db, {
    orgId,
    subnetId: subnetId ?? null,
    afterSpaceId: after?.spaceId ?? null,
    afterNetwork: after?.subnetNetwork ?? null,
    afterStart: after?.start ?? null,
    afterId: after?.id ?? null,
  });
