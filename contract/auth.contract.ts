import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { Plan, Role } from './common/enums';
import { errors } from './common/errors';
import { access, type RouteMeta } from './common/meta';
import { describedUuid, MessageResponse, Timestamp } from './common/schemas';

export { Plan, Role };

const c = initContract();
const meta = access('Auth');

/** Deleting one's own account is a write any member may make (viewers included). */
const deleteAccountMeta = { tag: 'Auth', access: 'viewer', scope: 'write', sessionOnly: true } satisfies RouteMeta;

export const User = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the user (UUID)'),
      email: z.string().email().describe('Email address of the user, e.g. alice@example.com'),
      name: z.string().describe('Display name; empty when the sign-in method gave none'),
      email_verified: z
        .boolean()
        .describe('True once the user signed in through a link sent to the address or a verified Google account'),
      created_at: Timestamp,
    })
    .strict(),
  {
    title: 'User',
    description: 'A signed-in person',
    example: {
      id: '0b6f1c2d-3e4a-4b5c-8d6e-7f8091a2b3c4',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      email_verified: true,
      created_at: '2026-11-22T10:00:00.000Z',
    },
  },
);
export type User = z.infer<typeof User>;

const organizationExample = {
  id: '5c4d3e2f-1a0b-4c9d-8e7f-6a5b4c3d2e1f',
  name: 'Acme Networks',
  slug: 'acme-networks',
  plan: 'pro',
  created_at: '2026-11-22T10:00:00.000Z',
  updated_at: '2026-11-22T10:05:00.000Z',
};

export const Organization = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the organisation (UUID)'),
      name: z.string().max(100).describe('Organisation name, at most 100 characters'),
      slug: z.string().describe('URL-safe identifier derived from the name'),
      plan: Plan,
      created_at: Timestamp,
      updated_at: Timestamp,
    })
    .strict(),
  { title: 'Organization', description: 'The tenant every resource belongs to', example: organizationExample },
);
export type Organization = z.infer<typeof Organization>;

export const AuthMe = extendApi(z.object({ user: User, organization: Organization, role: Role }).strict(), {
  title: 'AuthMe',
  description: 'The caller, their organisation and their role in it',
  example: {
    user: {
      id: '0b6f1c2d-3e4a-4b5c-8d6e-7f8091a2b3c4',
      email: 'ada@example.com',
      name: 'Ada Lovelace',
      email_verified: true,
      created_at: '2026-11-22T10:00:00.000Z',
    },
    organization: organizationExample,
    role: 'admin',
  },
});

export const SendMagicLinkBody = extendApi(
  z
    .object({
      email: z.string().trim().email().max(254).describe('Address the sign-in link is sent to'),
    })
    .strict(),
  {
    title: 'AuthSendLinkBody',
    description: 'Email address to send a one-time sign-in link to',
    example: { email: 'ada@example.com' },
  },
);

/** A token carried by an emailed browser link. */
const LinkToken = z.string().min(1).max(512).describe('Token from the emailed link');

/*
 * Browser-flow queries are deliberately not `.strict()`: a link opened from an email, or Google's
 * redirect (which also sends scope, authuser, prompt, hd, iss …), may carry parameters the service does
 * not use. Unknown parameters are dropped; they must not turn a sign-in into a 400.
 */
export const VerifyMagicLinkQuery = z.object({ token: LinkToken }).strip();
export const AcceptInvitationQuery = z.object({ token: LinkToken }).strip();
export const GoogleCallbackQuery = z
  .object({
    code: z.string().optional().describe('Authorization code from Google'),
    state: z.string().optional().describe('State value the service set when it started the sign-in'),
    error: z.string().optional().describe('Error code from Google when the user refused or the sign-in failed'),
  })
  .strip();

export const SignInMethods = extendApi(
  z
    .object({
      magic_link: z
        .object({
          delivery: z
            .enum(['email', 'server_log'])
            .describe(
              '`email`: the link is mailed; `server_log`: no mail server is configured, and the link (with the ' +
                'whole message) is written to the server’s log, for a first run on a laptop',
            ),
        })
        .strict()
        .describe('Sign-in by an emailed link, always offered'),
      google: z.boolean().describe('Whether Google sign-in is configured (GET /auth/oauth/google starts it)'),
    })
    .strict(),
  {
    title: 'SignInMethods',
    description: 'How a person may sign in on this server',
    example: { magic_link: { delivery: 'email' }, google: true },
  },
);

export const authContract = c.router({
  getSignInMethods: {
    method: 'GET',
    path: '/auth/methods',
    summary: 'How to sign in here',
    description:
      'The sign-in methods this server offers, for a sign-in page: where a magic link goes (mailed, or written to ' +
      'the server log when no mail server is configured) and whether Google sign-in is configured. Public, and ' +
      'not counted against the sign-in routes’ per-IP limit.',
    metadata: { tag: 'Auth', access: 'public' } satisfies RouteMeta,
    responses: { 200: SignInMethods },
  },
  sendMagicLink: {
    method: 'POST',
    path: '/auth/send-link',
    summary: 'Email a sign-in link',
    description:
      'Emails a single-use sign-in link valid 15 minutes. At most 3 links per address per 15 minutes, and 5 requests ' +
      'per minute per IP on the sign-in routes. The answer is the same whether or not the address has an account.',
    metadata: meta.public,
    body: SendMagicLinkBody,
    responses: { 200: MessageResponse, ...errors(400, 413, 415, 429) },
  },
  verifyMagicLink: {
    method: 'GET',
    path: '/auth/verify',
    summary: 'Sign in with an emailed link',
    description:
      'Browser flow. A valid token sets the `service_session` cookie and redirects (307) to the app; on first sign-in ' +
      'the user and an organisation on the free plan are created. An invalid, used or expired token redirects (307) ' +
      'to the login page with an error. 400 only when the token parameter is missing.',
    metadata: meta.public,
    query: VerifyMagicLinkQuery,
    responses: { 307: c.noBody(), ...errors(400, 429) },
  },
  startGoogleSignIn: {
    method: 'GET',
    path: '/auth/oauth/google',
    summary: 'Start Google sign-in',
    description:
      'Browser flow: redirects (307) to Google. When Google sign-in is not configured, redirects to the login page with an error.',
    metadata: meta.public,
    responses: { 307: c.noBody(), ...errors(429) },
  },
  completeGoogleSignIn: {
    method: 'GET',
    path: '/auth/oauth/google/callback',
    summary: 'Google sign-in callback',
    description:
      'Google redirects the browser here. On success sets the `service_session` cookie and redirects (307) to the app, ' +
      'creating the user and organisation on first sign-in; on any failure (refusal, bad state, exchange error) ' +
      'redirects (307) to the login page with an error.',
    metadata: meta.public,
    query: GoogleCallbackQuery,
    responses: { 307: c.noBody(), ...errors(400, 429) },
  },
  getCurrentUser: {
    method: 'GET',
    path: '/auth/me',
    summary: 'Get the current user',
    description: 'The caller (the session’s user, or the user who created the API key), their organisation and role.',
    metadata: meta.read,
    responses: { 200: AuthMe, ...errors(401, 403, 429) },
  },
  endSession: {
    method: 'POST',
    path: '/auth/logout',
    summary: 'Log out',
    description:
      'Destroys the current session and clears the `service_session` cookie. Any role may log out. With a cookie it ' +
      'needs the `X-Requested-With: XMLHttpRequest` header, like every cookie write.',
    metadata: meta.read,
    body: c.noBody(),
    responses: { 200: MessageResponse, ...errors(401, 403, 429) },
  },
  deleteAccount: {
    method: 'DELETE',
    path: '/auth/account',
    summary: 'Delete my account',
    description:
      'Permanently deletes the caller’s account and clears the session; their sessions and API keys stop working. ' +
      'A person’s act: only with a signed-in session (the `service_session` cookie); an API key gets 403 ' +
      '(`session_required`), so a leaked automation key cannot delete an account or its organisation. ' +
      'When the caller is the organisation’s last member, the organisation is deleted with them, with all its data ' +
      '(folders, subnets, addresses, VLANs, VRFs, locations, webhooks, API keys, activity), irreversibly. Otherwise ' +
      'the organisation and its data stay with the other members; 400 (`last_admin`) for the last admin while other ' +
      'members remain.',
    metadata: deleteAccountMeta,
    responses: { 200: MessageResponse, ...errors(400, 401, 403, 429) },
  },
  acceptInvitation: {
    method: 'GET',
    path: '/auth/accept-invite',
    summary: 'Accept a team invitation',
    description:
      'Browser flow from the invitation email. Signs the invited address in if needed, moves the user into the inviting ' +
      'organisation with the invited role and redirects (307) to the app (`APP_URL/?invitation=accepted`). An invalid or expired token, or an ' +
      'acceptance that must be refused (the previous organisation holds data or other members), redirects (307) to ' +
      'the login page with an error. 400 only when the token parameter is missing.',
    metadata: meta.public,
    query: AcceptInvitationQuery,
    responses: { 307: c.noBody(), ...errors(400, 429) },
  },
});
