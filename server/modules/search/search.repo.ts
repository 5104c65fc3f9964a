import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';

/** What a query can be read as: an ip, a CIDR, the start of either, and text for substrings. */
export interface SearchTerms {
  ip: string | null;
  cidr: string | null;
  /** A LIKE pattern for networks and ips starting with the query (null when it cannot start one). */
  prefix: string | null;
  /** A LIKE pattern for names, hostnames and descriptions holding the query. */
  substring: string;
  /** A LIKE pattern for names and hostnames equal to the query (in any case). */
  exact: string;
  /** The query as a tag's name: objects carrying that tag match. */
  tag: string;
}

/** A search statement's parameters: a term the query cannot be read as is null. */
type SearchParams = SearchTerms & { orgId: string; limit: number; customFields: string | null };

/**
 * Each kind of match is its own indexed query of at most `limit` rows with a rank (lower is better) and an
 * order within the rank; an object matched several ways keeps its best rank. Ties sort by address
 * (`order`: cidr and inet order by address, then prefix), never as text, where 10.0.10.0 precedes 10.0.2.0.
 * Each part keeps its first `limit` rows by address too (addresses by VRF, then address, which their index
 * walks: one VRF's lowest when more than `limit` match). A part matching by a term the query lacks tests it
 * for null first and finds nothing (its index is not read). Planned for each query's values: a generic plan
 * would lose the prefix's range scan and the trigram index, which the planner uses only when it sees the pattern.
 */
function ranked(table: string, columns: string, order: string, parts: string[]) {
  return `SELECT ${columns} FROM (
      SELECT DISTINCT ON (id) id, rank, sort FROM (
        ${parts.map((part) => `(${part} LIMIT :limit)`).join('\n        UNION ALL ')}
      ) hit ORDER BY id, rank, sort
    ) best JOIN ${table} t ON t.id = best.id
    ORDER BY best.rank, best.sort, ${order}, t.id
    LIMIT :limit`;
}

const subnetsFound = prepared<{ id: string; network: string; name: string }, SearchParams>(
  'search_subnets',
  ranked('subnets', 't.id, t.network::text AS network, t.name', 't.network', [
    `SELECT id, 0 AS rank, 0 AS sort FROM subnets
     WHERE :cidr::cidr IS NOT NULL AND org_id = :orgId AND network = :cidr::cidr`,
    `SELECT id, 1 AS rank, -masklen(network) AS sort FROM subnets
     WHERE :ip::inet IS NOT NULL AND org_id = :orgId AND network >>= :ip::inet ORDER BY masklen(network) DESC`,
    `SELECT id, 2 AS rank, 0 AS sort FROM subnets
     WHERE :prefix::text IS NOT NULL AND org_id = :orgId AND network::text LIKE :prefix ORDER BY network`,
    `SELECT id, 3 AS rank, CASE WHEN name ILIKE :exact THEN 0 ELSE 1 END AS sort FROM subnets
     WHERE org_id = :orgId AND name ILIKE :substring ORDER BY sort, network`,
    `SELECT id, 4 AS rank, 0 AS sort FROM subnets
     WHERE org_id = :orgId AND description ILIKE :substring ORDER BY network`,
    `SELECT id, 5 AS rank, 0 AS sort FROM subnets
     WHERE :customFields::jsonpath IS NOT NULL AND org_id = :orgId AND custom_fields @@ :customFields::jsonpath
     ORDER BY network`,
    `SELECT id, 6 AS rank, 0 AS sort FROM subnets
     WHERE org_id = :orgId AND tags <> '{}' AND tags @> ARRAY[:tag::text] ORDER BY network`,
  ]),
  { planEachCall: true },
);

const addressesFound = prepared<
  { id: string; ip: string; hostname: string; subnet_id: string },
  Omit<SearchParams, 'cidr'>
>(
  'search_addresses',
  ranked('addresses', 't.id, host(t.ip) AS ip, t.hostname, t.subnet_id', 't.ip', [
    `SELECT id, 0 AS rank, 0 AS sort FROM addresses
     WHERE :ip::inet IS NOT NULL AND org_id = :orgId AND ip = :ip::inet`,
    `SELECT id, 1 AS rank, 0 AS sort FROM addresses
     WHERE org_id = :orgId AND hostname ILIKE :exact ORDER BY space_id, ip`,
    `SELECT id, 2 AS rank, 0 AS sort FROM addresses
     WHERE :prefix::text IS NOT NULL AND org_id = :orgId AND host(ip) LIKE :prefix ORDER BY space_id, ip`,
    `SELECT id, 3 AS rank, 0 AS sort FROM addresses
     WHERE org_id = :orgId AND hostname ILIKE :substring ORDER BY space_id, ip`,
    `SELECT id, 4 AS rank, 0 AS sort FROM addresses
     WHERE org_id = :orgId AND description ILIKE :substring ORDER BY space_id, ip`,
    `SELECT id, 5 AS rank, 0 AS sort FROM addresses
     WHERE :customFields::jsonpath IS NOT NULL AND org_id = :orgId AND custom_fields @@ :customFields::jsonpath
     ORDER BY space_id, ip`,
    `SELECT id, 6 AS rank, 0 AS sort FROM addresses
     WHERE org_id = :orgId AND tags <> '{}' AND tags @> ARRAY[:tag::text] ORDER BY space_id, ip`,
  ]),
  { planEachCall: true },
);

/** The statements' parameters: an empty term counts as absent, as a missing one. */
const paramsOf = (orgId: string, terms: SearchTerms, limit: number, customFields: string | null): SearchParams => ({
  orgId,
  customFields,
  ip: terms.ip || null,
  cidr: terms.cidr || null,
  prefix: terms.prefix || null,
  substring: terms.substring,
  exact: terms.exact,
  tag: terms.tag,
  limit,
});

/** `customFields`: a JSON path of custom field values equal to the query (rank 5), or null. */
export const searchSubnets = (db: Db, orgId: string, terms: SearchTerms, limit: number, customFields: string | null) =>
  subnetsFound(db, paramsOf(orgId, terms, limit, customFields));

export const searchAddresses = (
  db: Db,
  orgId: string,
  terms: SearchTerms,
  limit: number,
  customFields: string | null,
) => addressesFound(db, paramsOf(orgId, terms, limit, customFields));
