import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import { startSmtpServer } from '../fixtures/smtp';
import { type ApiResponse, clientIp } from '../support/client';
import { defined } from '../support/defined';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import type { TestServer } from '../support/server';

const APP_URL = 'http://app.test';
const MINUTE = 60_000;

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
/** The service's clock: real time, or a fixed instant while a test holds it. */
let frozen: Date | null = null;

beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp?.close());
const t = useTestServer(
  () => ({ config: { smtpUrl: smtp.url, appUrl: APP_URL }, now: () => frozen ?? new Date() }),
  false,
);

const newEmail = () => `signin-${randomUUID()}@example.test`;

async function sendLink(email: string, target: TestServer = t.server): Promise<ApiResponse<'sendMagicLink'>> {
  return target.anonymous.call('sendMagicLink', { body: { email }, headers: { 'x-forwarded-for': clientIp() } });
}

/** The token of the newest link mailed to the address (read from the SMTP server's mailbox). */
function mailedToken(email: string): string {
  const token = /\/api\/v1\/auth\/verify\?token=([\w-]+)/.exec(smtp.lastTo(email) ?? '')?.[1];
  if (token === undefined) throw new Error(`No sign-in link mailed to ${email}`);
  return token;
}

async function linkFor(email: string): Promise<string> {
  expectStatus(await sendLink(email), 200);
  return mailedToken(email);
}

async function verify(token: string, cookie?: string, target: TestServer = t.server) {
  const headers: Record<string, string> = { 'x-forwarded-for': clientIp() };
  if (cookie) headers.cookie = `service_session=${cookie}`;
  const response = await target.anonymous.call('verifyMagicLink', { query: { token }, headers });
  expectStatus(response, 307);
  return response;
}

const sessionCookieOf = (response: ApiResponse) =>
  response.headers.getSetCookie().find((c) => c.startsWith('service_session='));
const sessionOf = (response: ApiResponse) => /^service_session=([^;]*)/.exec(sessionCookieOf(response) ?? '')?.[1];

async function me(session: string) {
  return t.server.anonymous.call('getCurrentUser', { as: { session } });
}

describe('POST /auth/send-link', () => {
  it('emails a single-use link to the address, under the public URL', async () => {
    const email = newEmail();
    const body = expectStatus(await sendLink(email), 200);
    expect(body.message).toContain('15 minutes');
    expect(smtp.lastTo(email)).toMatch(/http:\/\/127\.0\.0\.1\/api\/v1\/auth\/verify\?token=[\w-]{43}\b/);
  });

  it('answers the same for a known and an unknown address', async () => {
    const known = await t.server.newOrg();
    const a = expectStatus(await sendLink(known.email), 200);
    const b = expectStatus(await sendLink(newEmail()), 200);
    expect(a).toEqual(b);
  });

  it('stores only the SHA-256 of the token', async () => {
    const email = newEmail();
    const token = await linkFor(email);
    const rows = rowsOf<Record<string, unknown>>(
      await t.server.database.db.execute(sql`SELECT * FROM magic_links WHERE email = ${email}`),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  it('sends 3 links to an address within 15 minutes; the 4th (any letter case) is a 429 with Retry-After', async () => {
    const email = newEmail();
    for (let i = 0; i < 3; i++) expectStatus(await sendLink(email), 200);
    const response = await sendLink(email.toUpperCase());
    expect(expectStatus(response, 429).code).toBe('rate_limited');
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(890);
    expect(retryAfter).toBeLessThanOrEqual(900);
  });

  it('counts the last 15 minutes: a 4th link one second early is refused, on time it is sent', async () => {
    const email = newEmail();
    const start = new Date();
    try {
      frozen = start;
      for (let i = 0; i < 3; i++) expectStatus(await sendLink(email), 200);
      frozen = new Date(start.getTime() + 15 * MINUTE - 1000);
      const early = await sendLink(email);
      expectStatus(early, 429);
      expect(early.headers.get('retry-after')).toBe('1');
      frozen = new Date(start.getTime() + 15 * MINUTE);
      expectStatus(await sendLink(email), 200);
    } finally {
      frozen = null;
    }
  });

  it('refuses an invalid address (400)', async () => {
    expect(expectStatus(await sendLink('not-an-address'), 400).error).toContain('email');
  });

  it('refuses a body that is not JSON (415)', async () => {
    const response = await t.server.anonymous.call('sendMagicLink', {
      rawBody: 'email=a@example.test',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': clientIp() },
    });
    expectStatus(response, 415);
  });

  it('refuses a body over 1 MB (413)', async () => {
    const response = await t.server.anonymous.call('sendMagicLink', {
      rawBody: JSON.stringify({ email: `${'a'.repeat(1024 * 1024)}@example.test` }),
      headers: { 'content-type': 'application/json', 'x-forwarded-for': clientIp() },
    });
    expectStatus(response, 413);
  });
});

describe('GET /auth/verify', () => {
  it('signs a new address in: user (verified) and organisation (free, admin) created, cookie set, 307 to the app', async () => {
    const email = newEmail();
    const response = await verify(await linkFor(email));
    expect(response.headers.get('location')).toBe(APP_URL);
    expect(sessionCookieOf(response)).toMatch(
      /^service_session=[\w-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    const body = expectStatus(await me(sessionOf(response) ?? ''), 200);
    expect(body.user).toMatchObject({ email, email_verified: true });
    expect(body.organization.plan).toBe('free');
    expect(body.role).toBe('admin');
  });

  it('signs a returning address into its existing user and organisation', async () => {
    const org = await t.server.newOrg();
    const response = await verify(await linkFor(org.email));
    const body = expectStatus(await me(sessionOf(response) ?? ''), 200);
    expect(body.user.id).toBe(org.userId);
    expect(body.organization.id).toBe(org.orgId);
  });

  it('works once: the second use goes to the login page with invalid_link', async () => {
    const token = await linkFor(newEmail());
    expect((await verify(token)).headers.get('location')).toBe(APP_URL);
    const again = await verify(token);
    expect(again.headers.get('location')).toBe(`${APP_URL}/login?error=invalid_link`);
    expect(sessionCookieOf(again)).toBeUndefined();
  });

  it('sends an unknown token to the login page with invalid_link', async () => {
    const response = await verify('no-such-token');
    expect(response.headers.get('location')).toBe(`${APP_URL}/login?error=invalid_link`);
  });

  it('is valid for 15 minutes: a millisecond before it works, at 15 minutes it is expired_link', async () => {
    const start = new Date();
    try {
      frozen = start;
      const [early, late] = [await linkFor(newEmail()), await linkFor(newEmail())];
      frozen = new Date(start.getTime() + 15 * MINUTE - 1);
      expect((await verify(early)).headers.get('location')).toBe(APP_URL);
      frozen = new Date(start.getTime() + 15 * MINUTE);
      expect((await verify(late)).headers.get('location')).toBe(`${APP_URL}/login?error=expired_link`);
    } finally {
      frozen = null;
    }
  });

  it('answers 400 without a token', async () => {
    const response = await t.server.anonymous.call('verifyMagicLink', { headers: { 'x-forwarded-for': clientIp() } });
    expect(expectStatus(response, 400).error).toContain('token');
  });

  it('rotates the session: the cookie the browser carried is destroyed', async () => {
    const email = newEmail();
    const first = sessionOf(await verify(await linkFor(email))) ?? '';
    expectStatus(await me(first), 200);
    const second = sessionOf(await verify(await linkFor(email), first)) ?? '';
    expect(second).not.toBe(first);
    expectStatus(await me(first), 401);
    expectStatus(await me(second), 200);
  });

  it('gives one session for concurrent uses of one link', async () => {
    const email = newEmail();
    const token = await linkFor(email);
    const responses = await Promise.all(Array.from({ length: 8 }, () => verify(token)));
    const locations = responses.map((r) => r.headers.get('location'));
    expect(locations.filter((l) => l === APP_URL)).toHaveLength(1);
    expect(locations.filter((l) => l === `${APP_URL}/login?error=invalid_link`)).toHaveLength(7);
    const sessions = rowsOf(
      await t.server.database.db.execute(
        sql`SELECT s.id FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = ${email}`,
      ),
    );
    expect(sessions).toHaveLength(1);
  });

  it('creates one user when two links of a new address are used at once', async () => {
    const email = newEmail();
    const tokens = [await linkFor(email), await linkFor(email)];
    const responses = await Promise.all(tokens.map((token) => verify(token)));
    const bodies = [];
    for (const response of responses) {
      expect(response.headers.get('location')).toBe(APP_URL);
      bodies.push(expectStatus(await me(sessionOf(response) ?? ''), 200));
    }
    const first = defined(bodies[0], 'the first answer');
    expect(bodies[1]?.user.id).toBe(first.user.id);
    expect(bodies[1]?.organization.id).toBe(first.organization.id);
  });
});

describe('behind https', () => {
  const secure = useTestServer(
    () => ({ config: { smtpUrl: smtp.url, appUrl: APP_URL, publicUrl: 'https://ipam.example' } }),
    false,
  );

  it('mails https links and marks the session cookie Secure', async () => {
    const email = newEmail();
    expectStatus(await sendLink(email, secure.server), 200);
    expect(smtp.lastTo(email)).toContain('https://ipam.example/api/v1/auth/verify?token=');
    const response = await verify(mailedToken(email), undefined, secure.server);
    expect(sessionCookieOf(response)).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
  });
});

describe('a session from sign-in, end to end', () => {
  it('signs in by emailed link, writes with the CSRF header only, logs out, and the cookie is dead', async () => {
    const email = newEmail();
    const session = sessionOf(await verify(await linkFor(email))) ?? '';
    const web = t.server.anonymous.as({ session });

    expectStatus(await web.call('createFolder', { body: { name: 'from-the-browser' } }), 201);
    const refused = await web.call('createFolder', { as: { session, csrf: false }, body: { name: 'forged' } });
    expect(expectStatus(refused, 403).code).toBe('csrf');
    const folders = expectStatus(await web.call('listFolders'), 200);
    expect(folders.map((f: { name: string }) => f.name)).toEqual(['from-the-browser']);

    const logout = await web.call('endSession');
    expectStatus(logout, 200);
    expect(logout.headers.getSetCookie()).toContainEqual(
      expect.stringMatching(/^service_session=; Max-Age=0; Path=\//),
    );

    expect(expectStatus(await web.call('listFolders'), 401).code).toBe('unauthenticated');
    expectStatus(await me(session), 401);
  });
});
