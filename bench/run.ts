/**
 * `npm run bench`: the performance targets of the IPAM core, measured from an HTTP client against the
 * real server process on a PostgreSQL server (a throwaway one from .ci/with-postgres.sh, or
 * BENCH_DATABASE_URL). Data is seeded in bulk with SQL; each figure is the median of repeated requests.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../server/db/connection';
import * as identity from '../server/modules/identity/identity.service';
import { startServerProcess } from '../test/support/process';

const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!databaseUrl) throw new Error('Run through `npm run bench` (or set BENCH_DATABASE_URL to a PostgreSQL database)');

const database = await openDatabase({ databaseUrl });
const db = database.db;
const run = (statement: ReturnType<typeof sql>) => db.execute(statement);
const rows = async <T>(statement: ReturnType<typeof sql>) => ((await run(statement)) as unknown as { rows: T[] }).rows;

async function enterpriseOrg() {
  const email = `bench-${randomUUID()}@example.test`;
  const user = await identity.ensureUser(db, email, { plan: 'enterprise' });
  const { key } = await identity.createApiKey(db, user, 'bench');
  return { orgId: user.orgId, key };
}

/** Inserts one subnet (top level unless a parent is given) and answers its id. */
async function seedSubnet(orgId: string, network: string, parentId: string | null = null, vrfId: string | null = null) {
  const [row] = await rows<{ id: string }>(sql`
    INSERT INTO subnets (org_id, network, parent_id, vrf_id) VALUES (${orgId}, ${network}::cidr, ${parentId}, ${vrfId})
    RETURNING id`);
  return row.id;
}

/** `count` children of `parentId` whose networks a SQL expression of `i` (0-based) gives. */
async function seedChildren(
  orgId: string,
  parentId: string | null,
  count: number,
  network: ReturnType<typeof sql>,
  vrfId: string | null = null,
) {
  await run(sql`
    INSERT INTO subnets (org_id, parent_id, vrf_id, network)
    SELECT ${orgId}, ${parentId}, ${vrfId}, ${network} FROM generate_series(0, ${count - 1}) AS i`);
}

const timings: { name: string; data: string; target: number; samples: number[] }[] = [];

async function measure(
  name: string,
  data: string,
  target: number,
  times: number,
  request: (i: number) => Promise<Response>,
) {
  const samples: number[] = [];
  for (let i = 0; i < times + 2; i++) {
    const start = performance.now();
    const response = await request(i);
    const body = await response.text();
    const ms = performance.now() - start;
    if (!response.ok) throw new Error(`${name}: ${response.status} ${body.slice(0, 300)}`);
    if (i >= 2) samples.push(ms); // the first two warm caches and prepared plans
  }
  timings.push({ name, data, target, samples });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))];

console.log('seeding …');
const seedStart = performance.now();

// One organisation holding 100,004 subnets: an IPv6 /32 with 10,000 /48s, an IPv4 /8 with 50,000 /24s,
// a /16 with 60,000 addresses, and another /8 with 40,000 /24s.
const big = await enterpriseOrg();
const v6 = await seedSubnet(big.orgId, '2001:db8::/32');
await seedChildren(big.orgId, v6, 10_000, sql`format('2001:db8:%s::/48', to_hex(i))::cidr`);
const v4 = await seedSubnet(big.orgId, '10.0.0.0/8');
await seedChildren(big.orgId, v4, 50_000, sql`set_masklen('10.0.0.0'::inet + i * 256, 24)::cidr`);
const other = await seedSubnet(big.orgId, '11.0.0.0/8');
await seedChildren(big.orgId, other, 40_000, sql`set_masklen('11.0.0.0'::inet + i * 256, 24)::cidr`);
const dense = await seedSubnet(big.orgId, '172.16.0.0/16');
await run(sql`
  INSERT INTO addresses (org_id, subnet_id, ip)
  SELECT ${big.orgId}, ${dense}, '172.16.0.1'::inet + i FROM generate_series(0, 59999) AS i`);

// 10,000 top-level /24s in each of several VRFs, for the re-parenting create.
const reparentVrfs: string[] = [];
for (let i = 0; i < 5; i++) {
  const [vrf] = await rows<{ id: string }>(
    sql`INSERT INTO vrfs (org_id, name) VALUES (${big.orgId}, ${`reparent-${i}`}) RETURNING id`,
  );
  await seedChildren(big.orgId, null, 10_000, sql`set_masklen('100.64.0.0'::inet + i * 256, 24)::cidr`, vrf.id);
  reparentVrfs.push(vrf.id);
}

// An organisation with 10,000 subnets (a /8 and 9,999 /24s) and 30,000 addresses, for the list.
const listed = await enterpriseOrg();
const listedRoot = await seedSubnet(listed.orgId, '10.0.0.0/8');
await seedChildren(listed.orgId, listedRoot, 9_999, sql`set_masklen('10.0.0.0'::inet + i * 256, 24)::cidr`);
await run(sql`
  INSERT INTO addresses (org_id, subnet_id, ip)
  SELECT ${listed.orgId}, s.id, host(s.network)::inet + n
  FROM (SELECT id, network FROM subnets WHERE org_id = ${listed.orgId} AND masklen(network) = 24 LIMIT 10000) s,
       generate_series(1, 3) AS n`);
// Steady state: autovacuum keeps the visibility map current, which index-only scans rely on.
await run(sql`VACUUM ANALYZE`);
console.log(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

const server = await startServerProcess({ DATABASE_URL: databaseUrl });
const call = (key: string, method: string, path: string, body?: unknown) =>
  fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

try {
  await measure('GET free-blocks, prefix 64, limit 50', 'IPv6 /32 holding 10,000 child /48s', 50, 30, () =>
    call(big.key, 'GET', `/subnets/${v6}/free-blocks?prefix=64&limit=50`),
  );
  await measure('GET free-blocks, prefix 24', 'IPv4 /8 holding 50,000 child /24s', 50, 30, () =>
    call(big.key, 'GET', `/subnets/${v4}/free-blocks?prefix=24`),
  );
  await measure('GET first-free', 'IPv4 /16 holding 60,000 addresses', 20, 30, () =>
    call(big.key, 'GET', `/subnets/${dense}/first-free`),
  );
  await measure('POST subnet (leaf)', 'organisation holding 100,000 subnets', 20, 30, (i) =>
    call(big.key, 'POST', '/subnets', { network: `11.0.${i}.0/28` }),
  );
  await measure('POST subnet re-parenting 10,000 subnets', '10,000 top-level /24s in the VRF', 1000, 3, (i) =>
    call(big.key, 'POST', '/subnets', { network: '100.64.0.0/10', vrf_id: reparentVrfs[i] }),
  );
  await measure('GET /subnets with utilization', '10,000 subnets, 30,000 addresses', 500, 10, () =>
    call(listed.key, 'GET', '/subnets'),
  );
  const batchParents: string[] = [];
  for (let i = 0; i < 22; i++) {
    const response = await call(listed.key, 'POST', '/subnets', { network: `192.168.${i * 2}.0/23` });
    batchParents.push(((await response.json()) as { id: string }).id);
  }
  await measure('POST batch-create 500 addresses', 'a fresh /23 each time', 250, 20, (i) =>
    call(listed.key, 'POST', `/subnets/${batchParents[i]}/addresses/batch-create`, {
      ips: Array.from({ length: 500 }, (_, n) => `192.168.${i * 2 + (n >> 8)}.${(n % 256) + 1}`).filter(
        (ip) => !ip.endsWith('.256'),
      ),
    }),
  );
} finally {
  await server.stop();
  await database.close();
}

console.log('\n| operation | data | target | median | p95 | |');
console.log('|---|---|---|---|---|---|');
for (const t of timings) {
  const m = median(t.samples);
  const verdict = m < t.target ? 'met' : 'MISSED';
  console.log(
    `| ${t.name} | ${t.data} | < ${t.target} ms | ${m.toFixed(1)} ms | ${p95(t.samples).toFixed(1)} ms | ${verdict} |`,
  );
}
