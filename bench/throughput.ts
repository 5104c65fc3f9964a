/**
 * Throughput of the hot paths as ratios of a ceiling measured in the same run: bare Express and one
 * prepared primary-key SELECT on the same database (bench/baseline.ts). Each scenario runs 50
 * connections for a few seconds; only answers with the expected status count.
 */
import { cpuMeter, type LoadOptions, type LoadResult, load } from './load';
import { hotSite, type Seeder } from './seed';

export interface Scenario {
  name: string;
  /** Least ratio of the ceiling's requests per second; null: reported only. */
  target: number | null;
  options: (urls: { server: string; baseline: string }) => LoadOptions;
}

export interface ScenarioRound {
  name: string;
  target: number | null;
  result: LoadResult;
  ratio: number;
  /** CPU ms per request of the serving process and of PostgreSQL. */
  cpu: { server: number; postgres: number };
}

/** Seeds the hot-path organisation and answers the scenarios, the ceiling first. */
export async function prepareThroughput(seed: Seeder): Promise<Scenario[]> {
  const hot = await seed.enterpriseOrg();
  const site = await hotSite(seed, hot.orgId);
  const listed = await seed.subnet(hot.orgId, '172.21.0.0/22');
  await seed.addresses(hot.orgId, listed, '172.21.0.1', 1000);
  const target = await seed.subnet(hot.orgId, '10.0.0.0/8');
  let next = 0;
  const auth = { authorization: `Bearer ${hot.key}` };
  return [
    {
      name: 'ceiling: bare Express + prepared PK SELECT',
      target: null,
      options: ({ baseline }) => ({ url: `${baseline}/subnets/${site}`, expect: 200 }),
    },
    {
      name: 'GET /subnets/{id}',
      // Issue 22's targets (they were 0.5, 0.3 and 0.25 before it).
      target: 0.7,
      options: ({ server }) => ({ url: `${server}/api/v1/subnets/${site}`, headers: auth, expect: 200 }),
    },
    {
      name: 'GET /subnets/{id}/addresses?limit=100',
      target: 0.5,
      options: ({ server }) => ({
        url: `${server}/api/v1/subnets/${listed}/addresses?limit=100`,
        headers: auth,
        expect: 200,
      }),
    },
    {
      name: 'POST /subnets/{id}/addresses',
      target: 0.4,
      options: ({ server }) => ({
        url: `${server}/api/v1/subnets/${target}/addresses`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: () => {
          const n = ++next;
          return JSON.stringify({ ip: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`, hostname: `h${n}` });
        },
        expect: 201,
      }),
    },
    {
      name: 'GET /auth/me',
      target: 0.6,
      options: ({ server }) => ({ url: `${server}/api/v1/auth/me`, headers: auth, expect: 200 }),
    },
    {
      name: 'GET /openapi.json (10 connections)',
      target: null,
      options: ({ server }) => ({ url: `${server}/openapi.json`, expect: 200, connections: 10 }),
    },
  ];
}

/** One round: the ceiling, then every scenario; a scenario with unexpected answers fails the bench. */
export async function throughputRound(
  scenarios: Scenario[],
  urls: { server: string; baseline: string },
  pids: { server: number; baseline: number },
  seconds: number,
): Promise<ScenarioRound[]> {
  const results: ScenarioRound[] = [];
  let ceiling = Number.NaN;
  for (const scenario of scenarios) {
    await load({ ...scenario.options(urls), seconds: 1 }); // warm-up: connections, plans, JIT
    const meter = cpuMeter(Number.isNaN(ceiling) ? pids.baseline : pids.server);
    const result = await load({ ...scenario.options(urls), seconds });
    const cpu = meter(result.requests);
    if (result.unexpected > 0) {
      throw new Error(`${scenario.name}: ${result.unexpected} answers with another status or errors`);
    }
    if (Number.isNaN(ceiling)) ceiling = result.requestsPerSecond;
    results.push({ ...scenario, result, ratio: result.requestsPerSecond / ceiling, cpu });
  }
  return results;
}
