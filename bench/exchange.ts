/**
 * The data-exchange targets (imports, export, search, allocation): latency of single requests against an
 * organisation seeded for them, each a fixed bound in milliseconds, reported with the IPAM-core table.
 */
import { type CoreTiming, measurer } from './core';
import type { Seeder } from './seed';

type Call = (key: string, method: string, path: string, body?: unknown) => Promise<Response>;

/** Samples per round of each import (two more warm up in the first round). */
const IMPORTS = 3;

export async function prepareExchange(seed: Seeder) {
  const org = await seed.enterpriseOrg();
  // One /22 per address import, each filled with 1,000 rows.
  const slash22s: string[] = [];
  for (let i = 0; i < 40; i++) slash22s.push(`100.64.${i * 4}.0/22`);
  for (const network of slash22s) await seed.subnet(org.orgId, network);
  let subnetImports = 0;
  let addressImports = 0;

  return async function measureRound(call: Call): Promise<CoreTiming[]> {
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
      const [a, b, c] = subnet.split('.').map(Number);
      const addresses = Array.from({ length: 1000 }, (_, i) => ({
        ip: `${a}.${b}.${c + ((i + 1) >> 8)}.${(i + 1) & 255}`,
        subnet,
        hostname: `host-${i}`,
      }));
      return call(org.key, 'POST', '/import/addresses', { addresses });
    });
    return timings;
  };
}
