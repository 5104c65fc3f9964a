/**
 * Property-based robustness of every operation of the OpenAPI document (read at test time): valid requests
 * built from each operation's schemas (ids of objects of the test organisation, so they reach the handlers)
 * and invalid ones (one mutation of a valid request: wrong types, missing or unknown fields, out-of-range
 * numbers, long strings, NUL, malformed JSON, top-level JSON that is no object, wrong Content-Type, path
 * parameters with malformed percent-escapes, odd credentials; and custom fields thousands deep or near the
 * 1 MB body limit), sent over HTTP to the real app on a real database. Every answer must be declared by the
 * operation, with a body matching the contract for its status, never a 5xx (but a receiver's failure as the
 * declared 502 of testWebhook, and the network tools' declared 502 when the servers they ask are not there),
 * every invalid request a 4xx, and the answer its mutation calls for when it calls for one. Every path of the
 * document answers the methods it lacks with 405 and the Allow the document gives.
 *
 * Deterministic: a fixed seed per operation (FUZZ_SEED changes the base, FUZZ_RUNS the runs per kind);
 * fast-check prints the seed and the counterexample when a property fails.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contractRoutes, type OperationId } from '../../contract/routes';
import { parseCidr } from '../../server/ipam';
import { type DnsFixture, startDnsServer } from '../fixtures/dns';
import { type ApiResponse, clientIp } from '../support/client';
import { defined } from '../support/defined';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { declaredStatuses, route } from '../support/routes';
import { testConfig } from '../support/server';
import {
  type Auth,
  allowOf,
  type Entity,
  edgeRequest,
  emptyPools,
  FRESH_KEY,
  type FuzzRequest,
  type GenContext,
  hasCustomFields,
  hasInvalidForm,
  invalidRequest,
  KINDS,
  type Kind,
  kindOfPathParam,
  type Operation,
  operations,
  validRequest,
  wrongMethodRequest,
} from './openapi-arbitraries';

const SEED = Number(process.env.FUZZ_SEED ?? 20_251_122);
const RUNS = Number(process.env.FUZZ_RUNS ?? 12);

/** The network tools' resolver: it knows no name (NXDOMAIN), so DNS-based tools answer without going out. */
let dns: DnsFixture;
beforeAll(async () => {
  dns = await startDnsServer();
});
afterAll(() => dns?.close());

const t = useTestServer(
  () => ({
    config: {
      tools: {
        ...testConfig().tools,
        recursiveResolver: { address: dns.address, port: dns.port },
        dnsResolvers: [{ label: 'Fixture', address: dns.address, port: dns.port }],
        propagationResolvers: [{ label: 'Fixture', address: dns.address, port: dns.port, location: 'Loopback' }],
      },
      // Webhooks point at the receiver below, on loopback; any host name resolves there.
      outboundAllowCidrs: ['127.0.0.1/32'],
      // Stripe's webhook secret, so its events reach the signature check (no Stripe API: checkout answers 503).
      billing: { stripeWebhookSecret: 'whsec_fuzz', prices: {}, checkoutCooldownSeconds: 600 },
    },
    resolveHost: async () => ['127.0.0.1'],
  }),
  { plan: 'enterprise', limits: { rate_limit: null } },
);

/**
 * Operations whose success needs what generated requests cannot have: a checkout needs a free organisation
 * (this one is enterprise), the portal a Stripe customer, an event Stripe's signature (test/api/billing.test.ts
 * covers them); whois, TLS and HTTP/2 checks a server on the other side, an ASN lookup routing data the
 * fixture resolver does not have (404) (test/api/tools-*.test.ts).
 */
const SUCCESS_ELSEWHERE = new Set([
  'createCheckoutSession',
  'createPortalSession',
  'receiveStripeEvent',
  'lookupAsn',
  'lookupWhois',
  'checkSslCertificate',
  'checkHttp2Support',
]);

/** Answers webhook calls: 204, or 500 on a path with `fail` (testWebhook then answers its declared 502). */
let receiver: Server;
const ctx: GenContext = { pools: emptyPools(), receiverUrl: '', ownerId: '' };
const scopedKeys = new Map<string, string>();

const ops = operations();
/** Deleting operations run last, so the others find the objects they name; addresses before their subnets. */
const deletes = (op: Operation) => op.method === 'DELETE' || op.id === 'batchDeleteAddresses';
const addresses = (op: Operation) => op.path.startsWith('/api/v1/addresses/');
const ordered = [
  ...ops.filter((op) => !deletes(op)),
  ...ops
    .filter((op) => deletes(op) && addresses(op))
    .sort((a, b) => Number(a.method !== 'DELETE') - Number(b.method !== 'DELETE')),
  ...ops.filter((op) => deletes(op) && !addresses(op)),
];

/** 5xx answers that are an operation's declared report of something outside the server. */
const EXTERNAL_5XX: Record<string, number[]> = {
  testWebhook: [502],
  ...Object.fromEntries(
    contractRoutes
      .filter((r) => r.resource === 'tools' && declaredStatuses(r.route).includes(502))
      .map((r) => [r.id, [502]]),
  ),
};

/** Statuses answered, per operation and kind, for the summary and the reach check. */
const answered = new Map<string, number[]>();

beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    res.statusCode = req.url?.includes('fail') ? 500 : 204;
    res.end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  ctx.receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  ctx.ownerId = t.org.userId;
  await seed();
});

afterAll(async () => {
  await new Promise((resolve) => receiver?.close(resolve));
  if (process.env.FUZZ_REPORT) {
    for (const [key, statuses] of answered) {
      const counts = new Map<number, number>();
      for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
      console.log(key.padEnd(40), [...counts].map(([s, n]) => `${s}×${n}`).join(' '));
    }
  }
});

/** A few objects of every kind in the test organisation, for valid requests to name. */
async function seed() {
  const api = t.org.api;
  const add = (kind: Kind, entity: Entity) => ctx.pools[kind].push(entity);
  for (const name of ['Fuzz A', 'Fuzz B', 'Fuzz C']) {
    add('folders', { id: expectStatus(await api.call('createFolder', { body: { name } }), 201).id, name });
    add('locations', { id: expectStatus(await api.call('createLocation', { body: { name } }), 201).id, name });
    add('vrfs', { id: expectStatus(await api.call('createVrf', { body: { name } }), 201).id, name });
    add('tags', { id: expectStatus(await api.call('createTag', { body: { name } }), 201).id, name });
  }
  for (const vlan_number of [100, 101, 102]) {
    add('vlans', { id: expectStatus(await api.call('createVlan', { body: { vlan_number } }), 201).id });
  }
  const subnets: [string, Record<string, unknown>][] = [
    ['10.0.0.0/16', { folder_id: defined(ctx.pools.folders[0], 'a folder').id, name: 'fuzz-root' }],
    ['10.0.1.0/24', { gateway: '10.0.1.1', vlan_id: defined(ctx.pools.vlans[0], 'a VLAN').id }],
    ['10.0.2.0/28', {}],
    ['192.168.10.0/24', { is_pool: true, location_id: defined(ctx.pools.locations[0], 'a location').id }],
    ['172.16.0.0/30', { tracked: false }],
    ['2001:db8::/48', {}],
    ['2001:db8:0:1::/64', { name: 'fuzz-v6' }],
    ['10.0.0.0/16', { vrf_id: defined(ctx.pools.vrfs[0], 'a VRF').id }],
  ];
  for (const [network, extra] of subnets) {
    const s = await createSubnet(api, network, extra);
    add('subnets', { id: s.id, network: parseCidr(s.network)!.cidr, vrfId: s.vrf_id, name: s.name });
  }
  const v4 = defined(ctx.pools.subnets[1], 'the subnet 10.0.1.0/24');
  const v6 = defined(ctx.pools.subnets[6], 'the subnet 2001:db8:0:1::/64');
  for (const [subnet, ip] of [
    [v4, '10.0.1.10'],
    [v4, '10.0.1.11'],
    [v4, '10.0.1.12'],
    [v6, '2001:db8:0:1::10'],
  ] as const) {
    const body = { ip, hostname: `host-${ip}` };
    add('addresses', {
      id: expectStatus(await api.call('createAddress', { params: { id: subnet.id }, body }), 201).id,
    });
  }
  for (const [start, end] of [
    ['10.0.1.100', '10.0.1.149'],
    ['10.0.1.200', '10.0.1.209'],
  ]) {
    const body = { start, end, role: 'dhcp' };
    const range = expectStatus(await api.call('createSubnetRange', { params: { id: v4.id }, body }), 201);
    add('ranges', { id: range.id, network: v4.network, subnetId: v4.id });
  }
  for (const body of [
    { kind: 'subnet', name: 'fuzz_units', type: 'integer' },
    { kind: 'address', name: 'fuzz_site', type: 'select', choices: ['ams1', 'fra1'] },
  ]) {
    add('custom-fields', { id: expectStatus(await api.call('createCustomField', { body }), 201).id });
  }
  for (const path of ['ok', 'fail']) {
    const body = { url: `${ctx.receiverUrl}/${path}` };
    add('webhooks', { id: expectStatus(await api.call('createWebhook', { body }), 201).id });
  }
  for (const name of ['fuzz-1', 'fuzz-2', 'fuzz-3', 'fuzz-4']) {
    add('api-keys', { id: expectStatus(await api.call('createApiKey', { body: { name } }), 201).id });
  }
  for (const role of ['admin', 'editor', 'viewer', 'editor', 'viewer'] as const) {
    const member = await t.org.member(role);
    add('members', { id: expectStatus(await member.api.call('getCurrentUser'), 200).user.id });
  }
  for (const n of [1, 2, 3]) {
    const body = { email: `invitee-${n}@example.test`, role: 'viewer' };
    add('invitations', { id: expectStatus(await api.call('createTeamInvitation', { body }), 201).id });
  }
  for (const permissions of [['read'], ['write']] as const) {
    scopedKeys.set(permissions.join(), await t.org.keyWith([...permissions]));
  }
}

async function authHeaders(auth: Auth): Promise<Record<string, string>> {
  const session = (value: string, csrf: boolean): Record<string, string> => ({
    cookie: `service_session=${value}`,
    ...(csrf ? { 'x-requested-with': 'XMLHttpRequest' } : {}),
  });
  switch (auth.kind) {
    case 'none':
      return {};
    case 'key':
      return { authorization: `Bearer ${t.org.key}` };
    case 'session':
      return session(t.org.session, auth.csrf);
    case 'fresh': {
      const member = await t.org.member(auth.role);
      return auth.via === 'key'
        ? { authorization: `Bearer ${member.key}` }
        : session(member.session, auth.csrf ?? true);
    }
    case 'scoped':
      return { authorization: `Bearer ${scopedKeys.get(auth.permissions.join())}` };
    case 'raw':
      return {
        ...(auth.authorization !== undefined ? { authorization: auth.authorization } : {}),
        ...(auth.cookie !== undefined ? { cookie: auth.cookie } : {}),
      };
  }
}

/** The request's path: the operation's, with its parameters (percent-encoded unless sent raw). */
const pathOf = (op: Operation, request: FuzzRequest) =>
  op.path.replace(
    /\{(\w+)\}/g,
    (_, name) =>
      request.rawParams?.[name] ?? encodeURIComponent(defined(request.params[name], `the parameter ${name}`)),
  );

/** Sends a request over HTTP, as the document describes the operation (its path, method and parameters). */
async function send(op: Operation, request: FuzzRequest): Promise<ApiResponse> {
  const url = new URL(pathOf(op, request), t.server.url);
  for (const [name, value] of Object.entries(request.query)) {
    for (const one of [value].flat()) url.searchParams.append(name, one);
  }
  // A client address of its own: public routes are limited per IP.
  const headers: Record<string, string> = {
    'x-forwarded-for': clientIp(),
    ...(await authHeaders(request.auth)),
    ...request.headers,
  };
  if (headers['idempotency-key'] === FRESH_KEY) headers['idempotency-key'] = randomUUID();
  let body: string | undefined;
  if (request.body && 'json' in request.body) {
    body = JSON.stringify(request.body.json);
    headers['content-type'] = 'application/json';
  } else if (request.body) {
    body = request.body.raw;
    if (request.body.contentType) headers['content-type'] = request.body.contentType;
  }
  const response = await fetch(url, { method: op.method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown = text;
  // A HEAD's answer has the headers of a JSON answer but no body.
  if (op.method !== 'HEAD' && response.headers.get('content-type')?.includes('application/json')) {
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(
        `${op.id} answered ${response.status} as JSON with a body that is not JSON: ${text.slice(0, 200)}`,
      );
    }
  }
  const operationId = op.id as OperationId;
  return {
    operationId,
    route: route(operationId),
    status: response.status,
    headers: response.headers,
    text,
    body: parsed,
  };
}

/**
 * The checks every answer passes; invalid answers (`edge` ones too) must also be 4xx, and be the answer
 * their mutation calls for when it calls for one.
 */
function check(op: Operation, kind: RequestKind, request: FuzzRequest, response: ApiResponse) {
  const where = `${op.id} ${kind}${request.mutation ? ` [${request.mutation}]` : ''} answered ${response.status}: ${response.text.slice(0, 300)}`;
  if (response.status >= 500) {
    const allowed = [...(EXTERNAL_5XX[op.id] ?? []), ...op.statuses.filter((s) => s === 503)];
    expect(allowed, `a 5xx: ${where}`).toContain(response.status);
  }
  expect(op.statuses, `a status the document does not declare: ${where}`).toContain(response.status);
  expectStatus(response, response.status as never);
  if (request.answer) {
    const body = response.body as { code?: string; error?: string };
    expect(response.status, `not the answer called for: ${where}`).toBe(request.answer.status);
    if (request.answer.code) expect(body.code, where).toBe(request.answer.code);
    if (request.answer.error) expect(body.error, where).toMatch(request.answer.error);
  }
  if (kind !== 'valid' && request.item !== undefined) {
    // Imports check each row on its own: the changed row is an `error` result of a 200, the others still import.
    const results = (response.body as { results?: { status: string }[] }).results;
    expect(results?.[request.item]?.status, `an invalid row not reported as an error: ${where}`).toBe('error');
  } else if (kind !== 'valid') {
    expect(response.status >= 400 && response.status < 500, `an invalid request not refused: ${where}`).toBe(true);
  }
}

/** Keeps the pools current: what a 2xx created joins them, what it deleted leaves them. */
function harvest(op: Operation, request: FuzzRequest, response: ApiResponse) {
  if (response.status < 200 || response.status >= 300) return;
  // A dry run made and removed nothing: the ids it answered do not exist.
  if (request.query.dry_run === 'true') return;
  const body = response.body as any;
  const remove = (kind: Kind, ids: string[]) => {
    ctx.pools[kind] = ctx.pools[kind].filter((e) => !ids.includes(e.id));
  };
  /** Subnets gone take their ranges along. */
  const removeSubnets = (ids: string[]) => {
    remove('subnets', ids);
    ctx.pools.ranges = ctx.pools.ranges.filter((r) => r.subnetId === undefined || !ids.includes(r.subnetId));
  };
  const last = op.path.split('/').at(-1)!;
  const created: Record<string, Kind> = {
    'allocate-address': 'addresses',
    'allocate-subnet': 'subnets',
    split: 'subnets',
  };
  const kind = created[last] ?? ((KINDS as readonly string[]).includes(last) ? (last as Kind) : undefined);
  if (op.method === 'POST' && kind) {
    const items = (Array.isArray(body) ? body : [body?.subnet ?? body]).filter((x) => typeof x?.id === 'string');
    const parent = ctx.pools.subnets.find((s) => s.id === request.params.id);
    for (const item of items) {
      ctx.pools[kind].push({
        id: item.id,
        name: typeof item.name === 'string' ? item.name : undefined,
        // A range's addresses fall in its subnet's block.
        network: typeof item.network === 'string' ? parseCidr(item.network)?.cidr : parent?.network,
        vrfId: item.vrf_id ?? parent?.vrfId ?? null,
        subnetId: kind === 'ranges' ? parent?.id : undefined,
      });
    }
    const split = request.params.id;
    if (last === 'split' && split !== undefined) removeSubnets([split]);
  }
  if (op.method === 'DELETE') {
    for (const p of op.pathParams) {
      const paramKind = kindOfPathParam(op.path, p.name);
      const id = request.params[p.name];
      if (paramKind === 'subnets' && id !== undefined) removeSubnets([id]);
      else if (paramKind && id !== undefined) remove(paramKind, [id]);
    }
  }
  if (op.id === 'batchDeleteAddresses' && request.body && 'json' in request.body) {
    remove('addresses', (request.body.json as { ids: string[] }).ids);
  }
}

const seedOf = (id: string) => [...id].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) | 0, SEED);

/** Valid requests, invalid ones (one mutation each), and invalid custom fields at the edge (very deep or near 1 MB). */
type RequestKind = 'valid' | 'invalid' | 'edge';

async function runProperty(op: Operation, kind: RequestKind, arbitrary: fc.Arbitrary<FuzzRequest>) {
  const seed = seedOf(`${op.id}:${kind}`);
  const key = `${op.id} ${kind}`;
  await fc.assert(
    fc.asyncProperty(arbitrary, async (request) => {
      const response = await send(op, request);
      answered.set(key, [...(answered.get(key) ?? []), response.status]);
      if (process.env.FUZZ_REPORT === 'all' && (kind !== 'valid' || response.status >= 400)) {
        console.log(`${key} [${request.mutation ?? ''}] ${response.status} ${response.text.slice(0, 160)}`);
      }
      harvest(op, request, response);
      check(op, kind, request, response);
    }),
    { seed, numRuns: RUNS, reporter: undefined },
  );
}

describe('every operation of the OpenAPI document', () => {
  it('is a route of the contract', () => {
    expect(ops.length).toBeGreaterThan(50);
    const contractIds = new Set<string>(contractRoutes.map((r) => r.id));
    expect(ops.map((op) => op.id).filter((id) => !contractIds.has(id))).toEqual([]);
  });

  it.each(ordered.map((op) => op.id))('%s answers generated requests as the document declares', async (id) => {
    const op = ordered.find((o) => o.id === id)!;
    await runProperty(op, 'valid', validRequest(op, ctx));
    if (hasInvalidForm(op)) await runProperty(op, 'invalid', invalidRequest(op, ctx));
    if (hasCustomFields(op)) await runProperty(op, 'edge', edgeRequest(op, ctx));
  });

  it('valid requests reach the handlers: each operation succeeded at least once', () => {
    const neverSucceeded = ops
      .filter((op) => !SUCCESS_ELSEWHERE.has(op.id))
      .filter((op) => !(answered.get(`${op.id} valid`) ?? []).some((s) => s < 400))
      .map((op) => `${op.id}: ${answered.get(`${op.id} valid`)?.join(' ')}`);
    expect(neverSucceeded).toEqual([]);
  });
});

describe('every path of the OpenAPI document', () => {
  const paths = [...new Set(ops.map((op) => op.path))];

  it.each(paths)('%s answers a method it lacks with 405 and the Allow the document gives', async (path) => {
    const pathOps = ops.filter((op) => op.path === path);
    const wrongMethod = wrongMethodRequest(pathOps, ctx);
    if (!wrongMethod) return;
    const op = defined(pathOps[0], `an operation of ${path}`);
    await fc.assert(
      fc.asyncProperty(wrongMethod, async ({ method, request }) => {
        const response = await send({ ...op, method }, request);
        const where = `${method} ${path} answered ${response.status}: ${response.text.slice(0, 300)}`;
        expect(response.status, where).toBe(405);
        expect(response.headers.get('allow'), where).toBe(allowOf(pathOf(op, request)));
        if (method !== 'HEAD')
          expect(response.body, where).toEqual({ code: 'method_not_allowed', error: expect.any(String) });
      }),
      { seed: seedOf(`${path}:method`), numRuns: RUNS, reporter: undefined },
    );
  });
});
