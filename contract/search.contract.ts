import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors } from './common/errors';
import { access, heavy } from './common/meta';
import { describedUuid } from './common/schemas';

const c = initContract();
const meta = access('Search');

/** Most results returned of each kind (spec Limits). */
export const SEARCH_MAX_RESULTS = 50;

export const SearchQuery = z
  .object({
    q: extendApi(
      z
        .string()
        .trim()
        .min(1, 'must not be empty')
        .max(500, 'must be at most 500 characters')
        .describe(
          'Text to find (1 to 500 characters after trimming): an IP, hostname, CIDR, name, description or tag name',
        ),
      { example: '10.20.1' },
    ),
  })
  .strict();

export const SearchSubnetHit = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the subnet (UUID)'),
      network: z.string().describe('CIDR of the subnet'),
      name: z.string().describe('Display name of the subnet, e.g. Servers'),
    })
    .strict(),
  {
    title: 'SearchSubnetHit',
    description: 'A matching subnet',
    example: { id: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f', network: '10.20.1.0/24', name: 'Office LAN' },
  },
);

export const SearchAddressHit = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the address record (UUID)'),
      ip: z.string().describe('IP address'),
      hostname: z.string().describe('Hostname of the address record, e.g. web-01.example.com'),
      subnet_id: describedUuid('Subnet holding the address (UUID): where a client shows it'),
    })
    .strict(),
  {
    title: 'SearchAddressHit',
    description: 'A matching address record',
    example: {
      id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      ip: '10.20.1.10',
      hostname: 'printer-2f',
      subnet_id: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f',
    },
  },
);

export const SearchResults = extendApi(
  z
    .object({
      subnets: z.array(SearchSubnetHit).max(SEARCH_MAX_RESULTS).describe('Matching subnets, at most 50'),
      addresses: z.array(SearchAddressHit).max(SEARCH_MAX_RESULTS).describe('Matching addresses, at most 50'),
    })
    .strict(),
  {
    title: 'SearchResults',
    description: 'Subnets and addresses matching the query',
    example: {
      subnets: [{ id: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f', network: '10.20.1.0/24', name: 'Office LAN' }],
      addresses: [
        {
          id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
          ip: '10.20.1.10',
          hostname: 'printer-2f',
          subnet_id: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f',
        },
      ],
    },
  },
);

export const searchContract = c.router({
  searchIpam: {
    method: 'GET',
    path: '/search',
    summary: 'Search subnets and addresses',
    description:
      'Finds subnets and address records of the caller’s organisation whose IP, hostname, network CIDR, name or ' +
      'description matches `q`, whose text or select custom field (`/custom-fields`) equals `q` exactly, or that ' +
      'carry the tag named `q` (ranked last); up to 50 of each kind.',
    metadata: heavy(meta.read),
    query: SearchQuery,
    responses: { 200: SearchResults, ...errors(400, 401, 403, 429) },
  },
});
