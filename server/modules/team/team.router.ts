import type { AppRouteImplementation } from '@ts-rest/express';
import { initServer } from '@ts-rest/express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import { readCookie } from '../../http/cookies';
import { redirect, secureCookies, setSessionCookie } from '../auth/cookies';
import { SESSION_COOKIE } from '../identity/tokens';
import * as invitations from './invitations.service';
import * as team from './team.service';

const s = initServer();

export const teamRouter = (context: ServerContext) =>
  s.router(contract.team, {
    listTeamMembers: async ({ req }) => ({
      status: 200,
      body: await team.listMembers(context.db, principalOf(req)),
    }),
    updateTeamMemberRole: async ({ req, params, body }) => ({
      status: 200,
      body: await team.updateMemberRole(context.db, principalOf(req), params.user_id, body.role),
    }),
    removeTeamMember: async ({ req, params }) => ({
      status: 200,
      body: await team.removeMember(context.db, principalOf(req), params.user_id),
    }),
    createTeamInvitation: async ({ req, body }) => ({
      status: 201,
      body: await invitations.createInvitation(context, principalOf(req), body),
    }),
    listTeamInvitations: async ({ req }) => ({
      status: 200,
      body: await invitations.listInvitations(context, principalOf(req)),
    }),
    cancelTeamInvitation: async ({ req, params }) => ({
      status: 200,
      body: await invitations.cancelInvitation(context, principalOf(req), params.id),
    }),
  });

/**
 * `GET /auth/accept-invite` (public, browser flow): 307 to the app signed in, or to the login page with
 * `error=invalid_invitation` or `error=invitation_conflict`. Merged into the auth router by routes.ts.
 */
export const acceptInvitation =
  (context: ServerContext): AppRouteImplementation<typeof contract.auth.acceptInvitation> =>
  async ({ query, req, res }) => {
    const { appUrl, publicUrl } = context.config;
    const previous = readCookie(req.headers.cookie, SESSION_COOKIE);
    const outcome = await invitations.acceptInvitation(context, query.token, previous);
    if (!outcome.ok) return redirect(res, `${appUrl}/login?error=${outcome.error}`);
    setSessionCookie(res, outcome.session, secureCookies(publicUrl));
    // The console's welcome to the new team (any app at APP_URL may ignore the query).
    return redirect(res, `${appUrl}/?invitation=accepted`);
  };
