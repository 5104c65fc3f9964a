/** Schemas of subnets: the resource, its create/update bodies and the answers of its space questions. */
import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';
import { CustomFields, describedUuid, PageCursor, queryInt, Timestamp, text, Uuid } from './common/schemas';
import { withCustomFieldFilters } from './custom-fields.contract';
import { ResourceTags, TagFilterQuery, TagNames } from './tags.contract';

/** A CIDR block, IPv4 or IPv6, e.g. `10.0.0.0/24` or `2001:db8::/48`. */
const Cidr = () => z.string().cidr();
/** A single IPv4 or IPv6 address, e.g. `10.0.0.1` or `2001:db8::1`. */
const IpAddress = () => z.string().ip();

/**
 * A count of addresses: an integer of any size (an IPv6 /0 holds 2^128), written exactly in the JSON text.
 * A count past 2^53 is a bigint here, and the document says `integer` (no format: int64 is too small).
 */
export const addressCount = (description: string) =>
  extendApi(z.union([z.number().int().nonnegative(), z.bigint().nonnegative()]), {
    type: 'integer',
    minimum: 0,
    oneOf: undefined,
    description:
      `${description}. Exact in the JSON text however large (2^128 for an IPv6 /0); past 2^53 ` +
      '(9007199254740992) a JSON parser that reads numbers as doubles rounds it: the SDK answers a bigint there',
  });

const subnetShape = {
  id: describedUuid('Unique id of the subnet (UUID)'),
  folder_id: Uuid.nullable().describe('Folder holding the subnet; null when unfoldered'),
  parent_id: Uuid.optional().describe('Smallest containing subnet in the same VRF; omitted for a top-level subnet'),
  network: z.string().describe('CIDR block, IPv4 or IPv6, e.g. 10.0.0.0/24 or 2001:db8::/48; immutable'),
  name: z.string().describe('Display name of the subnet, e.g. Servers'),
  description: z.string().describe('Free-text description of the subnet; empty when unset'),
  vlan_id: Uuid.nullable().describe('VLAN the subnet is attached to; null when none'),
  vrf_id: Uuid.nullable().describe('VRF (address space) of the subnet; null for the global space'),
  location_id: Uuid.nullable().describe('Location of the subnet; null when none'),
  is_pool: z.boolean().describe('A pool: every address is usable, network and broadcast included'),
  gateway: z.string().nullable().describe('Gateway IP address; null when unset'),
  dns_primary: z.string().nullable().describe('Primary DNS server IP address; null when unset'),
  dns_secondary: z.string().nullable().describe('Secondary DNS server IP address; null when unset'),
  scan_enabled: z.boolean().describe('Whether the subnet is included in periodic reachability scans'),
  tracked: z
    .boolean()
    .describe('false makes a structure-only container excluded from the utilization statistics of its ancestors'),
  utilization: z.number().min(0).max(1).describe('Fraction of used over total addresses, 0 to 1'),
  used_count: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe('Address records in the subnet and its tracked descendants; omitted when unset'),
  total_count: addressCount('Usable addresses of the subnet; omitted when unset').optional(),
  folder_name: z.string().nullable().describe('Resolved folder name; null when the subnet has no folder'),
  vlan_number: z.number().int().min(1).max(4094).optional().describe('Resolved VLAN number; omitted when unset'),
  vrf_name: z.string().optional().describe('Resolved VRF name; omitted when unset'),
  location_name: z.string().optional().describe('Resolved location name; omitted when unset'),
  tags: ResourceTags.optional(),
  custom_fields: CustomFields.optional(),
  created_at: Timestamp,
  updated_at: Timestamp,
};

const subnetExample = {
  id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
  folder_id: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f',
  parent_id: '9b2d4f60-1c3e-4a5b-8d7f-0e1a2b3c4d5e',
  network: '10.0.1.0/24',
  name: 'Servers',
  description: 'Rack R12 servers',
  vlan_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  vrf_id: null,
  location_id: 'c0ffee00-1234-4abc-9def-0123456789ab',
  is_pool: false,
  gateway: '10.0.1.1',
  dns_primary: '10.0.0.53',
  dns_secondary: null,
  scan_enabled: false,
  tracked: true,
  utilization: 0.1653543307,
  used_count: 42,
  total_count: 254,
  folder_name: 'Datacenter A',
  vlan_number: 120,
  location_name: 'Frankfurt DC1',
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-23T08:30:00.000Z',
};

export const Subnet = extendApi(z.object(subnetShape).strict(), {
  title: 'Subnet',
  description:
    'A CIDR range (IPv4 such as 10.0.1.0/24 or IPv6 such as 2001:db8::/48) with utilization statistics and resolved names',
  example: subnetExample,
});

export const SubnetChild = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the child subnet (UUID)'),
      network: z.string().describe('CIDR block of the child subnet'),
      name: z.string().describe('Display name of the child subnet, e.g. Servers A'),
    })
    .strict(),
  {
    title: 'SubnetChild',
    description: 'A direct child of a subnet',
    example: { id: 'd4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70', network: '10.0.1.0/26', name: 'Servers A' },
  },
);

export const SubnetDetail = extendApi(
  z
    .object({
      ...subnetShape,
      children: z.array(SubnetChild).describe('Direct child subnets (one level down)'),
    })
    .strict(),
  {
    title: 'SubnetDetail',
    description: 'A subnet with its utilization and its direct children',
    example: {
      ...subnetExample,
      children: [
        { id: 'd4e5f6a7-b8c9-4d0e-8f1a-2b3c4d5e6f70', network: '10.0.1.0/26', name: 'Servers A' },
        { id: 'e5f6a7b8-c9d0-4e1f-9a2b-3c4d5e6f7081', network: '10.0.1.64/26', name: 'Servers B' },
      ],
    },
  },
);

export const SubnetOverlapWarning = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the overlapping subnet (UUID)'),
      network: z.string().describe('CIDR block of the overlapping subnet'),
      name: z.string().describe('Display name of the overlapping subnet, e.g. Customer A core'),
      vrf_name: z.string().describe('VRF the overlapping subnet belongs to'),
    })
    .strict(),
  {
    title: 'SubnetOverlapWarning',
    description: 'A subnet in another VRF whose range overlaps the new subnet',
    example: {
      id: 'f6a7b8c9-d0e1-4f2a-8b3c-4d5e6f708192',
      network: '10.0.0.0/16',
      name: 'Customer A core',
      vrf_name: 'customer-a',
    },
  },
);

export const SubnetCreatedWithWarnings = extendApi(
  z
    .object({
      subnet: SubnetDetail,
      warnings: z.array(SubnetOverlapWarning).describe('Overlapping ranges in other VRFs'),
    })
    .strict(),
  {
    title: 'SubnetCreatedWithWarnings',
    description:
      'The created subnet, when it was created without a VRF and overlaps ranges in other VRFs. The create succeeded.',
    example: {
      subnet: subnetExample,
      warnings: [
        {
          id: 'f6a7b8c9-d0e1-4f2a-8b3c-4d5e6f708192',
          network: '10.0.0.0/16',
          name: 'Customer A core',
          vrf_name: 'customer-a',
        },
      ],
    },
  },
);

const uuidOrNull = (what: string) => Uuid.nullable().optional().describe(`${what} id, or null for none`);

export const CreateSubnetBody = extendApi(
  z
    .object({
      network: Cidr().describe('CIDR block, IPv4 or IPv6, e.g. 10.0.0.0/24 or 2001:db8::/48. Required; immutable'),
      name: text(200).optional().describe('Display name of the subnet, e.g. Servers'),
      description: text().optional().describe('Free-text description of the subnet, e.g. Rack R12 servers'),
      folder_id: uuidOrNull('Folder'),
      vlan_id: uuidOrNull('VLAN'),
      vrf_id: uuidOrNull('VRF (omit or null for the global space)'),
      location_id: uuidOrNull('Location'),
      gateway: IpAddress().optional().describe('Gateway IP inside the network, e.g. 10.0.0.1 or 2001:db8::1'),
      dns_primary: IpAddress().optional().describe('Primary DNS server IP (IPv4 or IPv6)'),
      dns_secondary: IpAddress().optional().describe('Secondary DNS server IP (IPv4 or IPv6)'),
      is_pool: z.boolean().optional().describe('Pool: every address is usable, network and broadcast included'),
      tracked: z.boolean().optional().describe('Default true; false makes a structure-only container'),
      scan_enabled: z.boolean().optional().describe('Whether the subnet is included in periodic reachability scans'),
      tags: TagNames.optional(),
      custom_fields: CustomFields.optional(),
    })
    .strict(),
  {
    title: 'CreateSubnetBody',
    description: 'VLAN and VRF are given by id on create',
    example: {
      network: '10.0.1.0/24',
      name: 'Servers',
      folder_id: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f',
      gateway: '10.0.1.1',
      dns_primary: '10.0.0.53',
    },
  },
);

/** '' clears; otherwise a VLAN number 1..4094 written in digits, without leading zeros. */
const VlanRef = z
  .string()
  .regex(
    /^(?:|[1-9]\d{0,2}|[1-3]\d{3}|40[0-8]\d|409[0-4])$/,
    'must be a VLAN number from 1 to 4094, or empty to clear',
  );

/** Most subnets one allocation creates. */
export const ALLOCATE_MAX_SUBNETS = 64;

export const AllocateSubnetsBody = extendApi(
  CreateSubnetBody.pick({
    name: true,
    description: true,
    folder_id: true,
    vlan_id: true,
    location_id: true,
    is_pool: true,
    tracked: true,
    scan_enabled: true,
    custom_fields: true,
  }).extend({
    prefix_length: z
      .number()
      .int()
      .min(1)
      .max(128)
      .describe('Prefix length of the new subnets, longer than the parent’s, e.g. 26 for /26 blocks'),
    count: z
      .number()
      .int()
      .min(1)
      .max(ALLOCATE_MAX_SUBNETS)
      .default(1)
      .describe('How many subnets to allocate, 1 to 64 (default 1)'),
  }),
  {
    title: 'AllocateSubnetsBody',
    description: 'The size and number of child subnets to carve out of the lowest free blocks, and their fields',
    example: { prefix_length: 26, count: 2, name: 'k8s nodes' },
  },
);

export const UpdateSubnetBody = extendApi(
  z
    .object({
      name: text(200).optional().describe('Display name of the subnet, e.g. Servers'),
      description: text().optional().describe('Free-text description of the subnet'),
      folder_id: uuidOrNull('Folder'),
      location_id: uuidOrNull('Location'),
      vlan: VlanRef.optional().describe(
        'VLAN number 1 to 4094 as a string, e.g. "120"; created when missing; an empty string clears the VLAN',
      ),
      vrf: z
        .string()
        .trim()
        .max(200)
        .optional()
        .describe(
          'VRF name; created when missing; an empty string moves the subnet to the global space. Moving is duplicate-checked',
        ),
      is_pool: z.boolean().optional().describe('A pool: every address is usable, network and broadcast included'),
      tracked: z
        .boolean()
        .optional()
        .describe('false makes a structure-only container excluded from the utilization statistics of its ancestors'),
      scan_enabled: z.boolean().optional().describe('Whether the subnet is included in periodic reachability scans'),
      gateway: IpAddress().nullable().optional().describe('Gateway IP (IPv4 or IPv6); null clears'),
      dns_primary: IpAddress().nullable().optional().describe('Primary DNS server IP; null clears'),
      dns_secondary: IpAddress().nullable().optional().describe('Secondary DNS server IP; null clears'),
      tags: TagNames.optional(),
      custom_fields: CustomFields.optional(),
    })
    .strict(),
  {
    title: 'UpdateSubnetBody',
    description: 'Only the fields given change. `network` cannot be changed.',
    example: { name: 'Servers (B1)', vlan: '120', vrf: '' },
  },
);

export const SplitSubnetBody = extendApi(
  z
    .object({
      parts: z
        .number()
        .int()
        .min(2)
        .max(1024)
        .refine((n) => (n & (n - 1)) === 0, 'must be a power of two (2, 4, 8 … 1024)')
        .describe('Number of equal parts: a power of two from 2 to 1024'),
    })
    .strict(),
  { title: 'SplitSubnetBody', description: 'How many equal parts to split the subnet into', example: { parts: 4 } },
);

export const SubnetSplitPart = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the new subnet (UUID)'),
      network: z.string().describe('CIDR block of the new subnet'),
    })
    .strict(),
  {
    title: 'SubnetSplitPart',
    description: 'A subnet created by a split',
    example: { id: '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d', network: '10.0.1.0/26' },
  },
);

export const SubnetDeletion = extendApi(
  z
    .object({
      subnets: z
        .array(
          z
            .object({
              id: describedUuid('Id of the subnet (UUID)'),
              network: z.string().describe('CIDR block of the subnet'),
              addresses: z.number().int().nonnegative().describe('Address records deleted with it'),
            })
            .strict(),
        )
        .describe('The subnet and every descendant, each with the address records it holds itself'),
      subnet_count: z.number().int().min(1).describe('Subnets deleted'),
      address_count: z.number().int().nonnegative().describe('Address records deleted'),
    })
    .strict(),
  {
    title: 'SubnetDeletion',
    description: 'What deleting a subnet removes: the answer of a dry run (`?dry_run=true`); nothing is deleted',
    example: {
      subnets: [
        { id: '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d', network: '10.0.0.0/16', addresses: 12 },
        { id: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e', network: '10.0.1.0/24', addresses: 40 },
      ],
      subnet_count: 2,
      address_count: 52,
    },
  },
);

export const SubnetUsage = extendApi(
  z
    .object({
      subnet_id: describedUuid('Id of the subnet (UUID)'),
      network: z.string().describe('CIDR block of the subnet, e.g. 10.0.1.0/24'),
      used: z.number().int().nonnegative().describe('Address records of the subnet and its tracked descendants'),
      total: addressCount('Usable addresses'),
      utilization: z.number().min(0).max(1).describe('used / total, 0 to 1'),
    })
    .strict(),
  {
    title: 'SubnetUsage',
    description: 'Utilization of a subnet',
    example: {
      subnet_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      network: '10.0.1.0/24',
      used: 42,
      total: 254,
      utilization: 0.1653543307,
    },
  },
);

/** Where first-free looks: in one range of the subnet, outside every range, past the first N addresses. */
export const FirstFreeQuery = z
  .object({
    range_id: Uuid.optional().describe('Only inside this IP range of the subnet'),
    skip_ranges: z.enum(['true', 'false']).optional().describe('`true`: only outside every IP range of the subnet'),
    skip_first: queryInt(0, 1_000_000).describe(
      'Pass over the first this many usable addresses (of the range with `range_id`, else of the subnet), 0 to 1,000,000',
    ),
  })
  .strict();

export const SubnetFirstFreeIp = extendApi(
  z
    .object({
      ip: z.string().nullable().describe('Lowest free address (e.g. 10.0.1.2 or 2001:db8::2); null when full'),
      message: z.string().optional().describe('Explanation, given when the subnet is full'),
    })
    .strict(),
  {
    title: 'SubnetFirstFreeIp',
    description: 'The first free address of a subnet',
    example: { ip: '10.0.1.2' },
  },
);

export const SubnetFreeBlocksQuery = z
  .object({
    prefix: z.coerce
      .number({ invalid_type_error: 'required: an integer from 1 to 128' })
      .int()
      .min(1)
      .max(128)
      .describe(
        'Wanted block prefix length, longer than the subnet’s own (e.g. 26 in 10.0.0.0/24, 64 in 2001:db8::/48)',
      ),
    limit: z.coerce.number().int().min(1).max(50).default(5).describe('Blocks to return, 1 to 50 (default 5)'),
  })
  .strict();

export const SubnetFreeBlocks = extendApi(
  z
    .object({
      subnet_id: describedUuid('Id of the subnet (UUID)'),
      network: z.string().describe('CIDR block of the subnet, e.g. 10.0.0.0/16'),
      prefix: z.number().int().min(1).max(128).describe('Prefix length of the free blocks listed, e.g. 24'),
      blocks: z.array(z.string()).describe('Lowest free CIDR blocks of the wanted prefix, in address order'),
      total: z
        .number()
        .int()
        .nonnegative()
        .describe('Number of all free blocks of the wanted prefix, counted up to the cap of 1,000,000'),
      capped: z.boolean().describe('true when total reached the reporting cap of 1,000,000'),
    })
    .strict(),
  {
    title: 'SubnetFreeBlocks',
    description: 'Free blocks of a prefix length inside a subnet',
    example: {
      subnet_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      network: '10.0.1.0/24',
      prefix: 26,
      blocks: ['10.0.1.128/26', '10.0.1.192/26'],
      total: 2,
      capped: false,
    },
  },
);

export const SubnetOverlapSide = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the subnet (UUID)'),
      network: z.string().describe('CIDR block of the subnet, e.g. 10.0.1.0/24'),
      vrf_name: z.string().optional().describe('VRF name; omitted for the global space'),
    })
    .strict(),
  {
    title: 'SubnetOverlapSide',
    description: 'One subnet of an overlapping pair',
    example: { id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', network: '10.0.1.0/24' },
  },
);

export const SubnetOverlap = extendApi(
  z
    .object({
      subnet_a: SubnetOverlapSide,
      subnet_b: SubnetOverlapSide,
      type: z
        .enum(['duplicate', 'containment', 'partial'])
        .describe(
          'duplicate: same CIDR in different VRFs; containment: one range inside the other; partial: ranges meet without nesting',
        ),
    })
    .strict(),
  {
    title: 'SubnetOverlap',
    description: 'Two subnets in different VRFs whose ranges meet',
    example: {
      subnet_a: { id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', network: '10.0.1.0/24' },
      subnet_b: { id: 'f6a7b8c9-d0e1-4f2a-8b3c-4d5e6f708192', network: '10.0.0.0/16', vrf_name: 'customer-a' },
      type: 'containment',
    },
  },
);

/** Subnets in one page of the list, at most (pages only when asked for). */
export const SUBNET_PAGE_MAX = 1000;

/** One id or several separated by commas (checked by the service, which names the parameter). */
const IdList = z.string().trim().min(1).max(2000).optional();

/** A threshold of utilization, a fraction from 0 to 1 as the `utilization` field. */
const UtilizationThreshold = z.coerce.number().min(0).max(1).optional();

/** The subnet list's own parameters; `ListSubnetsQuery` adds the custom field filters. */
const SubnetListParameters = z
  .object({
    folder_id: Uuid.optional().describe('Only subnets of this folder'),
    vrf_id: IdList.describe(
      'Only subnets of this VRF, or of any of several separated by commas; `global` for the global space (no VRF)',
    ),
    vlan_id: IdList.describe('Only subnets attached to this VLAN, or to any of several separated by commas'),
    location_id: IdList.describe('Only subnets at this location, or at any of several separated by commas'),
    is_pool: z.enum(['true', 'false']).optional().describe('Only pools (`true`) or only other subnets (`false`)'),
    contains: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe('Only subnets containing this IP address or CIDR (itself included), e.g. 10.0.1.7 or 10.0.1.0/26'),
    within: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe('Only subnets inside this CIDR (itself included), e.g. 10.0.0.0/16'),
    utilization_above: UtilizationThreshold.describe(
      'Only tracked subnets whose utilization is above this fraction (0 to 1), e.g. 0.8',
    ),
    utilization_below: UtilizationThreshold.describe(
      'Only tracked subnets whose utilization is below this fraction (0 to 1), e.g. 0.1',
    ),
    ...TagFilterQuery,
    limit: queryInt(1, SUBNET_PAGE_MAX).describe(
      `Subnets per page, 1 to ${SUBNET_PAGE_MAX}: the list comes in pages only when this or \`cursor\` is given`,
    ),
    cursor: PageCursor,
  })
  .strict();

export const ListSubnetsQuery = withCustomFieldFilters(SubnetListParameters);
