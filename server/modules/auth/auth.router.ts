import { initServer } from '@ts-rest/express';
import type { Request } from 'express';
import { contract } from '../../../contract';
import type { ServerContext } from '../../context';
import { principalOf } from '../../http/auth';
import { readCookie } from '../../http/cookies';
import { deleteAccount } from './account.service';
import {
  clearFlowCookie,
  clearSessionCookie,
  OAUTH_FLOW_COOKIE,
  redirect,
  secureCookies,
  setFlowCookie,
  setSessionCookie,
} from './cookies';
import { googleSignIn } from './google.service';
import { SENT_MESSAGE, sendMagicLink, verifyMagicLink } from './magic-link.service';
import { currentUser, endSession } from './sessions.service';

const s = initServer();
const routes = contract.auth;

/** The raw query string of a request, without the `?`. */
const rawQuery = (req: Request) => new URL(req.originalUrl, 'http://localhost').search.slice(1);

/**
 * Sign-in and session routes. acceptInvitation (also under /auth) is built with the team routes and
 * merged next to these in server/routes.ts.
 */
export function authRouter(context: ServerContext) {
  const { db, config } = context;
  const google = googleSignIn(context);
  const secure = secureCookies(config.publicUrl);
  const loginError = (code: string) => `${config.appUrl}/login?error=${code}`;

  return {
    getSignInMethods: s.route(routes.getSignInMethods, async () => ({
      status: 200,
      body: { magic_link: { delivery: config.smtpUrl ? 'email' : 'server_log' }, google: google.configured() },
    })),

    sendMagicLink: s.route(routes.sendMagicLink, async ({ body }) => {
      await sendMagicLink(context, body.email);
      return { status: 200, body: { message: SENT_MESSAGE } };
    }),

    verifyMagicLink: s.route(routes.verifyMagicLink, async ({ req, res, query }) => {
      const outcome = await verifyMagicLink(context, query.token, req.headers.cookie);
      if (!outcome.ok) return redirect(res, loginError(outcome.error));
      setSessionCookie(res, outcome.sessionToken, secure);
      return redirect(res, config.appUrl);
    }),

    startGoogleSignIn: s.route(routes.startGoogleSignIn, async ({ res }) => {
      const started = await google.start();
      if (!started.ok) return redirect(res, loginError(started.error));
      setFlowCookie(res, started.flowId, secure);
      return redirect(res, started.location);
    }),

    completeGoogleSignIn: s.route(routes.completeGoogleSignIn, async ({ req, res, query }) => {
      clearFlowCookie(res, secure);
      const outcome = await google.complete(
        {
          query: rawQuery(req),
          error: query.error,
          state: query.state,
          flowId: readCookie(req.headers.cookie, OAUTH_FLOW_COOKIE),
        },
        req.headers.cookie,
      );
      if (!outcome.ok) return redirect(res, loginError(outcome.error));
      setSessionCookie(res, outcome.sessionToken, secure);
      return redirect(res, config.appUrl);
    }),

    getCurrentUser: s.route(routes.getCurrentUser, async ({ req }) => ({
      status: 200,
      body: await currentUser(db, principalOf(req)),
    })),

    endSession: s.route(routes.endSession, async ({ req, res }) => {
      const ended = await endSession(db, principalOf(req), req.headers.cookie);
      if (!ended) return { status: 200, body: { message: 'Signed in with an API key: there is no session to end' } };
      clearSessionCookie(res, secure);
      return { status: 200, body: { message: 'Signed out' } };
    }),

    deleteAccount: s.route(routes.deleteAccount, async ({ req, res }) => {
      const { organizationDeleted } = await deleteAccount(db, principalOf(req));
      clearSessionCookie(res, secure);
      const message = organizationDeleted
        ? 'Your account and your organisation, with all its data, are deleted'
        : 'Your account is deleted';
      return { status: 200, body: { message } };
    }),
  };
}
