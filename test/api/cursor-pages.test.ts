/**
 * Cursor pages (server/cursors.ts) of the lists that can be long: a subnet's addresses, the activity log and a
 * webhook's deliveries. Every page but the last carries `Next-Cursor` and `Link: <…>; rel="next"`; `?cursor=`
 * gives the page after it; pages stay exact while writers insert and delete (keyset, not offset).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from '../fixtures/receiver';
import type { ApiClient, ApiResponse } from '../support/client';
import { createSubnet, subnetOf, useTestServer } from '../support/factories';
import { expectStatus, type ResponseBody } from '../support/observed';

const t = useTestServer({ config: { outboundAllowCidrs: ['127.0.0.1/32'] } });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(() => receiver?.close());

/** The cursor of a page, null on the last; its Link, when there is one, names the same cursor. */
function nextOf(answer: ApiResponse): string | null {
  const cursor = answer.headers.get('next-cursor');
  const link = answer.headers.get('link');
  expect(link === null).toBe(cursor === null);
  if (cursor !== null) expect(link).toContain(`cursor=${cursor}>; rel="next"`);
  return cursor;
}

/** Every page of a subnet's addresses, `limit` at a time, following the cursors; the ips of each page. */
async function walkAddresses(api: ApiClient, subnetId: string, limit: number, between?: () => Promise<void>) {
  const pages: string[][] = [];
  let cursor: string | null = null;
  do {
    const answer = await api.call('listSubnetAddresses', {
      params: { id: subnetId },
      query: cursor === null ? { limit } : { limit, cursor },
    });
    pages.push(expectStatus(answer, 200).map((a) => a.ip));
    cursor = nextOf(answer);
    await between?.();
  } while (cursor !== null);
  return pages;
}

const ipsOf = (third: number, from: number, count: number) =>
  Array.from({ length: count }, (_, i) => `10.77.${third}.${from + i}`);

describe('cursor pages of a subnet’s addresses', () => {
  it('walk every address once, in order; the last page carries no cursor', async () => {
    const subnet = await createSubnet(t.org.api, '10.77.1.0/24');
    const ips = ipsOf(1, 1, 23);
    expectStatus(await t.org.api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips } }), 200);
    for (const limit of [1, 5, 22, 23, 24, 1000]) {
      const pages = await walkAddresses(t.org.api, subnet.id, limit);
      expect(pages.flat()).toEqual(ips);
      expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
      expect(pages.length).toBe(Math.max(1, Math.ceil(23 / limit)));
    }
  });

  it('an offset page carries the cursor of the page after it, and its Link leads there', async () => {
    const subnet = await createSubnet(t.org.api, '10.77.2.0/24');
    const ips = ipsOf(2, 1, 10);
    expectStatus(await t.org.api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips } }), 200);
    const first = await t.org.api.call('listSubnetAddresses', {
      params: { id: subnet.id },
      query: { limit: 4, offset: 3 },
    });
    expect(expectStatus(first, 200).map((a) => a.ip)).toEqual(ips.slice(3, 7));
    nextOf(first);
    const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '')?.[1] ?? '';
    expect(link).not.toContain('offset=');
    const followed = await fetch(`${t.server.url}${link}`, { headers: { authorization: `Bearer ${t.org.key}` } });
    expect(((await followed.json()) as { ip: string }[]).map((a) => a.ip)).toEqual(ips.slice(7, 10));
    expect(followed.headers.get('next-cursor')).toBeNull();
    expect(followed.headers.get('x-total-count')).toBe('10');
  });

  it('an empty subnet is one page without a cursor', async () => {
    const subnet = await createSubnet(t.org.api, '10.77.3.0/24');
    const answer = await t.org.api.call('listSubnetAddresses', { params: { id: subnet.id } });
    expect(expectStatus(answer, 200)).toEqual([]);
    expect(nextOf(answer)).toBeNull();
  });

  it('see every address that exists throughout exactly once while 4 writers insert and delete others', async () => {
    const subnet = await createSubnet(t.org.api, '10.77.4.0/24');
    // Even last octets stay throughout; odd ones come and go.
    const stable = Array.from({ length: 60 }, (_, i) => `10.77.4.${2 * i + 2}`);
    expectStatus(
      await t.org.api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips: stable } }),
      200,
    );
    let round = 0;
    const churn = async () => {
      round++;
      await Promise.all(
        [0, 1, 2, 3].map(async (writer) => {
          const ips = Array.from(
            { length: 6 },
            (_, i) => `10.77.4.${2 * ((round * 7 + writer * 13 + i * 5) % 60) + 1}`,
          );
          const made = await t.org.api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips } });
          expect([200, 409]).toContain(made.status);
          const page = expectStatus(
            await t.org.api.call('listSubnetAddresses', { params: { id: subnet.id }, query: { limit: 1000 } }),
            200,
          );
          const odd = page.filter((a) => Number(a.ip.split('.')[3]) % 2 === 1 && (a.ip.length + writer) % 2 === 0);
          if (odd.length > 0) {
            const gone = await t.org.api.call('batchDeleteAddresses', {
              body: { ids: odd.slice(0, 4).map((a) => a.id) },
            });
            expect([200, 409]).toContain(gone.status);
          }
        }),
      );
    };
    const seen = (await walkAddresses(t.org.api, subnet.id, 7, churn)).flat();
    expect(seen.filter((ip) => stable.includes(ip))).toEqual(stable);
    expect(new Set(seen).size).toBe(seen.length);
    const sorted = [...seen].sort((a, b) => Number(a.split('.')[3]) - Number(b.split('.')[3]));
    expect(seen).toEqual(sorted);
  });

  it('400 naming the cursor for one that is not a cursor of this list, and with an offset', async () => {
    const subnet = await createSubnet(t.org.api, '10.77.5.0/24');
    const other = await createSubnet(t.org.api, '10.77.6.0/24');
    expectStatus(
      await t.org.api.call('batchCreateAddresses', { params: { id: other.id }, body: { ips: ipsOf(6, 1, 3) } }),
      200,
    );
    const first = await t.org.api.call('listSubnetAddresses', { params: { id: other.id }, query: { limit: 1 } });
    const otherCursor = nextOf(first) ?? expect.unreachable('a cursor');
    const activity = await t.org.api.call('listActivity', { query: { limit: 1 } });
    const activityCursor = nextOf(activity) ?? expect.unreachable('a cursor of the log');
    for (const [cursor, field] of [
      ['not-a-cursor', /^cursor: /],
      [otherCursor, /^cursor: /],
      [activityCursor, /^cursor: /],
      [Buffer.from(JSON.stringify([`the addresses of subnet ${subnet.id}`, 'x'])).toString('base64url'), /^cursor: /],
      ['a'.repeat(1024), /^cursor: /],
      ['a'.repeat(1025), /cursor/],
    ] as const) {
      const answer = await t.org.api.call('listSubnetAddresses', { params: { id: subnet.id }, query: { cursor } });
      expect(expectStatus(answer, 400).error).toMatch(field);
    }
    const both = await t.org.api.call('listSubnetAddresses', {
      params: { id: other.id },
      query: { cursor: otherCursor, offset: 1 },
    });
    expect(expectStatus(both, 400).error).toMatch(/^offset: not with cursor/);
  });
});

describe('cursor pages of the activity log', () => {
  it('walk the entries newest first, each once, while new entries are written; filters apply', async () => {
    const org = await t.server.newOrg();
    for (let i = 0; i < 9; i++) expectStatus(await org.api.call('createFolder', { body: { name: `f${i}` } }), 201);
    const before = expectStatus(await org.api.call('listActivity', { query: { limit: 500 } }), 200).entries;
    const seen: number[] = [];
    let cursor: string | null = null;
    let writes = 0;
    do {
      const answer = await org.api.call('listActivity', {
        query: { limit: 2, resource_type: 'folder', ...(cursor ? { cursor } : {}) },
      });
      seen.push(...expectStatus(answer, 200).entries.map((e) => e.id));
      cursor = nextOf(answer);
      // A newer entry lands before the cursor: not on a later page.
      expectStatus(await org.api.call('createFolder', { body: { name: `new${writes++}` } }), 201);
    } while (cursor !== null);
    expect(seen).toEqual(before.map((e) => e.id));
  });

  it('400 with an offset beside the cursor', async () => {
    const org = await t.server.newOrg();
    for (let i = 0; i < 3; i++) expectStatus(await org.api.call('createFolder', { body: { name: `f${i}` } }), 201);
    const cursor =
      nextOf(await org.api.call('listActivity', { query: { limit: 1 } })) ?? expect.unreachable('a cursor');
    const answer = await org.api.call('listActivity', { query: { cursor, offset: 2 } });
    expect(expectStatus(answer, 400).error).toMatch(/^offset: /);
    const bad = await org.api.call('listActivity', { query: { cursor: 'e30' } });
    expect(expectStatus(bad, 400).error).toMatch(/^cursor: /);
  });

  it('400, never a 500, for a cursor whose parts the database could not read', async () => {
    const org = await t.server.newOrg();
    const hook = expectStatus(await org.api.call('createWebhook', { body: { url: receiver.url('/odd') } }), 201);
    const cursorOf = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
    const log = 'the activity log';
    const deliveries = `the deliveries of webhook ${hook.id}`;
    const uuid = '00000000-0000-4000-8000-000000000000';
    for (const at of ['1', '2026', '2026-02-30 00:00:00+00', '2026-11-27 25:00:00+00', '2026-11-27T12:00:00Z']) {
      const answer = await org.api.call('listActivity', { query: { cursor: cursorOf([log, at, 5]) } });
      expect([at, expectStatus(answer, 400).error]).toEqual([at, expect.stringMatching(/^cursor: /)]);
    }
    const good = '2026-11-27 12:03:49.856123+00';
    expectStatus(await org.api.call('listActivity', { query: { cursor: cursorOf([log, good, 5]) } }), 200);
    expect((await org.api.call('listActivity', { query: { cursor: cursorOf([log, good, 2 ** 60]) } })).status).toBe(
      400,
    );
    for (const attempt of [2 ** 31, -1, 1.5]) {
      const answer = await org.api.call('listWebhookDeliveries', {
        params: { id: hook.id },
        query: { cursor: cursorOf([deliveries, good, attempt, uuid]) },
      });
      expect([attempt, expectStatus(answer, 400).error]).toEqual([attempt, expect.stringMatching(/^cursor: /)]);
    }
    const last = await org.api.call('listWebhookDeliveries', {
      params: { id: hook.id },
      query: { cursor: cursorOf([deliveries, good, 2 ** 31 - 1, uuid]) },
    });
    expect(expectStatus(last, 200)).toEqual([]);
  });
});

describe('cursor pages of a webhook’s deliveries', () => {
  it('walk every delivery once, newest first', async () => {
    const org = await t.server.newOrg();
    const hook = expectStatus(await org.api.call('createWebhook', { body: { url: receiver.url('/pages') } }), 201);
    for (let i = 0; i < 7; i++) expectStatus(await org.api.call('testWebhook', { params: { id: hook.id } }), 200);
    const all = expectStatus(
      await org.api.call('listWebhookDeliveries', { params: { id: hook.id }, query: { limit: 100 } }),
      200,
    );
    expect(all).toHaveLength(7);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const answer = await org.api.call('listWebhookDeliveries', {
        params: { id: hook.id },
        query: cursor ? { limit: 3, cursor } : { limit: 3 },
      });
      seen.push(...expectStatus(answer, 200).map((d) => d.id));
      cursor = nextOf(answer);
    } while (cursor !== null);
    expect(seen).toEqual(all.map((d) => d.id));
    const wrong = await org.api.call('listWebhookDeliveries', { params: { id: hook.id }, query: { cursor: 'e30' } });
    expect(expectStatus(wrong, 400).error).toMatch(/^cursor: /);
  });
});

describe('cursor pages of the subnet list (when asked for)', () => {
  /** Every page of the organisation's subnets, `limit` at a time, following the cursors. */
  async function walkSubnets(
    api: ApiClient,
    query: { limit?: number; folder_id?: string },
    between?: () => Promise<void>,
  ) {
    const pages: ResponseBody<'listSubnets', 200>[] = [];
    let cursor: string | null = null;
    do {
      const answer = await api.call('listSubnets', { query: cursor === null ? query : { ...query, cursor } });
      pages.push(expectStatus(answer, 200));
      cursor = nextOf(answer);
      await between?.();
    } while (cursor !== null);
    return pages;
  }

  it('walk the whole list in its order, each subnet once with the same body, for any limit; none without one', async () => {
    const org = await t.server.newOrg();
    const vrf = expectStatus(await org.api.call('createVrf', { body: { name: 'blue' } }), 201);
    const folder = expectStatus(await org.api.call('createFolder', { body: { name: 'dc' } }), 201);
    const top = await createSubnet(org.api, '10.78.0.0/16', { folder_id: folder.id });
    const child = await createSubnet(org.api, '10.78.1.0/24');
    await createSubnet(org.api, '10.78.2.0/24', { tracked: false, folder_id: folder.id });
    await createSubnet(org.api, '10.78.0.0/16', { vrf_id: vrf.id });
    await createSubnet(org.api, '2001:db8:78::/48');
    await createSubnet(org.api, '192.168.78.0/24', { folder_id: folder.id });
    const ips = ['10.78.1.1', '10.78.1.2'];
    expectStatus(await org.api.call('batchCreateAddresses', { params: { id: child.id }, body: { ips } }), 200);
    expectStatus(await org.api.call('createAddress', { params: { id: top.id }, body: { ip: '10.78.3.1' } }), 201);
    const whole = await org.api.call('listSubnets', {});
    expect(nextOf(whole)).toBeNull();
    const all = expectStatus(whole, 200);
    expect(all).toHaveLength(6);
    for (const limit of [1, 2, 5, 6, 1000]) {
      const pages = await walkSubnets(org.api, { limit });
      expect(pages.flat()).toEqual(all);
      expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
    }
    const filtered = all.filter((s) => s.folder_id === folder.id);
    expect((await walkSubnets(org.api, { limit: 2, folder_id: folder.id })).flat()).toEqual(filtered);
  });

  it('see every subnet that exists throughout exactly once while 4 writers create and delete others', async () => {
    const org = await t.server.newOrg();
    const stable: string[] = [];
    for (let i = 0; i < 30; i++) stable.push((await createSubnet(org.api, `10.79.${2 * i}.0/24`)).id);
    let round = 0;
    // Odd third octets come and go: each writer creates one, or deletes it when it is there.
    const made = new Map<string, string>();
    const churn = async () => {
      round++;
      await Promise.all(
        [0, 1, 2, 3].map(async (writer) => {
          const network = `10.79.${2 * ((round * 7 + writer * 13) % 30) + 1}.0/24`;
          const id = made.get(network);
          if (id) {
            made.delete(network);
            expect([204, 404]).toContain((await org.api.call('deleteSubnet', { params: { id } })).status);
            return;
          }
          const answer = await org.api.call('createSubnet', { body: { network } });
          if (answer.status === 201) made.set(network, subnetOf(expectStatus(answer, 201)).id);
        }),
      );
    };
    const seen = (await walkSubnets(org.api, { limit: 4 }, churn)).flat().map((s) => s.id);
    expect(seen.filter((id) => stable.includes(id))).toEqual(stable);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it('take limit 1 and 1,000, refuse 0 and 1,001, and 400 naming the cursor for one not of this list', async () => {
    const org = await t.server.newOrg();
    await createSubnet(org.api, '10.80.0.0/24');
    await createSubnet(org.api, '10.80.1.0/24');
    expect(expectStatus(await org.api.call('listSubnets', { query: { limit: 1 } }), 200)).toHaveLength(1);
    expect(expectStatus(await org.api.call('listSubnets', { query: { limit: 1000 } }), 200)).toHaveLength(2);
    for (const limit of [0, 1001]) {
      expect(expectStatus(await org.api.call('listSubnets', { query: { limit } }), 400).error).toMatch(/limit/);
    }
    const cursorOf = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
    const list = 'the subnet list';
    const nil = '00000000-0000-0000-0000-000000000000';
    for (const cursor of [
      'nonsense',
      cursorOf(['the activity log', '2026-11-27 12:03:49+00', 5]),
      cursorOf([list, 1, nil, 4, '10.0.0.1/24']),
      cursorOf([list, 1, nil, 6, '10.0.0.0/24']),
      cursorOf([list, 2, nil, 4, '10.0.0.0/24']),
      cursorOf([list, 1, 'x', 4, '10.0.0.0/24']),
    ]) {
      expect(expectStatus(await org.api.call('listSubnets', { query: { cursor } }), 400).error).toMatch(/^cursor: /);
    }
    const after = cursorOf([list, 1, nil, 4, '10.80.0.0/24']);
    expect(
      expectStatus(await org.api.call('listSubnets', { query: { cursor: after } }), 200).map((s) => s.network),
    ).toEqual(['10.80.1.0/24']);
  });
});
