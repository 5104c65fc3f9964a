/**
 * The query plans of the `cf_` filters on 100,000 records (docs/performance.md): one subnet holding 100,000
 * addresses and an organisation of 100,000 /28 subnets, three in four with custom fields (one value in fifty of
 * another type than the field's). Prints `EXPLAIN ANALYZE` of a filtered address page and its count, and of the
 * selection of a filtered subnet page, with the conditions the server sends; the search's part; a create's guard.
 *
 *   WITH_POSTGRES_USE_EXISTING=0 bash .ci/with-postgres.sh npx tsx bench/custom-field-plans.ts
 */
import { sql } from 'drizzle-orm';
import { openDatabase, rowsOf } from '../server/db/connection';
import {
  type CustomFieldFilter,
  customFieldFilterParameters,
  customFieldFilterSql,
} from '../server/modules/custom-fields/custom-fields.service';
import { seeder } from './seed';

const url = process.env.TEST_DATABASE_URL;
if (!url) throw new Error('TEST_DATABASE_URL: run under .ci/with-postgres.sh');
const database = await openDatabase({ databaseUrl: url });
const seed = seeder(database.db);
const { orgId } = await seed.enterpriseOrg();

/** Custom fields of record `i`: none for one in four; `rack` a string instead of an integer for one in fifty. */
const FIELDS = `CASE WHEN i % 4 = 3 THEN NULL ELSE jsonb_build_object(
    'rack', CASE WHEN i % 50 = 7 THEN to_jsonb('r' || (i % 500)) ELSE to_jsonb(i % 500) END,
    'role', (ARRAY['web', 'db', 'cache', 'mail'])[i % 4 + 1],
    'since', to_char(date '2020-01-01' + (i % 2000), 'YYYY-MM-DD')) END`;

const home = await seed.subnet(orgId, '10.0.0.0/8');
await seed.run(
  sql.raw(`INSERT INTO addresses (org_id, subnet_id, ip, custom_fields)
    SELECT '${orgId}', '${home}', '10.0.0.1'::inet + i, ${FIELDS} FROM generate_series(0, 99999) AS i`),
);
const parent = await seed.subnet(orgId, '11.0.0.0/8');
await seed.run(
  sql.raw(`INSERT INTO subnets (org_id, parent_id, network, custom_fields)
    SELECT '${orgId}', '${parent}', set_masklen('11.0.0.0'::inet + i * 16, 28)::cidr, ${FIELDS}
    FROM generate_series(0, 99999) AS i`),
);
await seed.settle();

const FILTERS: [string, CustomFieldFilter][] = [
  ['cf_role=db', { equals: { role: 'db' }, ranges: [] }],
  ['cf_rack=42', { equals: { rack: 42 }, ranges: [] }],
  ['cf_role=db&cf_rack=42', { equals: { role: 'db', rack: 42 }, ranges: [] }],
  ['cf_rack__gte=100&cf_rack__lt=110', { equals: {}, ranges: ranges('rack', 'integer', ['gte', 100], ['lt', 110]) }],
  ['cf_since__gte=2024-01-01', { equals: {}, ranges: ranges('since', 'date', ['gte', '2024-01-01']) }],
  [
    'cf_role=db&cf_since__lt=2020-02-01',
    { equals: { role: 'db' }, ranges: ranges('since', 'date', ['lt', '2020-02-01']) },
  ],
];

function ranges(name: string, type: 'integer' | 'date', ...bounds: [string, number | string][]) {
  return bounds.map(([op, value]) => ({ name, type, op, value })) as CustomFieldFilter['ranges'];
}

/** The filter's condition on `column` with its two parameters as literals (a custom plan, as the server's). */
function condition(column: string, filter: CustomFieldFilter) {
  const { cfEquals, cfRanges } = customFieldFilterParameters(filter);
  const literal = (json: string) => `'${json.replaceAll("'", "''")}'`;
  return customFieldFilterSql(column).replace(':cfEquals', literal(cfEquals)).replace(':cfRanges', literal(cfRanges));
}

async function explain(title: string, query: string) {
  const lines = rowsOf<{ 'QUERY PLAN': string }>(await database.db.execute(sql.raw(`EXPLAIN (ANALYZE) ${query}`)));
  console.log(`\n## ${title}\n${lines.map((l) => l['QUERY PLAN']).join('\n')}`);
}

const LIST_ORDER = `(s.vrf_id IS NULL), coalesce(s.vrf_id, '00000000-0000-0000-0000-000000000000'::uuid), family(s.network), s.network`;
for (const [name, filter] of FILTERS) {
  const passing = `a.org_id = '${orgId}' AND a.subnet_id = '${home}' AND ${condition('a.custom_fields', filter)}`;
  await explain(
    `addresses ${name}: page of 100`,
    `SELECT a.* FROM addresses a WHERE ${passing} ORDER BY a.ip LIMIT 100`,
  );
  await explain(`addresses ${name}: count`, `SELECT count(*) FROM addresses a WHERE ${passing}`);
  await explain(
    `subnets ${name}: page of 100`,
    `SELECT s.id FROM subnets s WHERE s.org_id = '${orgId}' AND ${condition('s.custom_fields', filter)}
     ORDER BY ${LIST_ORDER} LIMIT 100`,
  );
}
// The search's part: text and select fields equal to the query (a JSON path the GIN index answers).
await explain(
  'search: a text field equal to the query',
  `SELECT id FROM addresses WHERE org_id = '${orgId}'
     AND custom_fields @@ '$."role" == "cache" || $."note" == "cache"'::jsonpath ORDER BY space_id, ip LIMIT 50`,
);
// What every create adds: the guard that the organisation's definitions are at the version the process read.
await explain(
  'create guard',
  `SELECT ipam_require(coalesce((SELECT version FROM custom_field_versions WHERE org_id = '${orgId}'), 0) = 0,
     '{"rule":"custom_fields_changed"}')`,
);
await database.close();
