import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import { Browser, type OidcProvider, startOidcProvider } from '../fixtures/oidc';
import { clientIp } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

/** The service's public address as the browser and the provider know it (the test maps it to the server). */
const PUBLIC_URL = 'http://ipam.test';
const APP_URL = 'http://app.test';
const CALLBACK = `${PUBLIC_URL}/api/v1/auth/oauth/google/callback`;

let provider: OidcProvider;
let clockOffsetMs = 0;

beforeAll(async () => {
  provider = await startOidcProvider({ redirectUris: [CALLBACK] });
});
afterAll(() => provider?.close());
const t = useTestServer(
  () => ({
    config: {
      publicUrl: PUBLIC_URL,
      appUrl: APP_URL,
      google: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
    },
    now: () => new Date(Date.now() + clockOffsetMs),
  }),
  false,
);

const newAccount = (overrides: { email_verified?: boolean } = {}) => {
  const email = `google-${randomUUID()}@example.test`;
  const sub = provider.addAccount({ email, email_verified: overrides.email_verified ?? true, name: 'Grace Hopper' });
  return { email, sub };
};

/** One person at one browser: a cookie jar and a client address of their own (per-IP limits). */
function person() {
  return { browser: new Browser(), ip: clientIp() };
}
type Person = ReturnType<typeof person>;

async function start(who: Person): Promise<URL> {
  const response = await t.server.anonymous.call('startGoogleSignIn', { headers: { 'x-forwarded-for': who.ip } });
  expectStatus(response, 307);
  who.browser.store(t.server.url, response.headers);
  return new URL(response.headers.get('location') ?? '');
}

/** At the provider: from the authorization request to the redirect back to the service's callback. */
async function authorize(who: Person, authorizationUrl: URL, form: Record<string, string>): Promise<URL> {
  const interaction = await who.browser.followUntil(authorizationUrl.href, (u) =>
    u.pathname.startsWith('/interaction/'),
  );
  expect((await who.browser.fetch(interaction.href)).status).toBe(200);
  return who.browser.followUntil(interaction.href, (u) => u.href.startsWith(CALLBACK), form);
}

/** The browser arriving back at the callback; answers the service's redirect target. */
async function callback(who: Person, url: URL, change: Record<string, string> = {}) {
  const query = { ...Object.fromEntries(url.searchParams), ...change };
  const response = await t.server.anonymous.call('completeGoogleSignIn', {
    query,
    headers: { cookie: who.browser.cookieHeader(t.server.url), 'x-forwarded-for': who.ip },
  });
  expectStatus(response, 307);
  who.browser.store(t.server.url, response.headers);
  return { location: response.headers.get('location'), response };
}

async function signIn(who: Person, sub: string) {
  return callback(who, await authorize(who, await start(who), { login: sub }));
}

describe('Google sign-in (OpenID Connect, a real provider on loopback)', () => {
  it('redirects to the provider with code flow, PKCE (S256), state, nonce and the callback URL', async () => {
    const who = person();
    const url = await start(who);
    expect(url.origin + url.pathname).toBe(`${provider.issuer}/auth`);
    const params = url.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toBe(provider.clientId);
    expect(params.get('redirect_uri')).toBe(CALLBACK);
    expect(params.get('scope')).toBe('openid email profile');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(params.get('state')).toBeTruthy();
    expect(params.get('nonce')).toBeTruthy();
    expect(who.browser.cookie(t.server.url, 'service_oauth')).toBeTruthy();
  });

  it('signs a new person in: user and organisation created, session cookie set, 307 to the app', async () => {
    const { email, sub } = newAccount();
    const who = person();
    const { location, response } = await signIn(who, sub);
    expect(location).toBe(APP_URL);
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('service_session='));
    expect(cookie).toMatch(/HttpOnly/);
    const session = who.browser.cookie(t.server.url, 'service_session') ?? '';
    const me = expectStatus(await t.server.anonymous.call('getCurrentUser', { as: { session } }), 200);
    expect(me.user).toMatchObject({ email, name: 'Grace Hopper', email_verified: true });
    expect(me.organization.plan).toBe('free');
    expect(me.role).toBe('admin');
  });

  it('signs a returning person into the same user and organisation', async () => {
    const { sub } = newAccount();
    const first = person();
    await signIn(first, sub);
    const second = person();
    expect((await signIn(second, sub)).location).toBe(APP_URL);
    const me = async (who: Person) =>
      expectStatus(
        await t.server.anonymous.call('getCurrentUser', {
          as: { session: who.browser.cookie(t.server.url, 'service_session') ?? '' },
        }),
        200,
      );
    const [a, b] = [await me(first), await me(second)];
    expect(b.user.id).toBe(a.user.id);
    expect(b.organization.id).toBe(a.organization.id);
  });

  it('refuses an account whose email is not verified', async () => {
    const { email, sub } = newAccount({ email_verified: false });
    const who = person();
    expect((await signIn(who, sub)).location).toBe(`${APP_URL}/login?error=email_not_verified`);
    expect(who.browser.cookie(t.server.url, 'service_session')).toBeUndefined();
    const users = rowsOf(await t.server.database.db.execute(sql`SELECT id FROM users WHERE email = ${email}`));
    expect(users).toHaveLength(0);
  });

  it('refuses a callback whose state is not the one it issued', async () => {
    const { sub } = newAccount();
    const who = person();
    const back = await authorize(who, await start(who), { login: sub });
    const { location } = await callback(who, back, { state: 'forged-state' });
    expect(location).toBe(`${APP_URL}/login?error=invalid_state`);
  });

  it('refuses a callback in a browser that did not start the sign-in (no flow cookie)', async () => {
    const { sub } = newAccount();
    const victim = person();
    const back = await authorize(victim, await start(person()), { login: sub });
    expect((await callback(victim, back)).location).toBe(`${APP_URL}/login?error=invalid_state`);
  });

  it('accepts a callback once: replaying it is refused', async () => {
    const { sub } = newAccount();
    const who = person();
    const back = await authorize(who, await start(who), { login: sub });
    const flowCookie = who.browser.cookieHeader(t.server.url);
    expect((await callback(who, back)).location).toBe(APP_URL);
    const replay = await t.server.anonymous.call('completeGoogleSignIn', {
      query: Object.fromEntries(back.searchParams),
      headers: { cookie: flowCookie, 'x-forwarded-for': who.ip },
    });
    expectStatus(replay, 307);
    expect(replay.headers.get('location')).toBe(`${APP_URL}/login?error=invalid_state`);
  });

  it('refuses an ID token whose nonce is not the one it sent', async () => {
    const { sub } = newAccount();
    const who = person();
    const url = await start(who);
    url.searchParams.set('nonce', 'a-nonce-the-service-never-issued');
    const back = await authorize(who, url, { login: sub });
    expect((await callback(who, back)).location).toBe(`${APP_URL}/login?error=google_failed`);
  });

  it('refuses a callback after the 10 minutes a sign-in may take', async () => {
    const { sub } = newAccount();
    const who = person();
    const back = await authorize(who, await start(who), { login: sub });
    clockOffsetMs = 10 * 60 * 1000;
    try {
      expect((await callback(who, back)).location).toBe(`${APP_URL}/login?error=invalid_state`);
    } finally {
      clockOffsetMs = 0;
    }
  });

  it('sends the person to the login page when they refuse at the provider', async () => {
    const who = person();
    const back = await authorize(who, await start(who), { deny: '1' });
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect((await callback(who, back)).location).toBe(`${APP_URL}/login?error=google_cancelled`);
  });

  it('answers 400 for a malformed callback query (a parameter given twice)', async () => {
    const response = await t.server.anonymous.call('completeGoogleSignIn', {
      query: { state: ['a', 'b'], code: 'c' },
      headers: { 'x-forwarded-for': clientIp() },
    });
    expect(expectStatus(response, 400).code).toBe('validation');
  });
});

describe('Google sign-in not configured', () => {
  const bare = useTestServer({ config: { appUrl: APP_URL } }, false);

  it('sends the start route to the login page with google_not_configured', async () => {
    const response = await bare.server.anonymous.call('startGoogleSignIn', {
      headers: { 'x-forwarded-for': clientIp() },
    });
    expectStatus(response, 307);
    expect(response.headers.get('location')).toBe(`${APP_URL}/login?error=google_not_configured`);
  });
});
