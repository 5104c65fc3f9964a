/** The single-subnet read, the hottest query of the IPAM core: one prepared statement. */

import { columnsOf } from '../../db/columns';
import type { Db } from '../../db/connection';
import { prepared } from '../../db/prepared';
import { subnets } from '../../db/schema';
import { type Cidr, formatCidr } from '../../ipam';
import {
  type CustomFieldFilter,
  customFieldFilterParameters,
  customFieldFilterSql,
} from '../custom-fields/custom-fields.service';
import type { TagFilter } from '../shared/tags';
import type { SubnetRow } from './subnets.repo';

/** The host-length bounds of a cidr expression, for range conditions on the addresses index. */
const hostBounds = (network: string) => {
  const bits = `CASE WHEN family(${network}) = 4 THEN 32 ELSE 128 END`;
  return `set_masklen(${network}::inet, ${bits}) AND set_masklen(broadcast(${network}), ${bits})`;
};

/** The names of a subnet's references, resolved by the joins of NAMES_JOINS. */
const NAMES = `f.name AS "folderName", v.vlan_number AS "vlanNumber", r.name AS "vrfName", l.name AS "locationName"`;
const NAMES_JOINS = `LEFT JOIN folders f ON f.org_id = s.org_id AND f.id = s.folder_id
   LEFT JOIN vlans v ON v.org_id = s.org_id AND v.id = s.vlan_id
   LEFT JOIN vrfs r ON r.org_id = s.org_id AND r.id = s.vrf_id
   LEFT JOIN locations l ON l.org_id = s.org_id AND l.id = s.location_id`;

/** Address records of `s`'s space inside its range, less those inside its outermost untracked descendants. */
const USED = `(SELECT count(*) FROM addresses a
      WHERE a.org_id = s.org_id AND a.space_id = s.space_id AND a.ip BETWEEN ${hostBounds('s.network')})::int
     - (SELECT coalesce(sum((SELECT count(*) FROM addresses a
          WHERE a.org_id = u.org_id AND a.space_id = u.space_id AND a.ip BETWEEN ${hostBounds('u.network')})), 0)
        FROM subnets u
        WHERE u.org_id = s.org_id AND u.space_id = s.space_id AND NOT u.tracked AND u.network << s.network
          AND NOT EXISTS (SELECT 1 FROM subnets o
            WHERE o.org_id = s.org_id AND o.space_id = s.space_id AND NOT o.tracked
              AND o.network << s.network AND o.network >> u.network))::int`;

/** A subnet row with its references' names (NAMES) and its used count (USED). */
type WithUsage = SubnetRow & {
  folderName: string | null;
  vlanNumber: number | null;
  vrfName: string | null;
  locationName: string | null;
  used: number;
};

/**
 * One subnet with its resolved names, its used count (address records of its space inside its range, less
 * those inside its outermost untracked descendants) and its direct children: one round trip.
 */
const subnetWithUsage = prepared<
  WithUsage & {
    children: { id: string; network: string; name: string }[];
  },
  { orgId: string; id: string }
>(
  'subnet_with_usage',
  `SELECT ${columnsOf(subnets, 's')}, ${NAMES}, ${USED} AS used,
     (SELECT coalesce(json_agg(json_build_object('id', c.id, 'network', c.network, 'name', c.name) ORDER BY c.network), '[]')
      FROM subnets c WHERE c.org_id = s.org_id AND c.parent_id = s.id) AS children
   FROM subnets s
   ${NAMES_JOINS}
   WHERE s.org_id = :orgId AND s.id = :id`,
);

export async function getWithUsage(db: Db, orgId: string, id: string) {
  return withUsageOf(await subnetWithUsage(db, { orgId, id }));
}

/** The same read as a step of a write's pipeline (the subnet it answers, as the write left it). */
export const withUsageStep = (orgId: string, id: string) => subnetWithUsage.step({ orgId, id });

/** The subnet of a row read by `withUsageStep`; undefined without one. */
export function withUsageOf(rows: Awaited<ReturnType<typeof subnetWithUsage>>) {
  const [r] = rows;
  if (!r) return undefined;
  const { folderName, vlanNumber, vrfName, locationName, used, children, ...subnet } = r;
  return { row: { subnet, folderName, vlanNumber, vrfName, locationName }, used, children };
}

/** A subnet's place in the list's order: VRF (the global space last), family, network. */
export interface ListPosition {
  global: boolean;
  vrfId: string;
  family: number;
  network: string;
}

/** The list's order as a row value; the global space's VRF is the nil uuid (only one space has no VRF). */
const LIST_ORDER = `(s.vrf_id IS NULL), coalesce(s.vrf_id, '00000000-0000-0000-0000-000000000000'::uuid), family(s.network), s.network`;

/**
 * The page's statement; `customFields`: with the condition of `cf_` filters. A page filtered by custom field or by
 * tag is planned for its values each call: only then may the partial GIN indexes answer the filter (a generic plan
 * cannot know that a filter's parameter is not null).
 */
const pageStatement = (customFields: boolean, planEachCall: boolean) =>
  prepared<
    WithUsage,
    {
      orgId: string;
      folderId: string | null;
      vrfAny: boolean;
      vrfIds: string[];
      globalSpace: boolean;
      vlanIds: string[] | null;
      locationIds: string[] | null;
      isPool: boolean | null;
      contains: string | null;
      within: string | null;
      tagsAny: string[] | null;
      tagsAll: string[] | null;
      started: boolean;
      afterGlobal: boolean;
      afterVrf: string;
      family: number;
      network: string;
      limit: number;
      cfEquals?: string;
      cfRanges?: string;
    }
  >(
    customFields
      ? 'subnets_page_with_usage_cf'
      : planEachCall
        ? 'subnets_page_with_usage_tagged'
        : 'subnets_page_with_usage',
    // The page is chosen first (by the list's order), then only its subnets are counted.
    `WITH page AS (
     SELECT s.id FROM subnets s
     WHERE s.org_id = :orgId AND (:folderId::uuid IS NULL OR s.folder_id = :folderId::uuid)
       AND (:vrfAny::boolean OR (:globalSpace::boolean AND s.vrf_id IS NULL) OR s.vrf_id = ANY(:vrfIds::uuid[]))
       AND (:vlanIds::uuid[] IS NULL OR s.vlan_id = ANY(:vlanIds::uuid[]))
       AND (:locationIds::uuid[] IS NULL OR s.location_id = ANY(:locationIds::uuid[]))
       AND (:isPool::boolean IS NULL OR s.is_pool = :isPool::boolean)
       AND (:contains::cidr IS NULL OR s.network >>= :contains::cidr)
       AND (:within::cidr IS NULL OR s.network <<= :within::cidr)
       AND (:tagsAny::text[] IS NULL OR (s.tags <> '{}' AND s.tags && :tagsAny::text[]))
       AND (:tagsAll::text[] IS NULL OR (s.tags <> '{}' AND s.tags @> :tagsAll::text[]))
       ${customFields ? `AND ${customFieldFilterSql('s.custom_fields')}` : ''}
       AND (NOT :started::boolean OR (${LIST_ORDER}) > (:afterGlobal::boolean, :afterVrf::uuid, :family::int, :network::cidr))
     ORDER BY ${LIST_ORDER}
     LIMIT :limit)
   SELECT ${columnsOf(subnets, 's')}, ${NAMES}, ${USED} AS used
   FROM page p JOIN subnets s ON s.id = p.id
   ${NAMES_JOINS}
   ORDER BY ${LIST_ORDER}`,
    { planEachCall },
  );

const pageWithUsage = pageStatement(false, false);
const taggedPageWithUsage = pageStatement(false, true);
const pageWithUsageFiltered = pageStatement(true, true);

/** Filters of the subnet list; each absent one lets every subnet pass. */
export interface SubnetFilter {
  folderId?: string;
  /** Subnets of any of these VRFs, or of the global space with `globalSpace`. */
  vrfIds?: string[];
  globalSpace?: boolean;
  vlanIds?: string[];
  locationIds?: string[];
  isPool?: boolean;
  /** Subnets containing this block (or equal to it). */
  contains?: Cidr;
  /** Subnets inside this block (or equal to it). */
  within?: Cidr;
  tags?: TagFilter;
  /** The `cf_` filters. */
  customFields?: CustomFieldFilter;
}

/**
 * A page of the organisation's subnets that pass `filter`, after `after` in the list's order, each with its names
 * and used count as its GET reads them.
 */
export async function pageOfSubnets(
  db: Db,
  orgId: string,
  filter: SubnetFilter,
  after: ListPosition | null,
  limit: number,
) {
  const custom = filter.customFields;
  const statement = custom ? pageWithUsageFiltered : filter.tags ? taggedPageWithUsage : pageWithUsage;
  const rows = await statement(db, {
    ...(custom ? customFieldFilterParameters(custom) : {}),
    orgId,
    folderId: filter.folderId ?? null,
    vrfAny: filter.vrfIds === undefined,
    vrfIds: filter.vrfIds ?? [],
    globalSpace: filter.globalSpace ?? false,
    vlanIds: filter.vlanIds ?? null,
    locationIds: filter.locationIds ?? null,
    isPool: filter.isPool ?? null,
    contains: filter.contains ? formatCidr(filter.contains) : null,
    within: filter.within ? formatCidr(filter.within) : null,
    tagsAny: filter.tags && !filter.tags.all ? filter.tags.names : null,
    tagsAll: filter.tags?.all ? filter.tags.names : null,
    started: after !== null,
    afterGlobal: after?.global ?? false,
    afterVrf: after?.vrfId ?? '00000000-0000-0000-0000-000000000000',
    family: after?.family ?? 4,
    network: after?.network ?? '0.0.0.0/0',
    limit,
  });
  return rows.map(({ folderName, vlanNumber, vrfName, locationName, used, ...subnet }) => ({
    row: { subnet, folderName, vlanNumber, vrfName, locationName },
    used,
  }));
}
