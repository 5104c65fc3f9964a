import { randomBytes } from 'node:crypto';
import type * as Oidc from 'openid-client';
import type { ServerContext } from '../../context';
import { hashToken } from '../identity/tokens';
import * as repo from './auth.repo';
import { OAUTH_FLOW_TTL_MS } from './cookies';
import { signIn } from './sessions.service';

/** Codes of `${appUrl}/login?error=<code>` after a failed Google sign-in. */
export type GoogleError =
  | 'google_not_configured'
  | 'google_unavailable'
  | 'google_cancelled'
  | 'google_failed'
  | 'invalid_state'
  | 'email_not_verified';

export type GoogleStart = { ok: true; location: string; flowId: string } | { ok: false; error: GoogleError };
export type GoogleOutcome = { ok: true; sessionToken: string } | { ok: false; error: GoogleError };

const CALLBACK_PATH = '/api/v1/auth/oauth/google/callback';

/** openid-client (7 MB resident), loaded by the first Google sign-in rather than at start. */
let openidClient: Promise<typeof Oidc> | undefined;
const loadOidc = () => (openidClient ??= import('openid-client'));

/** Plain http is allowed for an issuer on loopback only (a local provider in development and tests). */
function isLoopbackHttp(issuer: URL): boolean {
  return issuer.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(issuer.hostname);
}

/**
 * Google sign-in through OpenID Connect (openid-client): authorization code with PKCE, state and nonce
 * kept server-side in oauth_flows for 10 minutes, bound to the browser by a flow cookie. The issuer's
 * discovery document is fetched once and kept; a failed discovery is retried on the next sign-in.
 */
export function googleSignIn(context: ServerContext) {
  const { config, db, warn: log } = context;
  const redirectUri = `${config.publicUrl}${CALLBACK_PATH}`;
  let discovered: Promise<Oidc.Configuration> | undefined;

  const configured = () => Boolean(config.google.clientId && config.google.clientSecret);

  function discover(): Promise<Oidc.Configuration> {
    discovered ??= (async () => {
      const oidc = await loadOidc();
      const issuer = new URL(config.google.issuer);
      const options = isLoopbackHttp(issuer) ? { execute: [oidc.allowInsecureRequests], timeout: 10 } : { timeout: 10 };
      return oidc.discovery(issuer, config.google.clientId!, config.google.clientSecret!, undefined, options);
    })().catch((error) => {
      discovered = undefined;
      throw error;
    });
    return discovered;
  }

  async function start(): Promise<GoogleStart> {
    if (!configured()) return { ok: false, error: 'google_not_configured' };
    let configuration: Oidc.Configuration;
    try {
      configuration = await discover();
    } catch (error) {
      log(`Google sign-in: discovery of ${config.google.issuer} failed: ${(error as Error).message}`);
      return { ok: false, error: 'google_unavailable' };
    }
    const oidc = await loadOidc();
    const now = context.now();
    await repo.purgeOAuthFlows(db, now);
    const flowId = randomBytes(32).toString('base64url');
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    await repo.insertOAuthFlow(db, {
      idHash: hashToken(flowId),
      state,
      nonce,
      codeVerifier,
      createdAt: now,
      expiresAt: new Date(now.getTime() + OAUTH_FLOW_TTL_MS),
    });
    const location = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      state,
      nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { ok: true, location: location.href, flowId };
  }

  /**
   * The provider's redirect back: `query` is the callback's raw query string, `flowId` the browser's
   * flow cookie. The flow is consumed whatever happens, so a callback URL works at most once.
   */
  async function complete(
    input: { query: string; error?: string; state?: string; flowId?: string },
    cookies: string | undefined,
  ): Promise<GoogleOutcome> {
    const flow = input.flowId ? await repo.takeOAuthFlow(db, hashToken(input.flowId)) : null;
    if (input.error)
      return { ok: false, error: input.error === 'access_denied' ? 'google_cancelled' : 'google_failed' };
    const now = context.now();
    if (!flow || flow.expiresAt.getTime() <= now.getTime() || input.state !== flow.state) {
      return { ok: false, error: 'invalid_state' };
    }
    if (!configured()) return { ok: false, error: 'google_not_configured' };

    let email: unknown;
    let verified: unknown;
    let name: unknown;
    try {
      const configuration = await discover();
      const oidc = await loadOidc();
      const currentUrl = new URL(redirectUri);
      currentUrl.search = input.query;
      const tokens = await oidc.authorizationCodeGrant(configuration, currentUrl, {
        pkceCodeVerifier: flow.codeVerifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
        idTokenExpected: true,
      });
      let claims: Record<string, unknown> = { ...tokens.claims() };
      // Google puts the address in the ID token; a provider that keeps it for the userinfo endpoint is asked there.
      if (claims.email === undefined) {
        claims = { ...(await oidc.fetchUserInfo(configuration, tokens.access_token, String(claims.sub))), ...claims };
      }
      ({ email, email_verified: verified, name } = claims);
    } catch (error) {
      log(`Google sign-in: the code exchange failed: ${(error as Error).message}`);
      return { ok: false, error: 'google_failed' };
    }
    if (typeof email !== 'string' || !email.includes('@') || (verified !== true && verified !== 'true')) {
      return { ok: false, error: 'email_not_verified' };
    }
    const person = { email, name: typeof name === 'string' ? name : '' };
    return { ok: true, sessionToken: await signIn(db, person, cookies, now) };
  }

  return { configured, start, complete };
}
