/** The resource methods of the SDK (`client.subnets.create(…)`) against the real server: bodies, typed errors, paging. */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, expectTypeOf, it, vi } from 'vitest';
import {
  ApiError,
  type ApiErrorCode,
  AuthenticationError,
  apiErrorFor,
  BadRequestError,
  type Change,
  CursorExpiredError,
  createClient,
  type ErrorCode,
  type Folder,
  type IpamClient,
  isErrorCode,
  NotFoundError,
  PermissionDeniedError,
  PlanLimitError,
  PreconditionFailedError,
  RateLimitError,
  RESOURCES,
  type Subnet,
  type SubnetCreatedWithWarnings,
  type WithLastResponse,
} from '../../clients/typescript/src/index';
import type { ErrorCode as ContractErrorCode } from '../../contract/common/errors';
import { purgeExpiredActivity } from '../../server/modules/activity/activity.service';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import type { TestServer } from '../support/server';

const t = useTestServer({}, false);

/** A client of a fresh pro organisation that counts its requests. */
async function newClient(options: Parameters<TestServer['newOrg']>[0] = {}) {
  const org = await t.server.newOrg(options);
  const requests: string[] = [];
  const client = createClient({
    baseUrl: t.server.url,
    apiKey: org.key,
    fetch: (input, init) => {
      requests.push(`${init?.method ?? 'GET'} ${String(input).slice(t.server.url.length)}`);
      return fetch(input, init);
    },
  });
  return { org, client, requests };
}

/** The rejection of `promise`, which must be an instance of `type`. */
async function rejection<T extends ApiError>(promise: Promise<unknown>, type: new (...args: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => expect.unreachable('expected a rejection'),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(type);
  return error as T;
}

/** A created subnet: the 201 body is the subnet, or `{subnet, warnings}` when it overlaps other VRFs. */
const subnetOf = (created: Subnet | SubnetCreatedWithWarnings): Subnet =>
  'warnings' in created ? created.subnet : created;

describe('resource groups', () => {
  it('are the OpenAPI tags, each holding every operation of its tag once', () => {
    const document = JSON.parse(readFileSync('openapi/openapi.json', 'utf8'));
    const tagOf = new Map<string, string | undefined>();
    for (const item of Object.values(document.paths) as Record<string, { operationId: string; tags: string[] }>[]) {
      for (const operation of Object.values(item)) tagOf.set(operation.operationId, operation.tags[0]);
    }
    const grouped = Object.values(RESOURCES).flatMap((methods) => Object.values(methods) as string[]);
    expect([...grouped].sort()).toEqual([...tagOf.keys()].sort());
    for (const [group, methods] of Object.entries(RESOURCES)) {
      const tags = new Set(Object.values(methods).map((operationId) => tagOf.get(operationId)));
      expect(tags.size, group).toBe(1);
    }
  });
});

describe('resource methods resolve to the success body', () => {
  it('creates, lists, gets, updates and deletes a folder', async () => {
    const { client } = await newClient();
    const folder = await client.folders.create({ name: 'Datacenter A' });
    expectTypeOf(folder).toEqualTypeOf<WithLastResponse<Folder>>();
    expect(folder).toMatchObject({ name: 'Datacenter A', description: '' });
    expect(folder.lastResponse).toMatchObject({ status: 201, requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(folder.lastResponse.rateLimit?.limit).toBeGreaterThan(0);
    expect(Object.keys(folder)).not.toContain('lastResponse');
    expect((await client.folders.list()).map((f) => f.id)).toEqual([folder.id]);
    expect(await client.folders.get(folder.id)).toEqual(folder);
    expect(await client.folders.update(folder.id, { description: 'racks 1-9' })).toEqual({
      ...folder,
      description: 'racks 1-9',
    });
    expect(await client.folders.delete(folder.id)).toBeUndefined();
    await rejection(client.folders.get(folder.id), NotFoundError);
  });

  it('passes versions through: etag of a get, ifMatch on update and delete, ifNoneMatch on get', async () => {
    const { client } = await newClient();
    const subnet = subnetOf(await client.subnets.create({ network: '10.60.0.0/24' }));
    const read = await client.subnets.get(subnet.id);
    const version = read.lastResponse.etag ?? expect.unreachable('the ETag of a GET');
    expect(await client.subnets.get(subnet.id, { ifNoneMatch: version })).toBeUndefined();
    const updated = await client.subnets.update(subnet.id, { name: 'edge' }, { ifMatch: version });
    const current = updated.lastResponse.etag ?? expect.unreachable('the ETag of a PATCH');
    expect(updated.name).toBe('edge');
    const error = await rejection(
      client.subnets.update(subnet.id, { name: 'lost update' }, { ifMatch: version }),
      PreconditionFailedError,
    );
    expect([error.status, error.code, error.headers.get('etag')]).toEqual([412, 'precondition_failed', current]);
    await rejection(client.subnets.delete(subnet.id, {}, { ifMatch: version }), PreconditionFailedError);
    expect(await client.subnets.delete(subnet.id, {}, { ifMatch: current })).toBeUndefined();
  });

  it('plans a network: free blocks, split, nesting, first free address, usage', async () => {
    const { client } = await newClient();
    const site = subnetOf(await client.subnets.create({ network: '10.20.0.0/16', name: 'site' }));
    const free = await client.subnets.freeBlocks(site.id, { prefix: 24, limit: 2 });
    expect(free.blocks).toEqual(['10.20.0.0/24', '10.20.1.0/24']);
    const lan = subnetOf(await client.subnets.create({ network: defined(free.blocks[0], 'a free /24'), name: 'lan' }));
    expect(lan.parent_id).toBe(site.id);
    const parts = await client.subnets.split(lan.id, { parts: 2 });
    expect(parts.map((p) => p.network)).toEqual(['10.20.0.0/25', '10.20.0.128/25']);
    const low = defined(parts[0], 'the lower part');
    expect(await client.subnets.firstFree(low.id)).toEqual({ ip: '10.20.0.1' });
    await client.addresses.create(low.id, { ip: '10.20.0.1', hostname: 'gw' });
    expect(await client.subnets.usage(low.id)).toMatchObject({ used: 1, total: 126 });
  });
});

describe('error statuses throw typed errors', () => {
  it('404: NotFoundError with status, code, message and the request id', async () => {
    const { client } = await newClient();
    const error = await rejection(client.vlans.get(randomUUID()), NotFoundError);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', name: 'NotFoundError', method: 'GET' });
    expect(error.message).toBe((error.body as { error: string }).error);
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(error.headers.get('x-request-id')).toBe(error.requestId);
    expect(error.rateLimit).toMatchObject({ limit: 3000, remaining: expect.any(Number) });
  });

  it('400: BadRequestError naming the field', async () => {
    const { client } = await newClient();
    const error = await rejection(client.vlans.create({ vlan_number: 4095 }), BadRequestError);
    expect(error.code).toBe('validation');
    expect(error.message).toMatch(/^vlan_number: /);
  });

  it('401: AuthenticationError for a wrong key', async () => {
    const stranger = createClient({ baseUrl: t.server.url, apiKey: `svc_${'x'.repeat(64)}` });
    const error = await rejection(stranger.folders.list(), AuthenticationError);
    expect(error.code).toBe('unauthenticated');
  });

  it('403: PermissionDeniedError for a write with a free-plan key', async () => {
    const { client } = await newClient({ plan: 'free' });
    const error = await rejection(client.folders.create({ name: 'x' }), PermissionDeniedError);
    expect(error.status).toBe(403);
  });

  it('402: PlanLimitError at the plan limit', async () => {
    const { client } = await newClient({ limits: { vlans: 1 } });
    await client.vlans.create({ vlan_number: 10 });
    const error = await rejection(client.vlans.create({ vlan_number: 11 }), PlanLimitError);
    expect(error.code).toBe('plan_limit');
  });

  it('types `code` by the contract’s ErrorCode: a known code narrows, a misspelt one does not compile', async () => {
    expectTypeOf<ErrorCode>().toEqualTypeOf<ContractErrorCode>();
    const { client } = await newClient({ limits: { vlans: 1 } });
    await client.vlans.create({ vlan_number: 10 });
    const error = await rejection(client.vlans.create({ vlan_number: 11 }), PlanLimitError);
    expectTypeOf(error.code).toEqualTypeOf<ApiErrorCode>();
    expect(isErrorCode(error.code)).toBe(true);
    if (error.code !== 'plan_limit') return expect.unreachable(`code ${error.code}`);
    expectTypeOf(error.code).toEqualTypeOf<'plan_limit'>();
    // @ts-expect-error: 'plan_limt' is no code of the API, so comparing with it does not compile
    expect(error.code === 'plan_limt').toBe(false);
  });

  it('gives an answer without a known code (a proxy’s page, a newer code) the code http_<status>', () => {
    const answer = (status: number, body: unknown) =>
      apiErrorFor({ status, body, headers: new Headers(), method: 'GET', url: 'http://proxy.invalid/' }).code;
    expect(answer(502, '<html>Bad gateway</html>')).toBe('http_502');
    expect(answer(400, { error: 'new', code: 'not_yet_a_code' })).toBe('http_400');
    expect(answer(409, { error: 'busy', code: 'idempotency_in_flight' })).toBe('idempotency_in_flight');
  });

  it('429: RateLimitError with Retry-After after the retries, each honouring Retry-After', async () => {
    const org = await t.server.newOrg({ limits: { rate_limit: 1 } });
    const waits: number[] = [];
    const client = createClient({
      baseUrl: t.server.url,
      apiKey: org.key,
      maxRetries: 2,
      sleep: async (ms) => {
        waits.push(ms);
      },
    });
    await client.folders.list();
    const error = await rejection(client.folders.list(), RateLimitError);
    expect(error.retryAfter).toBeGreaterThan(0);
    expect(error.rateLimit).toMatchObject({ limit: 1, remaining: 0 });
    // Each wait is its answer's Retry-After, whole seconds to the window's end, which counts down between the
    // answers: a second may pass between the first 429 and the last.
    const last = error.retryAfter! * 1000;
    expect(waits).toHaveLength(2);
    for (const wait of waits) expect([last, last + 1000]).toContain(wait);
    expect(waits[0]).toBeGreaterThanOrEqual(waits[1]!);
  });
});

describe('pagination', () => {
  it('iterates the addresses of a subnet over several pages, by offset first, then by cursor until none', async () => {
    const { client, requests } = await newClient();
    const subnet = subnetOf(await client.subnets.create({ network: '192.168.7.0/28' }));
    const ips = Array.from({ length: 12 }, (_, i) => `192.168.7.${i + 1}`);
    expect(await client.addresses.batchCreate(subnet.id, { ips, status: 'reserved' })).toEqual({ created: 12 });
    requests.length = 0;
    const seen: string[] = [];
    for await (const address of client.addresses.iterate(subnet.id, { limit: 5 })) seen.push(address.ip);
    expect(seen).toEqual(ips);
    const path = `GET /api/v1/subnets/${subnet.id}/addresses`;
    expect(requests).toEqual([
      `${path}?offset=0&limit=5`,
      expect.stringMatching(new RegExp(`^${path}\\?cursor=[\\w-]+&limit=5$`)),
      expect.stringMatching(new RegExp(`^${path}\\?cursor=[\\w-]+&limit=5$`)),
    ]);
  });

  it('iterates the activity log with its filters, page after page', async () => {
    const { client, requests } = await newClient();
    for (const name of ['a', 'b', 'c', 'd', 'e']) await client.folders.create({ name });
    requests.length = 0;
    const entries = [];
    for await (const entry of client.activity.iterate({ limit: 2, resource_type: 'folder' })) entries.push(entry);
    expect(entries.map((e) => e.action)).toEqual(Array(5).fill('create'));
    expect(requests).toHaveLength(3);
    expect(requests[0]).toMatch(/resource_type=folder/);
  });

  it('filters the subnet and address lists by custom fields, typed, in one call and page after page', async () => {
    const { client, requests } = await newClient({ plan: 'pro' });
    await client.customFields.create({ kind: 'subnet', name: 'site', type: 'select', choices: ['ams1', 'fra1'] });
    await client.customFields.create({ kind: 'address', name: 'units', type: 'integer' });
    const ams = await client.subnets.create({ network: '10.202.1.0/24', custom_fields: { site: 'ams1' } });
    await client.subnets.create({ network: '10.202.2.0/24', custom_fields: { site: 'fra1' } });
    const home = 'subnet' in ams ? ams.subnet : ams;
    for (const units of [1, 2, 3]) {
      await client.addresses.create(home.id, { ip: `10.202.1.${units}`, custom_fields: { units } });
    }
    requests.length = 0;
    expect((await client.subnets.list({ cf_site: 'ams1' })).map((s) => s.network)).toEqual(['10.202.1.0/24']);
    const ips = [];
    for await (const address of client.addresses.iterate(home.id, { cf_units__gte: 2, limit: 1 })) ips.push(address.ip);
    expect(ips).toEqual(['10.202.1.2', '10.202.1.3']);
    expect(requests[0]).toBe('GET /api/v1/subnets?cf_site=ams1');
    expect(requests[1]).toMatch(/cf_units__gte=2/);
  });

  it('iterates the subnet list in pages by cursor, the first without an offset', async () => {
    const { client, requests } = await newClient();
    for (const third of [1, 2, 3, 4, 5]) await client.subnets.create({ network: `10.201.${third}.0/24` });
    requests.length = 0;
    const networks = [];
    for await (const subnet of client.subnets.iterate({ limit: 2 })) networks.push(subnet.network);
    expect(networks).toEqual((await client.subnets.list()).map((s) => s.network));
    expect(networks).toHaveLength(5);
    expect(requests.slice(0, 3)).toEqual([
      'GET /api/v1/subnets?limit=2',
      expect.stringMatching(/^GET \/api\/v1\/subnets\?cursor=[\w-]+&limit=2$/),
      expect.stringMatching(/^GET \/api\/v1\/subnets\?cursor=[\w-]+&limit=2$/),
    ]);
  });

  it('stops at once on an empty list', async () => {
    const { client, requests } = await newClient();
    const subnet = subnetOf(await client.subnets.create({ network: '192.168.8.0/29' }));
    requests.length = 0;
    for await (const _ of client.addresses.iterate(subnet.id)) expect.unreachable();
    expect(requests).toHaveLength(1);
  });
});

describe('following the change feed', () => {
  /** Every change an iteration yields, once it ends. */
  async function collect(changes: AsyncIterable<Change>): Promise<Change[]> {
    const seen: Change[] = [];
    for await (const change of changes) seen.push(change);
    return seen;
  }
  const summary = (changes: Change[]) => changes.map((c) => [c.operation, c.resource_id, c.changes.name]);
  const feedRequests = (requests: string[]) => requests.filter((r) => r.startsWith('GET /api/v1/changes'));

  it('untilCaughtUp: every change so far in commit order, page after page, each from the last cursor', async () => {
    const { client, requests } = await newClient();
    const a = await client.folders.create({ name: 'a' });
    const b = await client.folders.create({ name: 'b' });
    await client.folders.update(a.id, { name: 'a2' });
    await client.folders.delete(b.id);
    const c = await client.folders.create({ name: 'c' });
    requests.length = 0;
    const changes = await collect(client.changes.follow({ untilCaughtUp: true, limit: 2 }));
    expect(summary(changes)).toEqual([
      ['create', a.id, [null, 'a']],
      ['create', b.id, [null, 'b']],
      ['update', a.id, ['a', 'a2']],
      ['delete', b.id, ['b', null]],
      ['create', c.id, [null, 'c']],
    ]);
    // 2 + 2 + 1: the third page says has_more false and the iteration ends without asking again.
    expect(requests).toEqual([
      'GET /api/v1/changes?limit=2',
      `GET /api/v1/changes?${new URLSearchParams({ after: defined(changes[1], 'a second change').cursor, limit: '2' })}`,
      `GET /api/v1/changes?${new URLSearchParams({ after: defined(changes[3], 'a fourth change').cursor, limit: '2' })}`,
    ]);
  });

  it('resumes after the last cursor handled: only the changes committed later', async () => {
    const { client, requests } = await newClient();
    await client.folders.create({ name: 'seen' });
    const seen = await collect(client.changes.follow({ untilCaughtUp: true }));
    const last = defined(seen.at(-1), 'a change').cursor;
    expect(await collect(client.changes.follow({ after: last, untilCaughtUp: true }))).toEqual([]);
    const later = await client.folders.create({ name: 'later' });
    await client.folders.update(later.id, { name: 'later2' });
    requests.length = 0;
    const resumed = await collect(client.changes.follow({ after: last, untilCaughtUp: true }));
    expect(summary(resumed)).toEqual([
      ['create', later.id, [null, 'later']],
      ['update', later.id, ['later', 'later2']],
    ]);
    expect(requests).toHaveLength(1);
  });

  it('without untilCaughtUp, waits for the changes to come, polling, until the signal aborts', async () => {
    const { client, requests } = await newClient();
    await client.folders.create({ name: 'before' });
    const controller = new AbortController();
    const feed = client.changes.follow({ after: 'now', pollInterval: 20, signal: controller.signal });
    try {
      const first = feed.next();
      // Polling: the first request (`after=now`) has been answered, so the folder below commits after it.
      await vi.waitFor(() => expect(feedRequests(requests).length).toBeGreaterThanOrEqual(2));
      const made = await client.folders.create({ name: 'after' });
      expect((await first).value).toMatchObject({ operation: 'create', resource_id: made.id });
      controller.abort();
      expect(await feed.next()).toEqual({ done: true, value: undefined });
    } finally {
      controller.abort();
    }
  });

  it('an abort cuts a wait between polls short', async () => {
    const { client, requests } = await newClient();
    const controller = new AbortController();
    const feed = client.changes.follow({ after: 'now', pollInterval: 3_600_000, signal: controller.signal });
    const next = feed.next();
    await vi.waitFor(() => expect(feedRequests(requests)).toHaveLength(1));
    controller.abort();
    expect(await next).toEqual({ done: true, value: undefined });
  });

  it('a cursor older than what the feed keeps throws CursorExpiredError (410 cursor_expired)', async () => {
    const { client } = await newClient({ limits: { activity_retention_days: 7 } });
    const { next_cursor: start } = await client.changes.list({ after: 'now' });
    await client.folders.create({ name: 'purged' });
    // The hourly purge, 8 days on: the change after `start` is gone.
    await purgeExpiredActivity(t.server.database.db, new Date(Date.now() + 8 * 24 * 3_600_000));
    const error = await rejection(
      collect(client.changes.follow({ after: start, untilCaughtUp: true })),
      CursorExpiredError,
    );
    expect(error).toMatchObject({ status: 410, code: 'cursor_expired' });
    expect(error.message).toContain('after=now');
  });
});

describe('clients are independent', () => {
  it('two clients of two organisations in one process each see their own data', async () => {
    const [a, b] = await Promise.all([newClient(), newClient()]);
    const [folderA, folderB] = await Promise.all([
      a.client.folders.create({ name: 'org A' }),
      b.client.folders.create({ name: 'org B' }),
    ]);
    const lists = await Promise.all([a.client.folders.list(), b.client.folders.list()]);
    expect(lists.map((list) => list.map((f) => f.name))).toEqual([['org A'], ['org B']]);
    await rejection(a.client.folders.get(folderB.id), NotFoundError);
    await rejection(b.client.folders.get(folderA.id), NotFoundError);
  });

  it('keeps the operationId functions, resolving to {status, data, headers}', async () => {
    const { client }: { client: IpamClient } = await newClient();
    const answer = await client.getFolder(randomUUID());
    expect(answer.status).toBe(404);
    expect(answer.headers.get('x-request-id')).toBeTruthy();
  });
});
