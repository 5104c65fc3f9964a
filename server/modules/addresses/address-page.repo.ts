/**
 * A page of a subnet's addresses (GET /subnets/{id}/addresses), the hottest list of the API. An address's
 * subnet is in its organisation (foreign key), so the subnet row scopes them all; by subnet alone the
 * count is an index-only scan and the page an ordered index scan.
 *
 * Most of a page's cost is the driver making a string of every field (13 × 100 for a page of 100), so
 * PostgreSQL packs the page into one text: fields joined by US (\x1f), rows by RS (\x1e), every field
 * present (NULL as ''; the nullable ptr_record marked by a leading '='). The API never refuses those two
 * characters in text, so a page is unpacked only when it splits into exactly the rows the count promises,
 * each of exactly its fields; a value holding either character makes it answer from a plain row query.
 */
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';
import { isoTimestamp } from '../../db/timestamps';
import type { AddressDto } from './addresses.repo';

const FIELD = '\x1f';
const ROW = '\x1e';
const FIELDS = 12;

/** An address's fields, in the order both queries give them. */
type Fields = [
  id: string,
  ip: string,
  hostname: string,
  macAddress: string,
  description: string,
  status: string,
  owner: string,
  ptrRecord: string,
  customFields: string,
  lastSeen: string,
  createdAt: string,
  updatedAt: string,
];

const isFields = (f: string[]): f is Fields => f.length === FIELDS;

/**
 * The page's addresses in ip order, and the total. A plain aggregate over a sorted subquery takes its rows in
 * that order (PostgreSQL's documented alternative to an ORDER BY inside the aggregate, which would sort the
 * page once more).
 */
const window = `FROM (SELECT * FROM addresses WHERE subnet_id = $2 ORDER BY ip LIMIT $3 OFFSET $4) a`;
const total = '(SELECT count(*) FROM addresses WHERE subnet_id = $2)::int AS total';

const packedPage = prepared<{ total: number; page: string | null }>(
  'addresses_page_packed',
  `SELECT ${total},
     (SELECT string_agg(concat_ws(E'\\x1f', a.id, host(a.ip), a.hostname, a.mac_address, a.description, a.status,
        a.owner, coalesce('=' || a.ptr_record, ''), coalesce(a.custom_fields::text, ''),
        coalesce(a.last_seen::text, ''), a.created_at::text, a.updated_at::text), E'\\x1e')
      ${window}) AS page
   FROM subnets s WHERE s.org_id = $1 AND s.id = $2`,
);

const pageRows = prepared<{ total: number; fields: Fields | null }>(
  'addresses_page_rows',
  `SELECT ${total},
     CASE WHEN a.id IS NOT NULL THEN ARRAY[a.id::text, host(a.ip), a.hostname, a.mac_address, a.description,
       a.status::text, a.owner, coalesce('=' || a.ptr_record, ''), coalesce(a.custom_fields::text, ''),
       coalesce(a.last_seen::text, ''), a.created_at::text, a.updated_at::text] END AS fields
   FROM subnets s LEFT JOIN LATERAL (SELECT a.* ${window}) a ON true
   WHERE s.org_id = $1 AND s.id = $2
   ORDER BY a.ip`,
);

/** One address of the API from its fields, in the order both queries give them. */
function toAddress(subnetId: string, f: Fields): AddressDto {
  const [
    id,
    ip,
    hostname,
    macAddress,
    description,
    status,
    owner,
    ptrRecord,
    customFields,
    lastSeen,
    createdAt,
    updatedAt,
  ] = f;
  const address: AddressDto = {
    id,
    subnet_id: subnetId,
    ip,
    hostname,
    mac_address: macAddress,
    description,
    status: status as AddressDto['status'],
    owner,
    created_at: isoTimestamp(createdAt),
    updated_at: isoTimestamp(updatedAt),
  };
  if (ptrRecord !== '') address.ptr_record = ptrRecord.slice(1);
  if (customFields !== '') address.custom_fields = JSON.parse(customFields);
  if (lastSeen !== '') address.last_seen = isoTimestamp(lastSeen);
  return address;
}

/** The packed rows split into their fields, or null when a value held a separator (see above). */
function unpack(page: string | null, expected: number): Fields[] | null {
  const rows = page === null ? [] : page.split(ROW);
  if (rows.length !== expected) return null;
  const fields = rows.map((row) => row.split(FIELD));
  return fields.every(isFields) ? fields : null;
}

/** A page in the API's shape and the subnet's total; undefined when the organisation has no such subnet. */
export async function pageInSubnet(db: Db, orgId: string, subnetId: string, limit: number, offset: number) {
  const subnet = subnetId.toLowerCase(); // as PostgreSQL writes a uuid, whatever case the path had
  const [packed] = await packedPage(db, orgId, subnetId, limit, offset);
  if (!packed) return undefined;
  const expected = Math.max(0, Math.min(limit, packed.total - offset));
  let fields = unpack(packed.page, expected);
  let count = packed.total;
  if (!fields) {
    const rows = await pageRows(db, orgId, subnetId, limit, offset);
    const [head] = rows;
    if (!head) return undefined;
    fields = rows.flatMap((r) => (r.fields ? [r.fields] : []));
    count = head.total;
  }
  return { total: count, page: fields.map((f) => toAddress(subnet, f)) };
}
