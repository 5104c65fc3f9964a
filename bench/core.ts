/**
 * The IPAM-core targets: latency of single requests (median and p95 of sequential requests) against
 * large organisations, each a fixed bound in milliseconds.
 */
import { sql } from 'drizzle-orm';
import type { Seeder } from './seed';

export interface CoreTiming {
  name: string;
  data: string;
  target: number;
  samples: number[];
}

type Call = (key: string, method: string, path: string, body?: unknown) => Promise<Response>;

/**
 * Times `times` sequential requests (after `warm` more that warm caches and prepared plans, not kept) into
 * `timings`; a request that fails stops the bench.
 */
export function measurer(timings: CoreTiming[], warm: number) {
  return async (
    name: string,
    data: string,
    target: number,
    times: number,
    request: (i: number) => Promise<Response>,
  ) => {
    const samples: number[] = [];
    for (let i = 0; i < times + warm; i++) {
      const start = performance.now();
      const response = await request(i);
      const body = await response.text();
      const ms = performance.now() - start;
      if (!response.ok) throw new Error(`${name}: ${response.status} ${body.slice(0, 300)}`);
      if (i >= warm) samples.push(ms);
    }
    timings.push({ name, data, target, samples });
  };
}

/**
 * One organisation holding 100,004 subnets: an IPv6 /32 with 10,000 /48s, an IPv4 /8 with 50,000 /24s,
 * a /16 with 60,000 addresses, and another /8 with 40,000 /24s (the core targets' and the ceilings').
 */
export async function seedLargeOrg(seed: Seeder) {
  const big = await seed.enterpriseOrg();
  const v6 = await seed.subnet(big.orgId, '2001:db8::/32');
  await seed.children(big.orgId, v6, 10_000, sql`format('2001:db8:%s::/48', to_hex(i))::cidr`);
  const v4 = await seed.subnet(big.orgId, '10.0.0.0/8');
  await seed.children(big.orgId, v4, 50_000, sql`set_masklen('10.0.0.0'::inet + i * 256, 24)::cidr`);
  const other = await seed.subnet(big.orgId, '11.0.0.0/8');
  await seed.children(big.orgId, other, 40_000, sql`set_masklen('11.0.0.0'::inet + i * 256, 24)::cidr`);
  const dense = await seed.subnet(big.orgId, '172.16.0.0/16');
  await seed.addresses(big.orgId, dense, '172.16.0.1', 60_000);
  return { ...big, v6, v4, other, dense };
}
export type LargeOrg = Awaited<ReturnType<typeof seedLargeOrg>>;

/** Seeds the organisations the core targets need; answers a function running one round of measurements. */
export async function prepareCore(seed: Seeder, big: LargeOrg) {
  const { v6, v4, dense } = big;

  // 10,000 top-level /24s in each of several VRFs (one per re-parenting create, three per round).
  const reparentVrfs: string[] = [];
  for (let i = 0; i < 9; i++) {
    const vrf = await seed.row<{ id: string }>(
      sql`INSERT INTO vrfs (org_id, name) VALUES (${big.orgId}, ${`reparent-${i}`}) RETURNING id`,
      'the VRF inserted',
    );
    await seed.children(big.orgId, null, 10_000, sql`set_masklen('100.64.0.0'::inet + i * 256, 24)::cidr`, vrf.id);
    reparentVrfs.push(vrf.id);
  }

  // An organisation with 10,000 subnets (a /8 and 9,999 /24s) and 30,000 addresses, for the list.
  const listed = await seed.enterpriseOrg();
  const listedRoot = await seed.subnet(listed.orgId, '10.0.0.0/8');
  await seed.children(listed.orgId, listedRoot, 9_999, sql`set_masklen('10.0.0.0'::inet + i * 256, 24)::cidr`);
  await seed.run(sql`
    INSERT INTO addresses (org_id, subnet_id, ip)
    SELECT ${listed.orgId}, s.id, host(s.network)::inet + n
    FROM (SELECT id, network FROM subnets WHERE org_id = ${listed.orgId} AND masklen(network) = 24 LIMIT 10000) s,
         generate_series(1, 3) AS n`);

  let leaf = 0;
  let batchBlock = 0;
  return async function measureRound(call: Call, round: number): Promise<CoreTiming[]> {
    const timings: CoreTiming[] = [];
    const measure = measurer(timings, 2);
    await measure('GET free-blocks, prefix 64, limit 50', 'IPv6 /32 holding 10,000 child /48s', 50, 30, () =>
      call(big.key, 'GET', `/subnets/${v6}/free-blocks?prefix=64&limit=50`),
    );
    await measure('GET free-blocks, prefix 24', 'IPv4 /8 holding 50,000 child /24s', 50, 30, () =>
      call(big.key, 'GET', `/subnets/${v4}/free-blocks?prefix=24`),
    );
    await measure('GET first-free', 'IPv4 /16 holding 60,000 addresses', 20, 30, () =>
      call(big.key, 'GET', `/subnets/${dense}/first-free`),
    );
    await measure('POST subnet (leaf)', 'organisation holding 100,000 subnets', 20, 30, () => {
      const n = leaf++;
      return call(big.key, 'POST', '/subnets', { network: `11.${n >> 8}.${n & 255}.0/28` });
    });
    await measure('POST subnet re-parenting 10,000 subnets', '10,000 top-level /24s in the VRF', 1000, 1, (i) =>
      call(big.key, 'POST', '/subnets', { network: '100.64.0.0/10', vrf_id: reparentVrfs[round * 3 + i] }),
    );
    await measure('GET /subnets with utilization', '10,000 subnets, 30,000 addresses', 500, 10, () =>
      call(listed.key, 'GET', '/subnets'),
    );
    const parents: string[] = [];
    for (let i = 0; i < 22; i++) {
      const block = batchBlock++;
      const response = await call(listed.key, 'POST', '/subnets', {
        network: `192.${168 + (block >> 7)}.${(block & 127) * 2}.0/23`,
      });
      if (response.status !== 201) throw new Error(`batch parent: ${response.status} ${await response.text()}`);
      parents.push(((await response.json()) as { id: string; network: string }).id);
    }
    const networks = new Map<string, string>();
    for (const id of parents) {
      const response = await call(listed.key, 'GET', `/subnets/${id}`);
      networks.set(id, ((await response.json()) as { network: string }).network);
    }
    await measure('POST batch-create 500 addresses', 'a fresh /23 each time', 250, 20, (i) => {
      const parent = parents[i];
      const network = parent === undefined ? undefined : networks.get(parent);
      if (parent === undefined || network === undefined) throw new Error(`no /23 prepared for batch ${i}`);
      const [a, b, c = 0] = network.split('.').map(Number);
      return call(listed.key, 'POST', `/subnets/${parent}/addresses/batch-create`, {
        ips: Array.from({ length: 500 }, (_, n) => `${a}.${b}.${c + (n >> 8)}.${(n & 255) + 1}`).filter(
          (ip) => !ip.endsWith('.256'),
        ),
      });
    });
    return timings;
  };
}
