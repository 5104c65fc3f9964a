import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import { startSmtpServer } from '../fixtures/smtp';
import { ApiClient, clientIp } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import { startTestServer, type TestOrg } from '../support/server';

let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
/** The server's clock runs this far ahead of the real one; tests only move it forward. */
let clockOffsetMs = 0;
const HOUR = 3600_000;
const DAY = 24 * HOUR;

beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp?.close());
const t = useTestServer(
  () => ({ config: { smtpUrl: smtp.url }, now: () => new Date(Date.now() + clockOffsetMs) }),
  false,
);

/** Moves the clock to just after the start of the next hour, so a burst of requests stays in one hourly window. */
function startOfNextHour() {
  const now = Date.now() + clockOffsetMs;
  clockOffsetMs += HOUR - (now % HOUR) + 1000;
}

const newEmail = () => `invitee-${randomUUID()}@example.test`;
const invite = (client: ApiClient, email: string, role = 'editor') =>
  client.call('createTeamInvitation', { body: { email, role } });
const invited = async (client: ApiClient, email = newEmail(), role = 'editor') =>
  expectStatus(await invite(client, email, role), 201);
const pendingOf = async (client: ApiClient) => expectStatus(await client.call('listTeamInvitations'), 200);

/** The token of the newest invitation mailed to `email`, read from the SMTP server. */
function tokenFor(email: string): string {
  const token = /accept-invite\?token=([A-Za-z0-9_-]+)/.exec(smtp.lastTo(email) ?? '')?.[1];
  if (token === undefined) throw new Error(`no invitation mailed to ${email}`);
  return token;
}

const accept = (token: string) =>
  t.server.anonymous.call('acceptInvitation', { query: { token }, headers: { 'x-forwarded-for': clientIp() } });

/** Follows an acceptance: the redirect target and the session cookie it set, if any. */
async function accepted(token: string) {
  const response = await accept(token);
  expectStatus(response, 307);
  const cookie = response.headers.get('set-cookie') ?? '';
  const session = /service_session=([^;]+)/.exec(cookie)?.[1];
  return { location: response.headers.get('location'), cookie, session };
}

describe('inviting', () => {
  it('answers 201 with an invitation valid 7 days', async () => {
    const org = await t.server.newOrg();
    const email = newEmail();
    const invitation = await invited(org.api, email, 'viewer');
    expect(invitation).toMatchObject({ email, role: 'viewer' });
    expect(Date.parse(invitation.expires_at) - Date.parse(invitation.created_at)).toBe(7 * DAY);
  });

  it('emails the accept link, storing only the hash of its token', async () => {
    const org = await t.server.newOrg();
    const email = newEmail();
    const invitation = await invited(org.api, email);
    expect(smtp.lastTo(email)).toContain('http://127.0.0.1/api/v1/auth/accept-invite?token=');
    const token = tokenFor(email);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const result = await t.server.database.db.execute(sql`SELECT * FROM invitations WHERE id = ${invitation.id}`);
    const [row] = rowsOf<Record<string, unknown>>(result);
    expect(row?.token_hash).toBe(createHash('sha256').update(token).digest('hex'));
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('answers 402 to a free organisation’s first invitation, sending nothing', async () => {
    const org = await t.server.newOrg({ plan: 'free' });
    const email = newEmail();
    const error = expectStatus(await invite(org.web, email), 402);
    expect(error).toMatchObject({ code: 'plan_limit' });
    expect(error.error).toContain('1 users');
    expect(smtp.lastTo(email)).toBeUndefined();
  });

  it('lets a pro organisation of one member invite one, and answers 402 to the second', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    await invited(org.api);
    const error = expectStatus(await invite(org.api, newEmail()), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('2 users') });
  });

  it('counts a teams organisation’s members and pending invitations against 10 seats', async () => {
    const org = await t.server.newOrg({ plan: 'teams' });
    await org.member('viewer');
    for (let i = 0; i < 8; i++) await invited(org.api);
    const error = expectStatus(await invite(org.api, newEmail()), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('10 users') });
  });

  it('follows an enterprise override of users', async () => {
    const org = await t.server.newOrg({ plan: 'enterprise', limits: { users: 3 } });
    await invited(org.api);
    await invited(org.api);
    const error = expectStatus(await invite(org.api, newEmail()), 402);
    expect(error).toMatchObject({ code: 'plan_limit', error: expect.stringContaining('3 users') });
  });

  it('frees the seat of a cancelled invitation', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    const invitation = await invited(org.api);
    expectStatus(await org.api.call('cancelTeamInvitation', { params: { id: invitation.id } }), 200);
    await invited(org.api);
  });

  it('frees the seat of an expired invitation', async () => {
    const org = await t.server.newOrg({ plan: 'pro' });
    await invited(org.api);
    clockOffsetMs += 7 * DAY + 60_000;
    await invited(org.api);
  });

  it('allows 10 invitations per organisation per hour, then 429 with Retry-After', async () => {
    const org = await t.server.newOrg({ plan: 'enterprise' });
    startOfNextHour();
    for (let i = 0; i < 10; i++) await invited(org.api);
    const response = await invite(org.api, newEmail());
    expect(expectStatus(response, 429).code).toBe('rate_limited');
    const retryAfter = Number(response.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(3500);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  });

  it('allows invitations again in the next hour', async () => {
    const org = await t.server.newOrg({ plan: 'enterprise' });
    startOfNextHour();
    for (let i = 0; i < 10; i++) await invited(org.api);
    clockOffsetMs += HOUR;
    await invited(org.api);
  });

  it('refuses to invite a member of the organisation (400)', async () => {
    const org = await t.server.newOrg({ plan: 'teams' });
    const error = expectStatus(await invite(org.api, org.email.toUpperCase()), 400);
    expect(error.error).toContain('already a member');
  });

  it('refuses a second pending invitation to the same address (400 duplicate)', async () => {
    const org = await t.server.newOrg({ plan: 'teams' });
    const email = newEmail();
    await invited(org.api, email);
    const error = expectStatus(await invite(org.api, email.toUpperCase()), 400);
    expect(error.code).toBe('duplicate');
  });

  it('refuses a malformed address (400 naming the field)', async () => {
    const org = await t.server.newOrg();
    expect(expectStatus(await invite(org.api, 'not-an-address'), 400).error).toMatch(/^email: /);
  });

  it('refuses an editor (403)', async () => {
    const org = await t.server.newOrg();
    const editor = await org.member('editor');
    expect(expectStatus(await invite(editor.api, newEmail()), 403).error).toContain('admin role');
  });
});

describe('pending invitations', () => {
  it('lists pending invitations, newest first', async () => {
    const org = await t.server.newOrg({ plan: 'teams' });
    const first = await invited(org.api);
    const second = await invited(org.api);
    expect(await pendingOf(org.api)).toEqual([second, first]);
  });

  it('omits cancelled, accepted and expired invitations', async () => {
    const org = await t.server.newOrg({ plan: 'teams' });
    const cancelled = await invited(org.api);
    expectStatus(await org.api.call('cancelTeamInvitation', { params: { id: cancelled.id } }), 200);
    const email = newEmail();
    await invited(org.api, email);
    await accepted(tokenFor(email));
    await invited(org.api);
    clockOffsetMs += 7 * DAY + 60_000;
    expect(await pendingOf(org.api)).toEqual([]);
  });

  it('refuses a viewer the list (403)', async () => {
    const org = await t.server.newOrg();
    const viewer = await org.member('viewer');
    expectStatus(await viewer.api.call('listTeamInvitations'), 403);
  });

  it('cancels an invitation (200 with a message), then 404', async () => {
    const org = await t.server.newOrg();
    const invitation = await invited(org.api);
    const params = { id: invitation.id };
    expect(expectStatus(await org.api.call('cancelTeamInvitation', { params }), 200).message).toContain('cancelled');
    expectStatus(await org.api.call('cancelTeamInvitation', { params }), 404);
  });

  it('answers 404 for another organisation’s invitation, which stays pending', async () => {
    const org = await t.server.newOrg();
    const other = await t.server.newOrg();
    const invitation = await invited(other.api);
    expectStatus(await org.api.call('cancelTeamInvitation', { params: { id: invitation.id } }), 404);
    expect(await pendingOf(other.api)).toEqual([invitation]);
  });
});

describe('accepting (GET /auth/accept-invite)', () => {
  it('creates an unknown user in the organisation and signs them in (307 to the app)', async () => {
    const org = await t.server.newOrg();
    const email = newEmail();
    await invited(org.api, email, 'editor');
    const { location, cookie, session } = await accepted(tokenFor(email));
    expect(location).toBe('http://app.test/?invitation=accepted');
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toMatch(/Max-Age=2592000/);
    expect(cookie).not.toMatch(/Secure/i);
    const web = new ApiClient(t.server.url, { session: session! });
    const members = expectStatus(await web.call('listTeamMembers'), 200);
    expect(members.find((m) => m.email === email)?.role).toBe('editor');
  });

  it('gives the new member the invited role', async () => {
    const org = await t.server.newOrg();
    const email = newEmail();
    await invited(org.api, email, 'viewer');
    const { session } = await accepted(tokenFor(email));
    const web = new ApiClient(t.server.url, { session: session! });
    expectStatus(await web.call('listFolders'), 200);
    expectStatus(await web.call('createFolder', { body: { name: 'viewer-write' } }), 403);
  });

  it('marks the new user’s address verified', async () => {
    const org = await t.server.newOrg();
    const email = newEmail();
    await invited(org.api, email);
    await accepted(tokenFor(email));
    const result = await t.server.database.db.execute(sql`SELECT email_verified FROM users WHERE email = ${email}`);
    expect(rowsOf(result)).toEqual([{ email_verified: true }]);
  });

  it('sets a Secure cookie when the service is served over https', async () => {
    const https = await startTestServer({ config: { smtpUrl: smtp.url, publicUrl: 'https://ipam.example.test' } });
    try {
      const org = await https.newOrg();
      const email = newEmail();
      await invited(org.api, email);
      expect(smtp.lastTo(email)).toContain('https://ipam.example.test/api/v1/auth/accept-invite?token=');
      const response = await https.anonymous.call('acceptInvitation', {
        query: { token: tokenFor(email) },
        headers: { 'x-forwarded-for': clientIp() },
      });
      expectStatus(response, 307);
      expect(response.headers.get('set-cookie')).toMatch(/; Secure/i);
    } finally {
      await https.close();
    }
  });

  it('destroys the session the browser still carried (rotation)', async () => {
    const org = await t.server.newOrg();
    const email = newEmail();
    await invited(org.api, email);
    const headers = { 'x-forwarded-for': clientIp() };
    const options = { query: { token: tokenFor(email) }, as: { session: org.session }, headers };
    expectStatus(await t.server.anonymous.call('acceptInvitation', options), 307);
    expectStatus(await org.web.call('listFolders'), 401);
  });

  it('works once: a used link redirects to the login page', async () => {
    const org = await t.server.newOrg();
    const email = newEmail();
    await invited(org.api, email);
    const token = tokenFor(email);
    await accepted(token);
    const again = await accepted(token);
    expect(again.location).toBe('http://app.test/login?error=invalid_invitation');
    expect(again.session).toBeUndefined();
  });

  it('gives one session to two concurrent uses of a link', async () => {
    const org = await t.server.newOrg();
    const email = newEmail();
    await invited(org.api, email);
    const token = tokenFor(email);
    const results = await Promise.all([accepted(token), accepted(token)]);
    expect(results.filter((r) => r.session).length).toBe(1);
  });

  it.each([
    ['an expired link', 'expired'],
    ['a cancelled link', 'cancelled'],
    ['an unknown token', 'unknown'],
  ])('redirects %s to the login page', async (_, kind) => {
    const org = await t.server.newOrg();
    const email = newEmail();
    const invitation = await invited(org.api, email);
    let token = tokenFor(email);
    if (kind === 'expired') clockOffsetMs += 7 * DAY + 60_000;
    if (kind === 'cancelled') await org.api.call('cancelTeamInvitation', { params: { id: invitation.id } });
    if (kind === 'unknown') token = `${token.slice(0, -4)}AAAA`;
    const { location, session } = await accepted(token);
    expect(location).toBe('http://app.test/login?error=invalid_invitation');
    expect(session).toBeUndefined();
  });

  it('answers 400 when the token is missing', async () => {
    const response = await t.server.anonymous.call('acceptInvitation', { headers: { 'x-forwarded-for': clientIp() } });
    expect(expectStatus(response, 400).error).toMatch(/token/);
  });

  it('moves a user whose organisation has no data and no other member, deleting that organisation', async () => {
    const org = await t.server.newOrg();
    const lone: TestOrg = await t.server.newOrg();
    await invited(org.api, lone.email, 'viewer');
    const { location, session } = await accepted(tokenFor(lone.email));
    expect(location).toBe('http://app.test/?invitation=accepted');
    const web = new ApiClient(t.server.url, { session: session! });
    const members = expectStatus(await web.call('listTeamMembers'), 200);
    expect(members.find((m) => m.user_id === lone.userId)?.role).toBe('viewer');
    const result = await t.server.database.db.execute(sql`SELECT id FROM organizations WHERE id = ${lone.orgId}`);
    expect(rowsOf(result)).toEqual([]);
    expectStatus(await lone.api.call('listFolders'), 401);
  });

  it('refuses a user whose organisation holds data, and the invitation stays pending', async () => {
    const org = await t.server.newOrg();
    const busy = await t.server.newOrg();
    expectStatus(await busy.api.call('createVlan', { body: { vlan_number: 7 } }), 201);
    const invitation = await invited(org.api, busy.email);
    const { location, session } = await accepted(tokenFor(busy.email));
    expect(location).toBe('http://app.test/login?error=invitation_conflict');
    expect(session).toBeUndefined();
    expect(await pendingOf(org.api)).toEqual([invitation]);
    expectStatus(await busy.api.call('listVlans'), 200);
  });

  it('refuses a user whose organisation has other members', async () => {
    const org = await t.server.newOrg();
    const shared = await t.server.newOrg();
    await shared.member('viewer');
    await invited(org.api, shared.email);
    const { location } = await accepted(tokenFor(shared.email));
    expect(location).toBe('http://app.test/login?error=invitation_conflict');
    expectStatus(await shared.api.call('listTeamMembers'), 200);
  });
});
