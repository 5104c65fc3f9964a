/**
 * The SDK hands over counts of addresses exactly: a bigint past Number.MAX_SAFE_INTEGER (2^128 for ::/0),
 * a number below, typed `number | bigint` (AddressCount) on the schemas that carry them.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  type AddressCount,
  createClient,
  type IpamClient,
  type Subnet,
  type SubnetCreatedWithWarnings,
} from '../../clients/typescript/src/index';
import { useTestServer } from '../support/factories';

const t = useTestServer();
let sdk: IpamClient;
beforeAll(() => {
  sdk = createClient({ baseUrl: t.server.url, apiKey: t.org.key });
});

const subnetOf = (created: Subnet | SubnetCreatedWithWarnings): Subnet =>
  'warnings' in created ? created.subnet : created;

describe('exact counts of addresses in the SDK', () => {
  it('answers the total of ::/0 as the bigint 2^128', async () => {
    const subnet = subnetOf(await sdk.subnets.create({ network: '::/0' }));
    expect(subnet.total_count).toBe(2n ** 128n);
  });

  it('answers the usage total of a /64 as the bigint 2^64', async () => {
    const subnet = subnetOf(await sdk.subnets.create({ network: '2001:db8:64::/64' }));
    expect((await sdk.subnets.usage(subnet.id)).total).toBe(2n ** 64n);
  });

  it('answers the total of a /75 (2^53, past Number.MAX_SAFE_INTEGER) as a bigint and of a /76 as a number', async () => {
    const totals = [];
    for (const network of ['2001:db8:75::/75', '2001:db8:76::/76']) {
      totals.push(subnetOf(await sdk.subnets.create({ network })).total_count);
    }
    expect(totals).toEqual([2n ** 53n, 2 ** 52]);
  });

  it('answers exact totals through the operations by operationId too', async () => {
    const created = subnetOf(await sdk.subnets.create({ network: '2001:db8:1::/48' }));
    const answer = await sdk.getSubnet(created.id);
    expect(answer.status === 200 && answer.data.total_count).toBe(2n ** 80n);
  });

  it('types the counts as number | bigint', () => {
    expectTypeOf<Subnet['total_count']>().toEqualTypeOf<AddressCount | undefined>();
    expectTypeOf<Awaited<ReturnType<IpamClient['subnets']['usage']>>['total']>().toEqualTypeOf<number | bigint>();
    expectTypeOf<Awaited<ReturnType<IpamClient['subnets']['list']>>[number]>().toEqualTypeOf<Subnet>();
  });

  it('retypes every schema of the document that carries a count of addresses', () => {
    const document = JSON.parse(readFileSync('openapi/openapi.json', 'utf8'));
    const carrying = Object.entries(document.components.schemas as Record<string, { properties?: object }>)
      .filter(([, schema]) =>
        Object.values(schema.properties ?? {}).some((property: { description?: string }) =>
          property.description?.includes('Exact in the JSON text'),
        ),
      )
      .map(([name]) => name);
    // counts.ts: IpRange, Subnet, SubnetDetail and SubnetUsage (and SubnetCreatedWithWarnings, which holds one).
    expect(carrying.sort()).toEqual(['IpRange', 'Subnet', 'SubnetDetail', 'SubnetUsage']);
  });
});
