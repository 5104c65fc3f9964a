import { type SQL, sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../../db/connection';

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
}

/**
 * Each kind of match is its own indexed query of at most `limit` rows with a rank (lower is better) and an
 * order within the rank; an object matched several ways keeps its best rank. Ties sort by address
 * (`order`: cidr and inet order by address, then prefix), never as text, where 10.0.10.0 precedes 10.0.2.0.
 * Each part keeps its first `limit` rows by address too (addresses by VRF, then address, which their index
 * walks: one VRF's lowest when more than `limit` match).
 */
function ranked(table: SQL, columns: SQL, order: SQL, parts: (SQL | null | '')[], limit: number) {
  const union = sql.join(
    parts.filter((part): part is SQL => Boolean(part)).map((part) => sql`(${part} LIMIT ${limit})`),
    sql` UNION ALL `,
  );
  return sql`
    SELECT ${columns} FROM (
      SELECT DISTINCT ON (id) id, rank, sort FROM (${union}) hit ORDER BY id, rank, sort
    ) best JOIN ${table} t ON t.id = best.id
    ORDER BY best.rank, best.sort, ${order}, t.id
    LIMIT ${limit}`;
}

export async function searchSubnets(db: Db, orgId: string, terms: SearchTerms, limit: number) {
  const org = sql`org_id = ${orgId}`;
  const result = await db.execute(
    ranked(
      sql`subnets`,
      sql`t.id, t.network::text AS network, t.name`,
      sql`t.network`,
      [
        terms.cidr && sql`SELECT id, 0 AS rank, 0 AS sort FROM subnets WHERE ${org} AND network = ${terms.cidr}::cidr`,
        terms.ip &&
          sql`SELECT id, 1 AS rank, -masklen(network) AS sort FROM subnets WHERE ${org} AND network >>= ${terms.ip}::inet
              ORDER BY masklen(network) DESC`,
        terms.prefix &&
          sql`SELECT id, 2 AS rank, 0 AS sort FROM subnets WHERE ${org} AND network::text LIKE ${terms.prefix}
              ORDER BY network`,
        sql`SELECT id, 3 AS rank, CASE WHEN name ILIKE ${terms.exact} THEN 0 ELSE 1 END AS sort FROM subnets
            WHERE ${org} AND name ILIKE ${terms.substring} ORDER BY sort, network`,
        sql`SELECT id, 4 AS rank, 0 AS sort FROM subnets WHERE ${org} AND description ILIKE ${terms.substring} ORDER BY network`,
      ],
      limit,
    ),
  );
  return rowsOf<{ id: string; network: string; name: string }>(result);
}

export async function searchAddresses(db: Db, orgId: string, terms: SearchTerms, limit: number) {
  const org = sql`org_id = ${orgId}`;
  const result = await db.execute(
    ranked(
      sql`addresses`,
      sql`t.id, host(t.ip) AS ip, t.hostname, t.subnet_id`,
      sql`t.ip`,
      [
        terms.ip && sql`SELECT id, 0 AS rank, 0 AS sort FROM addresses WHERE ${org} AND ip = ${terms.ip}::inet`,
        sql`SELECT id, 1 AS rank, 0 AS sort FROM addresses WHERE ${org} AND hostname ILIKE ${terms.exact} ORDER BY space_id, ip`,
        terms.prefix &&
          sql`SELECT id, 2 AS rank, 0 AS sort FROM addresses WHERE ${org} AND host(ip) LIKE ${terms.prefix} ORDER BY space_id, ip`,
        sql`SELECT id, 3 AS rank, 0 AS sort FROM addresses WHERE ${org} AND hostname ILIKE ${terms.substring} ORDER BY space_id, ip`,
        sql`SELECT id, 4 AS rank, 0 AS sort FROM addresses WHERE ${org} AND description ILIKE ${terms.substring} ORDER BY space_id, ip`,
      ],
      limit,
    ),
  );
  return rowsOf<{ id: string; ip: string; hostname: string; subnet_id: string }>(result);
}
