/**
 * Sign-in: a magic link by mail (or, without a mail server, in the server's log), Google when the server
 * offers it, and the errors the sign-in, invitation and Google flows land here with (`/login?error=…`).
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { ErrorNotice, problemOf } from '../components/errors';
import { TextField } from '../components/form';
import { Page } from '../components/ui';
import { navigate, useLocation } from '../router';

/** What each `error` code of `/login?error=…` means to the person who followed a link. */
export const SIGN_IN_ERRORS: Record<string, string> = {
  invalid_link: 'That sign-in link is not valid any more: links work once, for 15 minutes. Ask for a new one below.',
  invalid_invitation:
    'That invitation link is not valid: it was used, cancelled or is older than 7 days. Ask your team’s admin for a new one.',
  invitation_conflict:
    'The invitation could not be accepted: your current organisation holds data or other members. Delete its data or leave it first, or accept with another address.',
  email_not_verified: 'Google did not confirm that email address, so it cannot sign you in.',
  google_cancelled: 'Google sign-in was cancelled.',
  google_failed: 'Google sign-in failed. Try again, or sign in with a link by email.',
  google_unavailable: 'Google sign-in is unavailable right now. Sign in with a link by email instead.',
  google_not_configured: 'Google sign-in is not set up on this server. Sign in with a link by email.',
  invalid_state: 'The sign-in took too long or was started in another browser. Start again.',
};

export function LoginPage() {
  const location = useLocation();
  const errorCode = location.searchParams.get('error');
  const methods = useQuery({ queryKey: ['sign-in-methods'], queryFn: () => api.auth.methods(), staleTime: Infinity });
  const [email, setEmail] = useState('');
  const send = useMutation({ mutationFn: (address: string) => api.auth.sendMagicLink({ email: address }) });
  const sentTo = location.searchParams.get('sent');

  const submit = (event: FormEvent) => {
    event.preventDefault();
    send.mutate(email, { onSuccess: () => navigate(`/login?sent=${encodeURIComponent(email)}`) });
  };

  if (sentTo) {
    const toLog = methods.data?.magic_link.delivery === 'server_log';
    return (
      <Page title="Check your mail">
        <div className="card narrow">
          <p>
            A sign-in link is on its way to <strong>{sentTo}</strong>. It works once, for 15 minutes.
          </p>
          {toLog && (
            <div className="notice info" role="note">
              <strong>No mail server is configured on this server.</strong>
              <p>
                The message, with its link, was written to the server’s log: look in the terminal running{' '}
                <code>npm start</code> for “Your sign-in link” and open the link from there. Set <code>SMTP_URL</code>{' '}
                to send real mail.
              </p>
            </div>
          )}
          <p>
            <a href="/login">Use another address</a>
          </p>
        </div>
      </Page>
    );
  }

  return (
    <Page title="Sign in">
      <div className="card narrow">
        {errorCode && (
          <div className="notice error" role="alert">
            <strong>Could not sign you in</strong>
            <p>{SIGN_IN_ERRORS[errorCode] ?? `Sign-in failed (${errorCode}). Try again.`}</p>
          </div>
        )}
        <form onSubmit={submit} noValidate>
          <TextField
            label="Email address"
            type="email"
            name="email"
            autoComplete="email"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            error={problemOf(send.error).fields.email}
            hint="We email you a link that signs you in; a new address gets a new organisation."
          />
          <ErrorNotice error={send.error && !problemOf(send.error).fields.email ? send.error : null} />
          <button type="submit" className="primary" disabled={send.isPending}>
            {send.isPending ? 'Sending…' : 'Email me a sign-in link'}
          </button>
        </form>
        {methods.data?.google && (
          <>
            <p className="divider">or</p>
            <a className="button" href="/api/v1/auth/oauth/google">
              Sign in with Google
            </a>
          </>
        )}
      </div>
    </Page>
  );
}
