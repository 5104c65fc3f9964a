/**
 * The one definition of an address as the API shows it: each field's name, how a row gives it, and how a
 * packed page (address-page.repo.ts) writes and reads it. The DTO of a row, the page's SQL and its decoder are
 * all derived from this list, and the columns a statement returns from the schema, so a field is added once.
 */
import type { z } from 'zod';
import type { Address } from '../../../contract/addresses.contract';
import { columnsOf } from '../../db/columns';
import { addresses } from '../../db/schema';
import { isoTimestamp } from '../../db/timestamps';

export type AddressRow = typeof addresses.$inferSelect;
export type AddressDto = z.infer<typeof Address>;

/** A field of the API's address other than `subnet_id` (a page's subnet, or the row's). */
interface Field {
  name: Exclude<keyof AddressDto, 'subnet_id'>;
  /** Its value in a row; undefined leaves an optional field out. */
  ofRow: (row: AddressRow) => unknown;
  /** Its text in a packed page, an expression over the row `a`. */
  packed: string;
  /** Its value from that text. */
  ofText: (text: string) => unknown;
  /** May be absent: packed as '' when absent, else marked by a leading '=' (an empty text is a value). */
  optional?: boolean;
}

const same = (text: string) => text;

/** The fields in the order the API writes them (`subnet_id` goes after `id`). */
export const ADDRESS_FIELDS: readonly Field[] = [
  { name: 'id', ofRow: (row) => row.id, packed: 'a.id::text', ofText: same },
  { name: 'ip', ofRow: (row) => row.ip, packed: 'host(a.ip)', ofText: same },
  { name: 'hostname', ofRow: (row) => row.hostname, packed: 'a.hostname', ofText: same },
  { name: 'mac_address', ofRow: (row) => row.macAddress, packed: 'a.mac_address', ofText: same },
  { name: 'description', ofRow: (row) => row.description, packed: 'a.description', ofText: same },
  { name: 'status', ofRow: (row) => row.status, packed: 'a.status', ofText: same },
  { name: 'owner', ofRow: (row) => row.owner, packed: 'a.owner', ofText: same },
  {
    name: 'ptr_record',
    ofRow: (row) => row.ptrRecord ?? undefined,
    packed: 'a.ptr_record',
    ofText: same,
    optional: true,
  },
  {
    name: 'tags',
    ofRow: (row) => (row.tags.length > 0 ? row.tags : undefined),
    packed: "CASE WHEN a.tags <> '{}' THEN array_to_json(a.tags)::text END",
    ofText: (text) => JSON.parse(text),
    optional: true,
  },
  {
    name: 'custom_fields',
    ofRow: (row) => row.customFields ?? undefined,
    packed: 'a.custom_fields::text',
    ofText: (text) => JSON.parse(text),
    optional: true,
  },
  {
    name: 'last_seen',
    ofRow: (row) => row.lastSeen?.toISOString(),
    packed: 'a.last_seen::text',
    ofText: isoTimestamp,
    optional: true,
  },
  {
    name: 'expires_at',
    ofRow: (row) => row.expiresAt?.toISOString(),
    packed: 'a.expires_at::text',
    ofText: isoTimestamp,
    optional: true,
  },
  {
    name: 'created_at',
    ofRow: (row) => row.createdAt.toISOString(),
    packed: 'a.created_at::text',
    ofText: isoTimestamp,
  },
  {
    name: 'updated_at',
    ofRow: (row) => row.updatedAt.toISOString(),
    packed: 'a.updated_at::text',
    ofText: isoTimestamp,
  },
];

/** Each field's text in a packed page, in ADDRESS_FIELDS' order (SQL expressions over the row `a`). */
export const PACKED_FIELDS = ADDRESS_FIELDS.map((field) =>
  field.optional ? `coalesce('=' || ${field.packed}, '')` : field.packed,
).join(', ');

/** An address as the API shows it, of each field's value (undefined: absent), in ADDRESS_FIELDS' order. */
function build(subnetId: string, fieldValue: (field: Field, i: number) => unknown): AddressDto {
  const address: Record<string, unknown> = {};
  ADDRESS_FIELDS.forEach((field, i) => {
    const value = fieldValue(field, i);
    if (value !== undefined) address[field.name] = value;
    if (field.name === 'id') address.subnet_id = subnetId;
  });
  // Every field of Address, each as its type (statuses are checked on the way in).
  return address as AddressDto;
}

/** The API's address of a row. */
export const toDto = (row: AddressRow): AddressDto => build(row.subnetId, (field) => field.ofRow(row));

/** The API's address of a packed page's texts (`texts[i]` that of ADDRESS_FIELDS[i]), in the subnet. */
export const fromPacked = (subnetId: string, texts: readonly string[]): AddressDto =>
  build(subnetId, (field, i) => {
    const text = texts[i] ?? '';
    if (!field.optional) return field.ofText(text);
    return text === '' ? undefined : field.ofText(text.slice(1));
  });

/** Every column of an address row, named as drizzle names a row's: the RETURNING list of raw statements. */
export const ADDRESS_COLUMNS = columnsOf(addresses);
