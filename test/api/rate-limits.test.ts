/**
 * Rate limits: per user and plan over a 1-minute window (headers on every authenticated response, 429
 * with Retry-After), and per IP on the public sign-in routes and network tools. Windows are crossed by
 * moving the server's clock, never by sleeping.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { OperationId } from '../../contract/routes';
import type { Plan } from '../../server/modules/plans/limits';
import { type ApiResponse, type CallOptions, clientIp } from '../support/client';
import { useTestServer } from '../support/factories';
import { type DeclaredStatus, expectStatus } from '../support/observed';

const MINUTE = 60_000;
/** The server's clock: one second into a window, and one window further at the start of every test. */
let clock = Math.floor(Date.now() / MINUTE) * MINUTE + 1000;

const t = useTestServer({ now: () => new Date(clock) }, false);
beforeEach(() => {
  clock += MINUTE;
});

const windowEnd = () => Math.floor(clock / MINUTE) * MINUTE + MINUTE;

function rateHeaders(response: ApiResponse) {
  const header = (name: string) => response.headers.get(name);
  return {
    limit: header('x-ratelimit-limit'),
    remaining: header('x-ratelimit-remaining'),
    reset: header('x-ratelimit-reset'),
  };
}

/** Calls a route `count` times in turn and answers the responses. */
async function repeat<Id extends OperationId>(count: number, call: () => Promise<ApiResponse<Id>>) {
  const responses: ApiResponse<Id>[] = [];
  for (let i = 0; i < count; i++) responses.push(await call());
  return responses;
}

const limitedOrg = (rateLimit: number, plan: Plan = 'enterprise') =>
  t.server.newOrg({ plan, limits: { rate_limit: rateLimit } });

describe('per user', () => {
  it('lets the limit pass and answers the next request 429 with Retry-After', async () => {
    const org = await limitedOrg(5);
    const passed = await repeat(5, () => org.api.call('listFolders'));
    for (const response of passed) expectStatus(response, 200);
    const error = expectStatus(await org.api.call('listFolders'), 429);
    expect(error).toEqual({
      code: 'rate_limited',
      error: 'Rate limit reached: 5 requests per minute for this user (all keys and sessions); retry in 59 s',
    });
  });

  it('counts the remaining requests down', async () => {
    const org = await limitedOrg(5);
    const responses = await repeat(6, () => org.api.call('listFolders'));
    expect(responses.map((r) => rateHeaders(r).remaining)).toEqual(['4', '3', '2', '1', '0', '0']);
    expect(responses.map((r) => rateHeaders(r).limit)).toEqual(Array(6).fill('5'));
  });

  it('gives the 429 the limit headers, the window end and Retry-After in seconds', async () => {
    const org = await limitedOrg(1);
    expectStatus(await org.api.call('listFolders'), 200);
    const response = await org.api.call('listFolders');
    expectStatus(response, 429);
    expect(rateHeaders(response)).toEqual({ limit: '1', remaining: '0', reset: String(windowEnd() / 1000) });
    expect(response.headers.get('retry-after')).toBe('59');
  });

  it('is shared by the keys and sessions of one user', async () => {
    const org = await limitedOrg(3);
    const otherKey = await org.keyWith(['read', 'write']);
    expectStatus(await org.api.call('listFolders'), 200);
    expectStatus(await org.api.call('listFolders', { as: { key: otherKey } }), 200);
    expectStatus(await org.web.call('listFolders'), 200);
    expectStatus(await org.api.call('listFolders', { as: { key: otherKey } }), 429);
    expectStatus(await org.web.call('listFolders'), 429);
  });

  it('is not shared between two users of one organisation', async () => {
    const org = await limitedOrg(2);
    const member = await org.member('viewer');
    await repeat(2, () => org.api.call('listFolders'));
    expectStatus(await org.api.call('listFolders'), 429);
    const response = await member.api.call('listFolders');
    expectStatus(response, 200);
    expect(rateHeaders(response).remaining).toBe('1');
  });

  it('is not shared between users of two organisations', async () => {
    const [one, two] = [await limitedOrg(1), await limitedOrg(1)];
    expectStatus(await one.api.call('listFolders'), 200);
    expectStatus(await one.api.call('listFolders'), 429);
    expectStatus(await two.api.call('listFolders'), 200);
  });

  it('starts again in the next window', async () => {
    const org = await limitedOrg(2);
    await repeat(2, () => org.api.call('listFolders'));
    expectStatus(await org.api.call('listFolders'), 429);
    clock += MINUTE;
    const response = await org.api.call('listFolders');
    expectStatus(response, 200);
    expect(rateHeaders(response)).toEqual({ limit: '2', remaining: '1', reset: String(windowEnd() / 1000) });
  });

  it('puts the headers on 400, 404 and 402 responses', async () => {
    const org = await t.server.newOrg({ limits: { rate_limit: 10, folders: 0 } });
    const responses = [
      expectResponse(await org.api.call('getFolder', { params: { id: 'not-a-uuid' } }), 400),
      expectResponse(await org.api.call('getFolder', { params: { id: randomUUID() } }), 404),
      expectResponse(await org.api.call('createFolder', { body: { name: 'over' } }), 402),
    ];
    expect(responses.map(rateHeaders)).toEqual(
      ['9', '8', '7'].map((remaining) => ({ limit: '10', remaining, reset: String(windowEnd() / 1000) })),
    );
  });

  it('does not count or answer with headers a request refused with 401 or 403', async () => {
    const org = await limitedOrg(1);
    const readOnly = await org.keyWith(['read']);
    const refused = await org.api.call('createFolder', { as: { key: readOnly }, body: { name: 'no' } });
    expectStatus(refused, 403);
    expect(rateHeaders(refused)).toEqual({ limit: null, remaining: null, reset: null });
    const anonymous = await t.server.anonymous.call('listFolders');
    expectStatus(anonymous, 401);
    expect(rateHeaders(anonymous).limit).toBeNull();
    expectStatus(await org.api.call('listFolders'), 200);
  });

  it.each([
    ['free', '600'],
    ['pro', '3000'],
    ['teams', '3000'],
    ['enterprise', '3000'],
  ] as const)('allows the %s plan %s requests per minute by default', async (plan, limit) => {
    const org = await t.server.newOrg({ plan });
    const response = await org.web.call('listFolders');
    expectStatus(response, 200);
    expect(rateHeaders(response)).toMatchObject({ limit, remaining: String(Number(limit) - 1) });
  });

  it.each([
    ['free', 600],
    ['pro', 3000],
    ['teams', 3000],
  ] as const)(
    'lets the %s plan’s %i requests of a minute pass and answers the next 429 with Retry-After',
    async (plan, limit) => {
      const org = await t.server.newOrg({ plan });
      // The cheapest request that counts (a 400 answered after the limiter), 20 at a time.
      const call = () => org.api.call('getFolder', { params: { id: 'not-a-uuid' } });
      const statuses = new Map<number, number>();
      let sent = 0;
      const worker = async () => {
        while (sent < limit) {
          sent++;
          const { status } = await call();
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: 20 }, worker));
      expect(Object.fromEntries(statuses)).toEqual({ 400: limit });
      const response = await call();
      expect(expectStatus(response, 429).error).toContain(`${limit} requests per minute`);
      expect(rateHeaders(response)).toMatchObject({ limit: String(limit), remaining: '0' });
      expect(response.headers.get('retry-after')).toBe('59');
    },
  );

  it('takes an enterprise override over the plan figure', async () => {
    const org = await limitedOrg(12_000);
    expect(rateHeaders(await org.api.call('listFolders')).limit).toBe('12000');
  });

  it('leaves an unlimited override uncounted and without headers', async () => {
    const org = await t.server.newOrg({ plan: 'enterprise', limits: { rate_limit: null } });
    const responses = await repeat(5, () => org.api.call('listFolders'));
    for (const response of responses) expect(rateHeaders(expectResponse(response, 200)).limit).toBeNull();
  });
});

/** expectStatus, answering the response for its headers. */
function expectResponse<Id extends OperationId>(response: ApiResponse<Id>, status: DeclaredStatus<Id>) {
  expectStatus(response, status);
  return response;
}

/** A public route called from one client address; the first calls may answer anything but 429. */
function from(ip: string, operationId: OperationId, options: CallOptions = {}) {
  return t.server.anonymous.call(operationId, { ...options, headers: { 'x-forwarded-for': ip } });
}

async function expectPasses(ip: string, operationIds: OperationId[]) {
  for (const id of operationIds) expect((await from(ip, id)).status, id).not.toBe(429);
}

describe('per IP on public routes', () => {
  const signIn = [
    'sendMagicLink',
    'verifyMagicLink',
    'startGoogleSignIn',
    'completeGoogleSignIn',
    'acceptInvitation',
  ] as OperationId[];

  it('lets 5 sign-in requests per minute pass and answers the 6th 429 with Retry-After', async () => {
    const ip = clientIp();
    await expectPasses(ip, Array(5).fill('verifyMagicLink'));
    const response = await from(ip, 'verifyMagicLink');
    const error = expectStatus(response, 429);
    expect(error).toEqual({
      code: 'rate_limited',
      error: 'Rate limit reached: 5 sign-in requests per minute per IP address; retry in 59 s',
    });
    expect(response.headers.get('retry-after')).toBe('59');
  });

  it('counts every sign-in route in one limit', async () => {
    const ip = clientIp();
    await expectPasses(ip, signIn);
    expectStatus(await from(ip, 'sendMagicLink', { body: { email: 'a@example.test' } }), 429);
  });

  it('limits each IP address separately', async () => {
    const ip = clientIp();
    await expectPasses(ip, Array(5).fill('acceptInvitation'));
    expectStatus(await from(ip, 'acceptInvitation'), 429);
    await expectPasses(clientIp(), ['acceptInvitation']);
  });

  it('limits an IPv6 client by its /64', async () => {
    const prefix = `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;
    await expectPasses(`${prefix}::1`, Array(5).fill('startGoogleSignIn'));
    expectStatus(await from(`${prefix}:ffff:1:2:3`, 'startGoogleSignIn'), 429);
    await expectPasses(
      `2001:db8:${randomBytes(4)
        .toString('hex')
        .replace(/(....)$/, ':$1')}::1`,
      ['startGoogleSignIn'],
    );
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    const ip = clientIp();
    await expectPasses(ip, Array(5).fill('verifyMagicLink'));
    expectStatus(await from(`::ffff:${ip}`, 'verifyMagicLink'), 429);
  });

  it('starts again in the next window', async () => {
    const ip = clientIp();
    await expectPasses(ip, Array(5).fill('completeGoogleSignIn'));
    expectStatus(await from(ip, 'completeGoogleSignIn'), 429);
    clock += MINUTE;
    await expectPasses(ip, ['completeGoogleSignIn']);
  });

  it('lets 10 network tool lookups per minute pass and answers the 11th 429', async () => {
    const ip = clientIp();
    await expectPasses(ip, [...Array(9).fill('getMyIp'), 'lookupDns']);
    const response = await from(ip, 'getMyIp');
    expect(expectStatus(response, 429).error).toContain('10 network tool lookups per minute per IP address');
    expect(response.headers.get('retry-after')).toBe('59');
  });

  it('lets 3 active probes per minute pass and answers the 4th 429, apart from lookups', async () => {
    const ip = clientIp();
    await expectPasses(ip, ['pingHost', 'scanPorts', 'traceRoute']);
    const response = await from(ip, 'pingHost');
    expect(expectStatus(response, 429).error).toContain('3 active network probes');
    expect(response.headers.get('retry-after')).toBe('59');
    await expectPasses(ip, ['getMyIp']);
  });

  it('does not limit the Stripe webhook, which is not a sign-in route', async () => {
    const ip = clientIp();
    await expectPasses(ip, Array(12).fill('receiveStripeEvent'));
  });
});
