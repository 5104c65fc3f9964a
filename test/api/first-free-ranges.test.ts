/**
 * First-free narrowed by IP ranges (issue 24, part 4): inside one range (`range_id`), outside every range
 * (`skip_ranges`), past the first N usable addresses (`skip_first`), compared with a brute-force model over random
 * subnets (gateway, a child subnet, dense and sparse records, random ranges) and random queries, on both databases.
 */
import { describe, expect, it } from 'vitest';
import { subnetOf, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { randomFrom } from '../support/random';

const t = useTestServer({}, false);

const ipOf = (n: number) => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');
const numberOf = (ip: string) => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);

/** A random /26 (gateway, a child /29, records 20 to 95 % dense) with up to four ranges, and a model of it. */
async function randomSubnet(seed: number) {
  const random = randomFrom(seed);
  const org = await t.server.newOrg({ plan: 'pro' });
  const base = numberOf(`10.75.${seed}.0`);
  const gateway = random.next() < 0.5 ? base + random.int(1, 62) : null;
  const subnet = subnetOf(
    expectStatus(
      await org.api.call('createSubnet', {
        body: { network: `${ipOf(base)}/26`, ...(gateway === null ? {} : { gateway: ipOf(gateway) }) },
      }),
      201,
    ),
  );
  // A child /29 takes its block out of the subnet's free addresses.
  const child = random.next() < 0.5 ? base + 8 * random.int(0, 7) : null;
  if (child !== null) {
    expectStatus(await org.api.call('createSubnet', { body: { network: `${ipOf(child)}/29` } }), 201);
  }
  const inChild = (n: number) => child !== null && n >= child && n < child + 8;
  const density = random.pick([0.2, 0.6, 0.95]);
  const records = new Set<number>();
  for (let n = base + 1; n < base + 63; n++) {
    if (!inChild(n) && n !== gateway && random.next() < density) records.add(n);
  }
  if (records.size > 0) {
    const ips = [...records].map(ipOf);
    expectStatus(await org.api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips } }), 200);
  }
  // Up to four ranges that do not overlap, anywhere in the subnet.
  const points = [...new Set(Array.from({ length: 8 }, () => base + random.int(0, 63)))].sort((a, b) => a - b);
  const ranges: Range[] = [];
  for (let i = 0; i + 1 < points.length && ranges.length < 4; i += 2) {
    const [first, last] = [points[i] as number, points[i + 1] as number];
    const made = await org.api.call('createSubnetRange', {
      params: { id: subnet.id },
      body: { start: ipOf(first), end: ipOf(last), role: 'dhcp' },
    });
    ranges.push({ id: expectStatus(made, 201).id, first, last });
  }
  /** The lowest `count` free addresses of the part of the subnet asked for. */
  const firstFree = (range: Range | undefined, skipRanges: boolean, skipFirst: number, count = 1) => {
    const found: string[] = [];
    let first = base + 1;
    let last = base + 62;
    if (range) [first, last] = [Math.max(first, range.first), Math.min(last, range.last)];
    for (let n = first + skipFirst; n <= last; n++) {
      const taken = records.has(n) || n === gateway || inChild(n);
      if (!taken && !(skipRanges && ranges.some((r) => n >= r.first && n <= r.last))) found.push(ipOf(n));
      if (found.length === count) break;
    }
    return found;
  };
  return { org, subnet, random, ranges, records, firstFree };
}

type Range = { id: string; first: number; last: number };

describe('first-free with ranges against the model', () => {
  it.each([1, 2, 3, 4])('seed %i: the answer is the lowest free address of the part asked for', async (seed) => {
    const { org, subnet, random, ranges, firstFree } = await randomSubnet(seed);

    for (let round = 0; round < 20; round++) {
      const range = ranges.length > 0 && random.next() < 0.5 ? random.pick(ranges) : undefined;
      const skipRanges = range === undefined && random.next() < 0.5;
      const skipFirst = random.pick([0, 0, 1, 3, 10, 40, 70]);
      const query = {
        ...(range ? { range_id: range.id } : {}),
        ...(skipRanges ? { skip_ranges: 'true' } : {}),
        ...(skipFirst ? { skip_first: skipFirst } : {}),
      };
      const answer = expectStatus(
        await org.api.call('getSubnetFirstFreeIp', { params: { id: subnet.id }, query }),
        200,
      );
      expect([query, answer.ip]).toEqual([query, firstFree(range, skipRanges, skipFirst)[0] ?? null]);
    }
  });

  it.each([5, 6, 7])('seed %i: allocations take the lowest free addresses of the part asked for', async (seed) => {
    const { org, subnet, random, ranges, records, firstFree } = await randomSubnet(seed);
    for (let round = 0; round < 12; round++) {
      const range = ranges.length > 0 && random.next() < 0.5 ? random.pick(ranges) : undefined;
      const skipRanges = range === undefined && random.next() < 0.5;
      const skipFirst = random.pick([0, 0, 2, 9]);
      const count = random.int(1, 3);
      const body = {
        count,
        ...(range ? { range_id: range.id } : {}),
        ...(skipRanges ? { skip_ranges: true } : {}),
        ...(skipFirst ? { skip_first: skipFirst } : {}),
      };
      const expected = firstFree(range, skipRanges, skipFirst, count);
      const answer = await org.api.call('allocateAddress', { params: { id: subnet.id }, body });
      if (expected.length < count) {
        expect([body, expectStatus(answer, 409).code]).toEqual([body, 'exhausted']);
        continue;
      }
      expect([body, expectStatus(answer, 201).map((a) => a.ip)]).toEqual([body, expected]);
      for (const ip of expected) records.add(numberOf(ip));
    }
  });

  it('refuses range_id with skip_ranges and skip_first past 1,000,000; another subnet’s range is a 404', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    const subnet = subnetOf(
      expectStatus(await org.api.call('createSubnet', { body: { network: '10.76.0.0/24' } }), 201),
    );
    const other = subnetOf(
      expectStatus(await org.api.call('createSubnet', { body: { network: '10.76.1.0/24' } }), 201),
    );
    const range = expectStatus(
      await org.api.call('createSubnetRange', {
        params: { id: other.id },
        body: { start: '10.76.1.10', end: '10.76.1.20', role: 'dhcp' },
      }),
      201,
    );
    const call = (query: Record<string, string | number>) =>
      org.api.call('getSubnetFirstFreeIp', { params: { id: subnet.id }, query });
    expect(expectStatus(await call({ range_id: range.id, skip_ranges: 'true' }), 400).error).toMatch(/^skip_ranges: /);
    expect(expectStatus(await call({ skip_first: 1_000_001 }), 400).error).toContain('skip_first');
    expect(expectStatus(await call({ skip_first: 1_000_000 }), 200).ip).toBeNull();
    expect(expectStatus(await call({ skip_first: 0 }), 200).ip).toBe('10.76.0.1');
    expect(expectStatus(await call({ range_id: range.id }), 404).error).toBe('Range not found');
    const inOther = await org.api.call('getSubnetFirstFreeIp', {
      params: { id: other.id },
      query: { range_id: range.id },
    });
    expect(expectStatus(inOther, 200).ip).toBe('10.76.1.10');
    const allocate = (body: Record<string, unknown>) =>
      org.api.call('allocateAddress', { params: { id: subnet.id }, body });
    expect(expectStatus(await allocate({ range_id: range.id, skip_ranges: true }), 400).error).toMatch(
      /^skip_ranges: /,
    );
    expect(expectStatus(await allocate({ skip_first: 1_000_001 }), 400).error).toContain('skip_first');
    expectStatus(await allocate({ range_id: range.id }), 404);
    expect(expectStatus(await allocate({ skip_first: 1_000_000 }), 409).code).toBe('exhausted');
  });
});
