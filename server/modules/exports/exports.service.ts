/**
 * CSV export of subnets and addresses, streamed: pages of the rows are read one after another as the
 * client takes the file, so memory stays flat however many rows there are.
 */
import type { Db } from '../../db/connection';
import { notFound } from '../../errors';
import type { Principal } from '../../principal';
import * as folders from '../folders/folders.service';
import { csvStream } from '../shared/csv';
import { orNotFound } from '../shared/results';
import { addressHomeOf } from '../subnets/spaces';
import * as repo from './exports.repo';

const SUBNET_COLUMNS = [
  'network',
  'name',
  'description',
  'folder',
  'vlan',
  'vrf',
  'location',
  'gateway',
  'dns_primary',
  'dns_secondary',
  'is_pool',
  'scan_enabled',
  'tracked',
  'tags',
  'custom_fields',
];
// After the specification's columns, the VRF of `subnet` (empty: the global space), as the import's `vrf` takes it,
// then the tags, separated by commas (which no tag name holds), then the custom fields as JSON (docs/decisions.md,
// Export).
const ADDRESS_COLUMNS = [
  'ip',
  'subnet',
  'hostname',
  'mac_address',
  'description',
  'status',
  'owner',
  'ptr_record',
  'vrf',
  'tags',
  'custom_fields',
];

/** The organisation's subnets (of one folder: 404 when it has none such) as CSV. */
export async function exportSubnets(db: Db, caller: Principal, folderId?: string) {
  if (folderId && !(await folders.exists(db, caller.orgId, folderId))) throw notFound('Folder');
  return csvStream<repo.SubnetExportRow>({
    header: SUBNET_COLUMNS,
    pageSize: repo.PAGE,
    page: (last) => repo.subnetPage(db, caller.orgId, folderId, last),
    row: (s) => [
      s.network,
      s.name,
      s.description,
      s.folder,
      s.vlan,
      s.vrf,
      s.location,
      s.gateway,
      s.dnsPrimary,
      s.dnsSecondary,
      s.isPool,
      s.scanEnabled,
      s.tracked,
      s.tags,
      s.customFields,
    ],
  });
}

/** The organisation's addresses (of one subnet: 404 when it has none such) as CSV. */
export async function exportAddresses(db: Db, caller: Principal, subnetId?: string) {
  if (subnetId) orNotFound(await addressHomeOf(db, caller.orgId, subnetId), 'Subnet');
  return csvStream<repo.AddressExportRow>({
    header: ADDRESS_COLUMNS,
    pageSize: repo.PAGE,
    page: (last) => repo.addressPage(db, caller.orgId, subnetId, last),
    row: (a) => [
      a.ip,
      a.subnet,
      a.hostname,
      a.macAddress,
      a.description,
      a.status,
      a.owner,
      a.ptrRecord,
      a.vrf,
      a.tags,
      a.customFields,
    ],
  });
}

/** The organisation's IP ranges (of one subnet: 404 when it has none such) as CSV, as import rows of ranges. */
export async function exportRanges(db: Db, caller: Principal, subnetId?: string) {
  if (subnetId) orNotFound(await addressHomeOf(db, caller.orgId, subnetId), 'Subnet');
  return csvStream<repo.RangeExportRow>({
    header: ['subnet', 'vrf', 'start', 'end', 'role', 'description'],
    pageSize: repo.PAGE,
    page: (last) => repo.rangePage(db, caller.orgId, subnetId, last),
    row: (r) => [r.subnet, r.vrf, r.start, r.end, r.role, r.description],
  });
}

/** The name a download is saved under: what it holds and the day. */
export const fileName = (what: 'subnets' | 'addresses' | 'ranges', now: Date) =>
  `${what}-${now.toISOString().slice(0, 10)}.csv`;
