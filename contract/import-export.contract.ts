import { extendApi, generateSchema } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { DryRunQuery, dryRunnable } from './common/dry-run';
import { errors } from './common/errors';
import { IdempotencyHeaders, idempotent } from './common/idempotency';
import { access, heavy } from './common/meta';
import { CustomFields, streamedText, text, Uuid } from './common/schemas';
import { RangeRole } from './ranges.contract';
import { TAGS_PER_RESOURCE_MAX, TagNames } from './tags.contract';

const c = initContract();
const meta = access('Import and export');

/** Import row limit per request (spec Limits). */
export const IMPORT_MAX_ROWS = 1000;

const cidr = () => z.string().trim().cidr({ message: 'must be a CIDR such as 10.0.0.0/24 or 2001:db8::/48' });
const ip = () => z.string().trim().ip({ message: 'must be an IPv4 or IPv6 address' });
const refName = () => z.string().trim().min(1, 'must not be empty').max(200);
/** An imported row's tags, by name: created when missing, as folders are (the export writes them comma-separated). */
const ImportTags = TagNames.optional().describe(
  `Tag names, at most ${TAGS_PER_RESOURCE_MAX}; a tag the organisation lacks is created (within the plan's tag limit)`,
);

export const ImportSubnetRow = extendApi(
  z
    .object({
      network: cidr().describe('CIDR of the subnet (IPv4 or IPv6)'),
      name: text(200).optional().describe('Display name of the subnet, e.g. Servers'),
      folder: refName().optional().describe('Folder name; created when missing'),
      vlan: z.number().int().min(1).max(4094).optional().describe('VLAN number 1 to 4094; created when missing'),
      vrf: z
        .string()
        .trim()
        .max(200)
        .optional()
        .describe('VRF name; created when missing. Omit, or give "", for the global (no-VRF) space'),
      location: refName().optional().describe('Location name; created when missing'),
      gateway: ip().optional().describe('Gateway IP address'),
      is_pool: z.boolean().optional().describe('Pool: network and broadcast addresses are assignable'),
      description: text().optional().describe('Free-text description of the subnet, e.g. Rack R12 servers'),
      dns_primary: ip().optional().describe('Primary DNS server IP address, e.g. 10.0.0.53'),
      dns_secondary: ip().optional().describe('Secondary DNS server IP address, e.g. 10.0.0.54'),
      scan_enabled: z.boolean().optional().describe('Whether the subnet is included in periodic reachability scans'),
      tracked: z.boolean().default(true).describe('false makes a structure-only container excluded from utilization'),
      tags: ImportTags,
      custom_fields: CustomFields.optional(),
    })
    .strict(),
  {
    title: 'ImportSubnetRow',
    description: 'One subnet to import; related folder, VLAN, VRF and location are given by name (number for the VLAN)',
    example: {
      network: '10.20.0.0/24',
      name: 'Office LAN',
      folder: 'Datacenter A',
      vlan: 120,
      vrf: 'corp',
      location: 'Berlin',
      gateway: '10.20.0.1',
      is_pool: false,
      dns_primary: '10.0.0.53',
      tracked: true,
    },
  },
);

/**
 * The rows of an import. The server checks each row against `row` on its own, so a malformed row is an
 * `error` result while the others still import; the body itself accepts any row, and the document shows `row`.
 */
const rowsOf = (row: z.ZodTypeAny) =>
  extendApi(
    z
      .array(z.unknown())
      .min(1, 'must contain at least one row')
      .max(IMPORT_MAX_ROWS, `at most ${IMPORT_MAX_ROWS} rows per import`)
      .describe('Rows to import, 1 to 1,000, processed in order'),
    { items: { ...generateSchema(row), nullable: false } },
  );

export const ImportSubnetsBody = extendApi(
  z
    .object({
      subnets: rowsOf(ImportSubnetRow),
    })
    .strict(),
  {
    title: 'ImportSubnetsBody',
    description: 'Subnets to import (body at most 10 MB)',
    example: {
      subnets: [
        { network: '10.20.0.0/16', name: 'Campus', folder: 'Datacenter A' },
        { network: '10.20.1.0/24', name: 'Office LAN', vlan: 120, gateway: '10.20.1.1' },
      ],
    },
  },
);

export const ImportAddressRow = extendApi(
  z
    .object({
      ip: ip().describe('IP address; must lie inside `subnet`'),
      subnet: cidr().describe('CIDR of an existing subnet of the organisation that holds the address'),
      vrf: z
        .string()
        .trim()
        .max(200)
        .optional()
        .describe(
          'VRF of the subnet, by name; "" for the global (no-VRF) space (as the `vrf` column of the export writes ' +
            'it). Omitted: the only subnet with this CIDR, whatever its space; a CIDR in several spaces is then ' +
            'an error row naming them',
        ),
      hostname: text(253).optional().describe('Hostname, e.g. web-01.example.com'),
      mac_address: z
        .string()
        .trim()
        .regex(/^[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5}$/, 'must be colon-separated hex such as 00:1a:2b:3c:4d:5e')
        .optional()
        .describe('MAC address, colon-separated hex'),
      description: text().optional().describe('Free-text description of the address, e.g. Primary web server'),
      status: z
        .enum(['assigned', 'reserved', 'd-dhcp', 'm-dhcp', 'gateway'])
        .optional()
        .describe('Address status; default `assigned`'),
      owner: text(200).optional().describe('Person or team responsible for the address, e.g. netops'),
      ptr_record: text(253).optional().describe('PTR (reverse DNS) name'),
      tags: ImportTags,
      custom_fields: CustomFields.optional(),
    })
    .strict(),
  {
    title: 'ImportAddressRow',
    description: 'One address to import into an existing subnet',
    example: {
      ip: '10.20.1.10',
      subnet: '10.20.1.0/24',
      hostname: 'printer-2f',
      mac_address: '00:1a:2b:3c:4d:5e',
      status: 'assigned',
      owner: 'facilities',
    },
  },
);

export const ImportAddressesBody = extendApi(
  z
    .object({
      addresses: rowsOf(ImportAddressRow),
    })
    .strict(),
  {
    title: 'ImportAddressesBody',
    description: 'Addresses to import (body at most 10 MB)',
    example: {
      addresses: [
        { ip: '10.20.1.10', subnet: '10.20.1.0/24', hostname: 'printer-2f' },
        { ip: '10.20.1.11', subnet: '10.20.1.0/24', hostname: 'ap-2f', status: 'reserved' },
      ],
    },
  },
);

export const ImportRangeRow = extendApi(
  z
    .object({
      subnet: cidr().describe('CIDR of an existing subnet of the organisation that holds the range'),
      vrf: z
        .string()
        .trim()
        .max(200)
        .optional()
        .describe('VRF of the subnet, by name; "" for the global space; omitted: the only subnet with this CIDR'),
      start: ip().describe('First address of the range, inside the subnet'),
      end: ip().describe('Last address of the range (included), inside the subnet, not before start'),
      role: RangeRole,
      description: text().optional().describe('Free-text description, e.g. Office DHCP pool'),
    })
    .strict(),
  {
    title: 'ImportRangeRow',
    description: 'One IP range to import into an existing subnet',
    example: { subnet: '10.20.1.0/24', start: '10.20.1.100', end: '10.20.1.199', role: 'dhcp' },
  },
);

export const ImportRangesBody = extendApi(
  z
    .object({
      ranges: rowsOf(ImportRangeRow),
    })
    .strict(),
  {
    title: 'ImportRangesBody',
    description: 'IP ranges to import (body at most 10 MB)',
    example: {
      ranges: [
        { subnet: '10.20.1.0/24', start: '10.20.1.100', end: '10.20.1.199', role: 'dhcp' },
        { subnet: '10.20.1.0/24', start: '10.20.1.2', end: '10.20.1.9', role: 'reserved', description: 'Routers' },
      ],
    },
  },
);

const rowFields = {
  row: z.number().int().min(1).describe('Position of the row in the request, from 1'),
  status: z
    .enum(['created', 'skipped', 'error'])
    .describe(
      '`created`; `skipped`: already present (the same network in the same space, or an IP already assigned), ' +
        'nothing changed; `error`: not imported, see `error` (an invalid row, a subnet that does not exist, a plan ' +
        'limit reached)',
    ),
  id: Uuid.nullable().describe('Id of the created object; null when skipped or errored'),
};
const rowError = z.string().optional().describe('Why the row was skipped or errored; omitted when created');

export const ImportSummary = extendApi(
  z
    .object({
      created: z.number().int().nonnegative().describe('Number of rows created'),
      skipped: z.number().int().nonnegative().describe('Number of rows skipped (already present)'),
      errors: z.number().int().nonnegative().describe('Number of rows that failed'),
    })
    .strict(),
  { title: 'ImportSummary', description: 'Row counts by status', example: { created: 2, skipped: 1, errors: 0 } },
);

export const ImportSubnetResult = extendApi(
  z
    .object({
      ...rowFields,
      network: z.string().describe('The row’s network'),
      error: rowError,
    })
    .strict(),
  {
    title: 'ImportSubnetResult',
    description: 'Outcome of one subnet row',
    example: { row: 1, status: 'created', id: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f', network: '10.20.0.0/16' },
  },
);

export const ImportAddressResult = extendApi(
  z
    .object({
      ...rowFields,
      ip: z.string().describe('The row’s IP address'),
      error: rowError,
    })
    .strict(),
  {
    title: 'ImportAddressResult',
    description: 'Outcome of one address row',
    example: { row: 1, status: 'created', id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', ip: '10.20.1.10' },
  },
);

export const ImportRangeResult = extendApi(
  z
    .object({
      ...rowFields,
      start: z.string().describe('The row’s first address'),
      error: rowError,
    })
    .strict(),
  {
    title: 'ImportRangeResult',
    description: 'Outcome of one range row',
    example: { row: 1, status: 'created', id: '2b7c1d4e-9f3a-4c5b-8d6e-7f8091a2b3c4', start: '10.20.1.100' },
  },
);

export const ImportSubnetsResponse = extendApi(
  z
    .object({
      results: z.array(ImportSubnetResult).describe('One entry per row, in request order'),
      summary: ImportSummary,
    })
    .strict(),
  {
    title: 'ImportSubnetsResponse',
    description: 'Per-row outcome and totals of a subnet import',
    example: {
      results: [
        { row: 1, status: 'created', id: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f', network: '10.20.0.0/16' },
        {
          row: 2,
          status: 'skipped',
          id: null,
          network: '10.20.1.0/24',
          error: 'duplicate: 10.20.1.0/24 already exists in the global space',
        },
      ],
      summary: { created: 1, skipped: 1, errors: 0 },
    },
  },
);

export const ImportAddressesResponse = extendApi(
  z
    .object({
      results: z.array(ImportAddressResult).describe('One entry per row, in request order'),
      summary: ImportSummary,
    })
    .strict(),
  {
    title: 'ImportAddressesResponse',
    description: 'Per-row outcome and totals of an address import',
    example: {
      results: [
        { row: 1, status: 'created', id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', ip: '10.20.1.10' },
        { row: 2, status: 'skipped', id: null, ip: '10.20.1.11', error: 'ip: 10.20.1.11 is already assigned' },
        {
          row: 3,
          status: 'error',
          id: null,
          ip: '10.20.1.12',
          error: 'Plan limit reached: 1500 IP addresses (you have 1500). Upgrade the plan to add more.',
        },
      ],
      summary: { created: 1, skipped: 1, errors: 1 },
    },
  },
);

export const ImportRangesResponse = extendApi(
  z
    .object({
      results: z.array(ImportRangeResult).describe('One entry per row, in request order'),
      summary: ImportSummary,
    })
    .strict(),
  {
    title: 'ImportRangesResponse',
    description: 'Per-row outcome and totals of a range import',
    example: {
      results: [
        { row: 1, status: 'created', id: '2b7c1d4e-9f3a-4c5b-8d6e-7f8091a2b3c4', start: '10.20.1.100' },
        {
          row: 2,
          status: 'error',
          id: null,
          start: '10.20.1.150',
          error: 'start: 10.20.1.150–10.20.1.160 overlaps the range 10.20.1.100–10.20.1.199 of 10.20.1.0/24',
        },
      ],
      summary: { created: 1, skipped: 0, errors: 1 },
    },
  },
);

export const ExportSubnetsQuery = z
  .object({ folder_id: Uuid.optional().describe('Export only the subnets of this folder') })
  .strict();

export const ExportRangesQuery = z
  .object({ subnet_id: Uuid.optional().describe('Export only the ranges of this subnet; omit for all') })
  .strict();

export const ExportAddressesQuery = z
  .object({ subnet_id: Uuid.optional().describe('Export only the addresses of this subnet; omit for all') })
  .strict();

const SubnetsCsv = streamedText({
  description:
    'CSV with a header row; columns network, name, description, folder, vlan, vrf, location, gateway, dns_primary, ' +
    'dns_secondary, is_pool, scan_enabled, tracked, tags',
  example:
    'network,name,description,folder,vlan,vrf,location,gateway,dns_primary,dns_secondary,is_pool,scan_enabled,tracked,tags\n' +
    '10.20.1.0/24,Office LAN,,Datacenter A,120,corp,Berlin,10.20.1.1,10.0.0.53,,false,false,true,"office,v4"\n',
});

const AddressesCsv = streamedText({
  description:
    'CSV with a header row; columns ip, subnet, hostname, mac_address, description, status, owner, ptr_record, vrf, ' +
    'tags',
  example:
    'ip,subnet,hostname,mac_address,description,status,owner,ptr_record,vrf,tags\n' +
    '10.20.1.10,10.20.1.0/24,printer-2f,00:1a:2b:3c:4d:5e,,assigned,facilities,,corp,printer\n',
});

const RangesCsv = streamedText({
  description: 'CSV with a header row; columns subnet, vrf, start, end, role, description',
  example: 'subnet,vrf,start,end,role,description\n10.20.1.0/24,corp,10.20.1.100,10.20.1.199,dhcp,Office DHCP pool\n',
});

export const importContract = c.router({
  importSubnets: {
    method: 'POST',
    path: '/import/subnets',
    summary: 'Import subnets',
    description:
      'Creates up to 1,000 subnets in one request (body at most 10 MB, else 413), in row order, each through the ' +
      'rules of `POST /subnets`: the network is normalised and nests under its smallest container, adopting the ' +
      'subnets and addresses it covers (so a parent imported after its children nests them). Folders, VLANs, ' +
      'VRFs and locations referenced by name (VLAN by number) are created when missing, once each. Every row ' +
      'gets a result: `created`; `skipped` for a duplicate (the same network in the same VRF, or in the global ' +
      'space, including an earlier row of the import); `error` with the reason for an invalid row (a bad CIDR, ' +
      'host bits set, a gateway outside the network, an unknown field, custom_fields past their bounds) or one ' +
      'that would exceed a plan limit. ' +
      'Rows imported are kept whatever happens to later rows (no rollback), so plan limits are reported per row ' +
      'rather than as 402. Each created subnet gets an `import` activity entry and a `subnet.created` event.',
    metadata: dryRunnable(heavy(idempotent(meta.write))),
    query: DryRunQuery,
    headers: IdempotencyHeaders,
    body: ImportSubnetsBody,
    responses: { 200: ImportSubnetsResponse, ...errors(400, 401, 403, 409, 413, 415, 422, 429) },
  },
  importAddresses: {
    method: 'POST',
    path: '/import/addresses',
    summary: 'Import addresses',
    description:
      'Creates up to 1,000 address records in one request (body at most 10 MB, else 413), in row order, each in ' +
      'the existing subnet given by its CIDR (`subnet`) in the VRF named `vrf` (`""`: the global space); ' +
      'without `vrf`, the only subnet with that CIDR, whatever its space (a CIDR in several spaces is then an ' +
      'error row naming them). Every row gets a result: `created`; ' +
      '`skipped` for an IP already assigned in that space (or by an earlier row of the import); `error` with the ' +
      'reason for an invalid row (unknown field, bad MAC, custom_fields past their bounds), a subnet that does ' +
      'not exist, is ambiguous, or is deleted or split while the import runs, an IP ' +
      'outside it, its network or broadcast address, or inside one of its child subnets, or a row that would ' +
      'exceed the plan’s address limit. Rows imported are kept (no rollback). Each created ' +
      'address gets an `import` activity entry and an `address.created` event.',
    metadata: dryRunnable(heavy(idempotent(meta.write))),
    query: DryRunQuery,
    headers: IdempotencyHeaders,
    body: ImportAddressesBody,
    responses: { 200: ImportAddressesResponse, ...errors(400, 401, 403, 409, 413, 415, 422, 429) },
  },
  importRanges: {
    method: 'POST',
    path: '/import/ranges',
    summary: 'Import IP ranges',
    description:
      'Creates up to 1,000 IP ranges in one request (body at most 10 MB, else 413), in row order, each in the ' +
      'existing subnet given by its CIDR (`subnet`) and `vrf`, as the address import finds it, through the rules ' +
      'of `POST /subnets/{id}/ranges`. Every row gets a result: `created`; `skipped` for a range the subnet ' +
      'already has (the same start and end); `error` with the reason for an invalid row, a subnet that does not ' +
      'exist or is ambiguous, a range outside it, overlapping another (an earlier row’s included), or past the ' +
      'most ranges a subnet holds. Rows imported are kept (no rollback). Each created range gets an `import` ' +
      'activity entry.',
    metadata: dryRunnable(heavy(idempotent(meta.write))),
    query: DryRunQuery,
    headers: IdempotencyHeaders,
    body: ImportRangesBody,
    responses: { 200: ImportRangesResponse, ...errors(400, 401, 403, 409, 413, 415, 422, 429) },
  },
});

/** How both exports write CSV. */
const CSV_FORMAT =
  'RFC 4180: CRLF line ends, a field holding a comma, quote or line break is quoted and its quotes doubled. ' +
  'A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return (a formula to a spreadsheet), or with ' +
  "`'`, gets a leading `'`: take one leading `'` off any cell to get the value. Streamed as it is read; " +
  '`Content-Disposition` names the file (`subnets-<date>.csv`, `addresses-<date>.csv`, `ranges-<date>.csv`).';

export const exportContract = c.router({
  exportSubnets: {
    method: 'GET',
    path: '/export/subnets',
    summary: 'Export subnets as CSV',
    description:
      'All subnets of the organisation, or of the folder `folder_id` (404 when it does not exist), as CSV ' +
      '(`text/csv`) with a header row. Columns: network, name, description, folder, vlan, vrf, location, gateway, ' +
      'dns_primary, dns_secondary, is_pool, scan_enabled, tracked, tags (names separated by commas), then ' +
      'custom_fields (the object as JSON, empty when unset; these two last, so readers by position are unaffected). ' +
      'Related items are given by name (the VLAN by ' +
      'number); unset values are empty; rows in (VRF, network) order. ' +
      CSV_FORMAT +
      ' The rows can be turned back into import rows.',
    metadata: heavy(meta.read),
    query: ExportSubnetsQuery,
    responses: {
      200: c.otherResponse({ contentType: 'text/csv', body: SubnetsCsv }),
      ...errors(400, 401, 403, 404, 429),
    },
  },
  exportAddresses: {
    method: 'GET',
    path: '/export/addresses',
    summary: 'Export addresses as CSV',
    description:
      'All address records of the organisation, or of the subnet `subnet_id` (404 when it does not exist), as CSV ' +
      '(`text/csv`) with a header row. Columns: ip, subnet (the CIDR of the address’s subnet), hostname, ' +
      'mac_address, description, status, owner, ptr_record, vrf (the VRF of the subnet, empty in the global ' +
      'space), tags (names separated by commas), custom_fields (the object as JSON; these three after the other ' +
      'columns, so readers by position are unaffected); unset values are empty; rows in ' +
      '(VRF, ip) order. ' +
      CSV_FORMAT +
      ' The rows can be turned back into import rows: `vrf` as written, empty included, tells the subnet apart ' +
      'when its CIDR is in several spaces.',
    metadata: heavy(meta.read),
    query: ExportAddressesQuery,
    responses: {
      200: c.otherResponse({ contentType: 'text/csv', body: AddressesCsv }),
      ...errors(400, 401, 403, 404, 429),
    },
  },
  exportRanges: {
    method: 'GET',
    path: '/export/ranges',
    summary: 'Export IP ranges as CSV',
    description:
      'All IP ranges of the organisation, or of the subnet `subnet_id` (404 when it does not exist), as CSV ' +
      '(`text/csv`) with a header row. Columns: subnet (its CIDR), vrf (the subnet’s VRF, empty in the global ' +
      'space), start, end, role, description; rows in (VRF, subnet, start) order. ' +
      CSV_FORMAT +
      ' The rows are import rows of `POST /import/ranges` as they stand.',
    metadata: heavy(meta.read),
    query: ExportRangesQuery,
    responses: {
      200: c.otherResponse({ contentType: 'text/csv', body: RangesCsv }),
      ...errors(400, 401, 403, 404, 429),
    },
  },
});
