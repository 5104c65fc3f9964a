/**
 * The data-exchange targets (imports, export, search, allocation): latency of single requests against an
 * organisation seeded for them, each a fixed bound in milliseconds, reported with the IPAM-core table.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type CoreTiming, measurer } from './core';
import { residentMegabytes } from './load';
import type { Seeder } from './seed';

type Call = (key: string, method: string, path: string, body?: unknown) => Promise<Response>;

/** Samples per round of each import (two more warm up in the first round). */
const IMPORTS = 3;

/** The most the server's resident memory grew over an export of 100,000 addresses (megabytes). */
export let exportGrowth = 0;

export async function prepareExchange(seed: Seeder) {
  const org = await seed.enterpriseOrg();
  // One /22 per address import, each filled with 1,000 rows.
  const slash22s: string[] = [];
  for (let i = 0; i < 40; i++) slash22s.push(`100.64.${i * 4}.0/22`);
  for (const network of slash22s) await seed.subnet(org.orgId, network);
  const slash24s: string[] = [];
  for (let i = 0; i < 20; i++) slash24s.push(await seed.subnet(org.orgId, `100.100.${i}.0/24`));
  let allocations = 0;
  let subnetImports = 0;
  let addressImports = 0;

  // An organisation of 10,000 subnets (a /8 and 9,999 /24s) and 100,000 addresses, to export and search.
  const big = await seed.enterpriseOrg();
  const root = await seed.subnet(big.orgId, '10.0.0.0/8');
  await seed.children(big.orgId, root, 9_999, sql`set_masklen('10.0.0.0'::inet + (i + 1) * 256, 24)::cidr`);
  await seed.run(sql`UPDATE subnets SET name = 'site ' || host(network), description = 'rack ' || masklen(network)
    WHERE org_id = ${big.orgId}`);
  await seed.run(sql`
    INSERT INTO addresses (org_id, subnet_id, ip, hostname, description)
    SELECT ${big.orgId}, s.id, host(s.network)::inet + n, 'host-' || host(host(s.network)::inet + n), 'office ' || n
    FROM (SELECT id, network FROM subnets WHERE org_id = ${big.orgId} AND masklen(network) = 24 LIMIT 10000) s,
         generate_series(1, 10) AS n`);
  const queries = ['10.0.42.7', '10.0.42', 'host-10.0.17.3', 'site 10.0.99', 'office 7', '10.0.42.0/24', 'rack'];

  // The list filters (issue 24), in an organisation of their own (the export and search above stay as they were):
  // one subnet of 100,000 addresses and 10,000 /24s, three in ten tagged (one of five names; one in seven of those
  // also `rare`), three in four with a `rack` (an integer custom field).
  const lists = await seed.enterpriseOrg();
  const dense = await seed.subnet(lists.orgId, '11.0.0.0/15');
  const listRoot = await seed.subnet(lists.orgId, '12.0.0.0/8');
  await seed.children(lists.orgId, listRoot, 10_000, sql`set_masklen('12.0.0.0'::inet + (i + 1) * 256, 24)::cidr`);
  const tagged = (n: SQL) => sql`CASE WHEN ${n} % 10 < 3
    THEN ARRAY[(ARRAY['red', 'green', 'blue', 'amber', 'grey'])[1 + ${n} % 5]]
      || CASE WHEN ${n} % 7 = 0 THEN ARRAY['rare'] ELSE '{}'::text[] END
    ELSE '{}' END`;
  const rack = (n: SQL) => sql`CASE WHEN ${n} % 4 <> 0 THEN jsonb_build_object('rack', ${n} % 500) END`;
  await seed.run(sql`INSERT INTO tags (org_id, name)
    SELECT ${lists.orgId}, name FROM unnest(ARRAY['red', 'green', 'blue', 'amber', 'grey', 'rare']) AS name`);
  await seed.run(sql`INSERT INTO custom_field_definitions (org_id, kind, name, type)
    VALUES (${lists.orgId}, 'address', 'rack', 'integer'), (${lists.orgId}, 'subnet', 'rack', 'integer')`);
  await seed.run(sql`INSERT INTO addresses (org_id, subnet_id, ip, tags, custom_fields)
    SELECT ${lists.orgId}, ${dense}, '11.0.0.0'::inet + g, ${tagged(sql`g`)}, ${rack(sql`g`)}
    FROM generate_series(1, 100000) AS g`);
  const position = sql`((network - '12.0.0.0'::inet) / 256)::int`;
  await seed.run(sql`UPDATE subnets SET tags = ${tagged(position)}, custom_fields = ${rack(position)}
    WHERE org_id = ${lists.orgId} AND masklen(network) = 24`);
  const filters = [
    ['tag=rare', 'tag=red,blue', 'tag=red&tag=rare&tag_match=all', 'cf_rack=42', 'cf_rack__gte=100&cf_rack__lt=110'],
    ['status=reserved', 'hostname_prefix=host-11.0.1'],
  ].flat();

  return async function measureRound(call: Call, serverPid: number): Promise<CoreTiming[]> {
    const timings: CoreTiming[] = [];
    const measure = measurer(timings, subnetImports === 0 ? 2 : 0);
    await measure(
      'POST /import/subnets, 1,000 rows',
      '1,000 /28s naming 10 folders and 10 VLANs',
      1500,
      IMPORTS,
      async () => {
        const block = subnetImports++;
        const subnets = Array.from({ length: 1000 }, (_, i) => ({
          network: `10.${block}.${i >> 4}.${(i & 15) * 16}/28`,
          name: `imported ${i}`,
          folder: `folder ${i % 10}`,
          vlan: 100 + (i % 10),
          gateway: `10.${block}.${i >> 4}.${(i & 15) * 16 + 1}`,
        }));
        return call(org.key, 'POST', '/import/subnets', { subnets });
      },
    );
    await measure('POST /import/addresses, 1,000 rows', 'a /22 each time', 1000, IMPORTS, () => {
      const subnet = slash22s[addressImports++];
      if (subnet === undefined) throw new Error('no /22 left for an address import');
      const [a, b, c = 0] = subnet.split('.').map(Number);
      const addresses = Array.from({ length: 1000 }, (_, i) => ({
        ip: `${a}.${b}.${c + ((i + 1) >> 8)}.${(i + 1) & 255}`,
        subnet,
        hostname: `host-${i}`,
      }));
      return call(org.key, 'POST', '/import/addresses', { addresses });
    });
    const before = residentMegabytes(serverPid);
    await measure('GET /export/addresses', '100,000 addresses', 3000, 1, () =>
      call(big.key, 'GET', '/export/addresses'),
    );
    exportGrowth = Math.max(exportGrowth, residentMegabytes(serverPid) - before);
    let query = 0;
    await measure('GET /search', '10,000 subnets, 100,000 addresses; 7 kinds of query', 50, 21, () => {
      const q = queries[query++ % queries.length];
      if (q === undefined) throw new Error('no search query');
      return call(big.key, 'GET', `/search?q=${encodeURIComponent(q)}`);
    });
    let filter = 0;
    await measure(
      'GET /subnets/{id}/addresses?<filter>, a page of 100',
      `100,000 addresses; ${filters.length} filters (tag, cf_, status, hostname)`,
      50,
      filters.length * 2,
      () => call(lists.key, 'GET', `/subnets/${dense}/addresses?limit=100&${filters[filter++ % filters.length]}`),
    );
    const subnetFilters = filters.slice(0, 5);
    await measure(
      'GET /subnets?<filter>&limit=100',
      `10,000 subnets; ${subnetFilters.length} filters (tag, cf_)`,
      50,
      subnetFilters.length * 2,
      () => call(lists.key, 'GET', `/subnets?limit=100&${subnetFilters[filter++ % subnetFilters.length]}`),
    );
    await seed.settle();
    const nextSlash24 = () => {
      const subnet = slash24s[allocations++];
      if (subnet === undefined) throw new Error('no /24 left for the allocations');
      return subnet;
    };
    await concurrentAllocations(call, org.key, nextSlash24()); // warm-up, as every timing has one
    timings.push(await concurrentAllocations(call, org.key, nextSlash24()));
    return timings;
  };
}

/** 50 single allocations at once in one /24: they must get 50 different addresses; the sample is their p99. */
async function concurrentAllocations(call: Call, key: string, subnetId: string): Promise<CoreTiming> {
  const latencies: number[] = [];
  const ips = await Promise.all(
    Array.from({ length: 50 }, async () => {
      const start = performance.now();
      const response = await call(key, 'POST', `/subnets/${subnetId}/allocate-address`, {});
      const body = (await response.json()) as { ip: string }[];
      latencies.push(performance.now() - start);
      const ip = body[0]?.ip;
      if (response.status !== 201 || ip === undefined) {
        throw new Error(`allocate-address: ${response.status} ${JSON.stringify(body)}`);
      }
      return ip;
    }),
  );
  if (new Set(ips).size !== 50) throw new Error(`allocate-address: ${new Set(ips).size} distinct ips of 50`);
  latencies.sort((a, b) => a - b);
  const p99 = latencies[Math.ceil(latencies.length * 0.99) - 1];
  if (p99 === undefined) throw new Error('allocate-address: no latency measured');
  return {
    name: 'POST allocate-address, 50 at once (p99 of the 50)',
    data: 'one /24, 50 requests at once',
    target: 100,
    samples: [p99],
  };
}
