/**
 * Filters of a subnet's address list (issue 24, part 3): status (one or several), hostname prefix and substring
 * (any case, `%` and `_` as themselves), MAC address (any form), created and updated after a time, compared with a
 * model over random records and random filters: the first page, its total, an offset page and a walk by cursor.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus, type ResponseBody } from '../support/observed';
import { randomFrom } from '../support/random';

const t = useTestServer({}, false);

type Address = ResponseBody<'listSubnetAddresses', 200>[number];
type Query = Record<string, string | number>;

const HOSTNAMES = ['web-01', 'WEB-02', 'web-10', 'db_1', 'db%2', 'dbx1', 'mail', 'Mail-relay', ''];
const MACS = ['', 'aa:bb:cc:00:00:01', 'aa:bb:cc:00:00:02'];
const STATUSES = ['assigned', 'reserved', 'd-dhcp', 'm-dhcp', 'gateway'];
const FORMS = [
  (m: string) => m,
  (m: string) => m.toUpperCase().replaceAll(':', '-'),
  (m: string) => m.replaceAll(':', ''),
];

/** The model: the whole list, filtered as the query asks. */
function model(all: Address[], q: Query) {
  const lower = (s: unknown) => String(s ?? '').toLowerCase();
  const mac = q.mac_address === undefined ? undefined : lower(q.mac_address).replace(/[:-]/g, '');
  return all.filter(
    (a) =>
      (q.status === undefined || String(q.status).split(',').includes(a.status)) &&
      (q.hostname_prefix === undefined || lower(a.hostname).startsWith(lower(q.hostname_prefix))) &&
      (q.hostname_contains === undefined || lower(a.hostname).includes(lower(q.hostname_contains))) &&
      (mac === undefined || a.mac_address.replaceAll(':', '') === mac) &&
      (q.created_after === undefined || Date.parse(a.created_at) > Date.parse(String(q.created_after))) &&
      (q.updated_after === undefined || Date.parse(a.updated_at) > Date.parse(String(q.updated_after))),
  );
}

const list = (api: ApiClient, subnetId: string, query: Query) =>
  api.call('listSubnetAddresses', { params: { id: subnetId }, query });

describe('filters of a subnet’s address list against the model', () => {
  it.each([1, 2, 3])(
    'seed %i: pages, totals and walks list what the model does',
    async (seed) => {
      const random = randomFrom(seed);
      const org = await t.server.newOrg({ plan: 'pro' });
      const subnet = await createSubnet(org.api, `10.91.${seed}.0/24`);
      const create = async (host: number) => {
        const body = {
          ip: `10.91.${seed}.${host}`,
          hostname: random.pick(HOSTNAMES),
          mac_address: random.pick(MACS),
          status: random.pick(STATUSES),
        };
        expectStatus(await org.api.call('createAddress', { params: { id: subnet.id }, body }), 201);
      };
      for (let host = 1; host <= 30; host++) await create(host);
      // Times before, between and after the two batches (milliseconds apart from every record).
      await new Promise((resolve) => setTimeout(resolve, 5));
      const between = new Date().toISOString();
      await new Promise((resolve) => setTimeout(resolve, 5));
      for (let host = 31; host <= 60; host++) await create(host);
      const all = expectStatus(await list(org.api, subnet.id, {}), 200);
      const times = ['2020-01-01T00:00:00Z', between, '2999-01-01T00:00:00.000001Z'];

      for (let round = 0; round < 30; round++) {
        const query: Query = {};
        const maybe = (key: string, value: () => string) => {
          if (random.next() < 0.35) query[key] = value();
        };
        maybe('status', () => [...new Set([random.pick(STATUSES), random.pick(STATUSES)])].join(','));
        maybe('hostname_prefix', () => random.pick(['web', 'WE', 'db_', 'db%', 'm', 'x', '']));
        maybe('hostname_contains', () => random.pick(['-0', 'B', '%', '_', 'AI', '1']));
        maybe('mac_address', () => random.pick(FORMS)(random.pick(MACS)));
        maybe('created_after', () => random.pick(times));
        maybe('updated_after', () => random.pick(times));
        const expected = model(all, query).map((a) => a.ip);

        const first = await list(org.api, subnet.id, query);
        expect([query, expectStatus(first, 200).map((a) => a.ip)]).toEqual([query, expected]);
        expect(first.headers.get('x-total-count')).toBe(String(expected.length));
        const offset = await list(org.api, subnet.id, { ...query, offset: 2, limit: 3 });
        expect(expectStatus(offset, 200).map((a) => a.ip)).toEqual(expected.slice(2, 5));

        const limit = random.int(1, 7);
        const walked: string[] = [];
        let cursor: string | null = null;
        do {
          const page: ApiResponse = await list(org.api, subnet.id, { ...query, limit, ...(cursor ? { cursor } : {}) });
          expect(page.status).toBe(200);
          walked.push(...(page.body as Address[]).map((a) => a.ip));
          cursor = page.headers.get('next-cursor');
        } while (cursor !== null);
        expect([query, walked]).toEqual([query, expected]);
      }
    },
    120_000,
  );

  it('refuses an unknown status, a malformed MAC and a time before year 1, naming the parameter (400)', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    const subnet = await createSubnet(org.api, '10.91.9.0/24');
    for (const [query, field] of [
      [{ status: 'assigned,lost' }, 'status'],
      [{ mac_address: 'aa:bb' }, 'mac_address'],
      [{ created_after: 'yesterday' }, 'created_after'],
      [{ updated_after: '0000-01-01T00:00:00Z' }, 'updated_after'],
      [{ hostname_prefix: 'x'.repeat(254) }, 'hostname_prefix'],
    ] as const) {
      const refused = expectStatus(await list(org.api, subnet.id, query), 400);
      expect([field, refused.error]).toEqual([field, expect.stringContaining(field)]);
    }
    expectStatus(await list(org.api, subnet.id, { hostname_prefix: 'x'.repeat(253) }), 200);
    const missing = await org.api.call('listSubnetAddresses', {
      params: { id: '00000000-0000-4000-8000-000000000000' },
      query: { status: 'reserved' },
    });
    expectStatus(missing, 404);
  });
});
