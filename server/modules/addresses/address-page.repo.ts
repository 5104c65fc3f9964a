/**
 * A page of a subnet's addresses (GET /subnets/{id}/addresses), the hottest list of the API. An address's
 * subnet is in its organisation (foreign key), so the subnet row scopes them all; by subnet alone the page
 * is an ordered index scan.
 *
 * Most of a page's cost is the driver making a string of every field (13 × 100 for a page of 100), so
 * PostgreSQL packs the page into one text: fields joined by US (\x1f), rows by RS (\x1e), every field
 * present (an optional field marked by a leading '=', absent as ''). The API never refuses those two
 * characters in text, so a page is unpacked only when it splits into exactly the rows the count promises,
 * each of exactly its fields; a value holding either character makes it answer from a plain row query.
 */
import { and, asc, count, eq, ilike, inArray, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';
import { addresses, subnets } from '../../db/schema';
import { taggedAs } from '../../db/tag-filter';
import {
  type CustomFieldFilter,
  customFieldFilterParameters,
  customFieldFilterSql,
} from '../custom-fields/custom-fields.service';
import type { TagFilter } from '../shared/tags';
import { ADDRESS_FIELDS, fromPacked, PACKED_FIELDS, toDto } from './address-shape.repo';

const FIELD = '\x1f';
const ROW = '\x1e';

/**
 * The page's addresses in ip order, and the total. A plain aggregate over a sorted subquery takes its rows in
 * that order (PostgreSQL's documented alternative to an ORDER BY inside the aggregate, which would sort the
 * page once more).
 */
const window = `FROM (SELECT * FROM addresses WHERE subnet_id = :subnetId ORDER BY ip LIMIT :limit OFFSET :offset) a`;
// The subnet's records counted by their blocks' tallies (migration 0017), which the writing transaction keeps:
// as exact in the statement's snapshot as a count of the records, a row per block of 256 and writer instead
// of an index entry each (a /16 of 60,000 is 235 rows).
const total = '(SELECT coalesce(sum(n), 0) FROM address_tallies WHERE subnet_id = :subnetId)::int AS total';

/** Which page of which subnet. */
type PageOf = { orgId: string; subnetId: string; limit: number; offset: number };

const packedPage = prepared<{ total: number; page: string | null }, PageOf>(
  'addresses_page_packed',
  `SELECT ${total},
     (SELECT string_agg(concat_ws(E'\\x1f', ${PACKED_FIELDS}), E'\\x1e') ${window}) AS page
   FROM subnets s WHERE s.org_id = :orgId AND s.id = :subnetId`,
);

/** The page of `windowSql` as rows of text fields, for a page whose values hold a separator. */
const rowsStatement = <P extends object>(name: string, windowSql: string) =>
  prepared<{ total: number; fields: string[] | null }, P>(
    name,
    `SELECT ${total}, CASE WHEN a.id IS NOT NULL THEN ARRAY[${PACKED_FIELDS}]::text[] END AS fields
     FROM subnets s LEFT JOIN LATERAL (SELECT a.* ${windowSql}) a ON true
     WHERE s.org_id = :orgId AND s.id = :subnetId
     ORDER BY a.ip`,
  );

const pageRows = rowsStatement<PageOf>('addresses_page_rows', window);

/** The packed rows split into their fields, or null when a value held a separator (see above). */
function unpack(page: string | null, expected: number): string[][] | null {
  const rows = page === null ? [] : page.split(ROW);
  if (rows.length !== expected) return null;
  const fields = rows.map((row) => row.split(FIELD));
  return fields.every((f) => f.length === ADDRESS_FIELDS.length) ? fields : null;
}

/**
 * The page after an address (a cursor's): keyset on the subnet's ip index, so a record that exists throughout an
 * iteration is on exactly one page. Its rows are counted beside the packed text (the count an offset page
 * works out from the total).
 */
const windowAfter = `FROM (SELECT * FROM addresses WHERE subnet_id = :subnetId AND ip > :after::inet
  ORDER BY ip LIMIT :limit) a`;
type PageAfter = { orgId: string; subnetId: string; limit: number; after: string };

const packedPageAfter = prepared<{ total: number; page: string | null; n: number }, PageAfter>(
  'addresses_page_after_packed',
  `SELECT ${total}, w.page, w.n FROM subnets s
   CROSS JOIN LATERAL (SELECT string_agg(concat_ws(E'\\x1f', ${PACKED_FIELDS}), E'\\x1e') AS page, count(*)::int AS n
     ${windowAfter}) w
   WHERE s.org_id = :orgId AND s.id = :subnetId`,
);

const pageRowsAfter = rowsStatement<PageAfter>('addresses_page_after_rows', windowAfter);

/** Where a page starts: after `offset` records, or after the address `after` (a cursor's). */
export type PageStart = { offset: number } | { after: string };

/**
 * A page in the API's shape, the subnet's total and whether records follow the page; undefined when the
 * organisation has no such subnet. A page after an address reads one record more, to know.
 */
export async function pageInSubnet(db: Db, orgId: string, subnetId: string, limit: number, start: PageStart) {
  const subnet = subnetId.toLowerCase(); // as PostgreSQL writes a uuid, whatever case the path had
  const read =
    'after' in start
      ? await readPage(
          async () => {
            const [packed] = await packedPageAfter(db, { orgId, subnetId, limit: limit + 1, after: start.after });
            return packed && { ...packed, expected: packed.n };
          },
          () => pageRowsAfter(db, { orgId, subnetId, limit: limit + 1, after: start.after }),
        )
      : await readPage(
          async () => {
            const [packed] = await packedPage(db, { orgId, subnetId, limit, offset: start.offset });
            return packed && { ...packed, expected: Math.max(0, Math.min(limit, packed.total - start.offset)) };
          },
          () => pageRows(db, { orgId, subnetId, limit, offset: start.offset }),
        );
  if (!read) return undefined;
  const more = 'after' in start ? read.fields.length > limit : start.offset + read.fields.length < read.total;
  const page = read.fields.slice(0, limit).map((f) => fromPacked(subnet, f));
  return { total: read.total, page, more };
}

/** The packed page unpacked, else (a value held a separator) the same page as rows. */
async function readPage(
  packed: () => Promise<{ total: number; page: string | null; expected: number } | undefined>,
  rows: () => Promise<{ total: number; fields: string[] | null }[]>,
) {
  const first = await packed();
  if (!first) return undefined;
  const fields = unpack(first.page, first.expected);
  if (fields) return { total: first.total, fields };
  const list = await rows();
  const [head] = list;
  if (!head) return undefined;
  return { total: head.total, fields: list.flatMap((r) => (r.fields ? [r.fields] : [])) };
}

/** Filters of a subnet's address list; each absent one lets every record pass. */
export interface AddressFilter {
  statuses?: string[];
  hostnamePrefix?: string;
  hostnameContains?: string;
  macAddress?: string;
  /** RFC 3339 times, compared by PostgreSQL to the microsecond. */
  createdAfter?: string;
  updatedAfter?: string;
  tags?: TagFilter;
  /** The `cf_` filters. */
  customFields?: CustomFieldFilter;
}

/** The `cf_` filters' condition on the addresses' custom fields, its parameters bound. */
function customFieldsCondition(filter: CustomFieldFilter): SQL {
  const values: Record<string, string> = customFieldFilterParameters(filter);
  const text = customFieldFilterSql('"addresses"."custom_fields"');
  const parameter = (part: string) => values[part.slice(1)];
  return sql.join(
    text
      .split(/(:cfEquals|:cfRanges)/)
      .map((part) => (part.startsWith(':cf') ? sql`${parameter(part)}` : sql.raw(part))),
  );
}

/** `%`, `_` and `\` stand for themselves in a LIKE pattern. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * A page of the subnet's records that pass `filter`, in ip order, with their count (a filtered page is read as rows,
 * not packed: the tallies count the whole subnet); undefined when the organisation has no such subnet. A page after
 * an address reads one record more, to know whether others follow.
 */
export async function filteredPageInSubnet(
  db: Db,
  orgId: string,
  subnetId: string,
  filter: AddressFilter,
  limit: number,
  start: PageStart,
) {
  const [subnet] = await db
    .select({ id: subnets.id })
    .from(subnets)
    .where(and(eq(subnets.orgId, orgId), eq(subnets.id, subnetId)));
  if (!subnet) return undefined;
  const passing = and(
    eq(addresses.orgId, orgId),
    eq(addresses.subnetId, subnetId),
    filter.statuses ? inArray(addresses.status, filter.statuses) : undefined,
    filter.hostnamePrefix !== undefined
      ? ilike(addresses.hostname, `${escapeLike(filter.hostnamePrefix)}%`)
      : undefined,
    filter.hostnameContains !== undefined
      ? ilike(addresses.hostname, `%${escapeLike(filter.hostnameContains)}%`)
      : undefined,
    filter.macAddress !== undefined ? eq(addresses.macAddress, filter.macAddress) : undefined,
    filter.createdAfter ? sql`${addresses.createdAt} > ${filter.createdAfter}::timestamptz` : undefined,
    filter.updatedAfter ? sql`${addresses.updatedAt} > ${filter.updatedAfter}::timestamptz` : undefined,
    taggedAs(addresses.tags, filter.tags),
    filter.customFields ? customFieldsCondition(filter.customFields) : undefined,
  );
  const [counted] = await db.select({ n: count() }).from(addresses).where(passing);
  const total = counted?.n ?? 0;
  const after = 'after' in start ? start.after : null;
  const rows = await db
    .select()
    .from(addresses)
    .where(and(passing, after === null ? undefined : sql`${addresses.ip} > ${after}::inet`))
    .orderBy(asc(addresses.ip))
    .limit(after === null ? limit : limit + 1)
    .offset('offset' in start ? start.offset : 0);
  const more = after === null ? ('offset' in start ? start.offset : 0) + rows.length < total : rows.length > limit;
  return { total, page: rows.slice(0, limit).map(toDto), more };
}
