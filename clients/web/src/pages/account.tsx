/**
 * Your account: who you are, signing out of this browser, and deleting the account, confirmed by typing the
 * address or DELETE, saying first what becomes of the organisation (the API refuses the last admin of an
 * organisation with other members, and that refusal shows here).
 */
import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { ErrorNotice } from '../components/errors';
import { TextField } from '../components/form';
import { Loaded, Page } from '../components/ui';
import { Link } from '../router';
import { type Me, useLeave, useSession, useSignOut } from '../session';
import { planName } from './billing';
import { MEMBERS_KEY } from './team';
import './account.css';

export function AccountPage(_props: Record<string, string>) {
  const me = useSession();
  const { user, organization, role } = me;
  const signOut = useSignOut();
  return (
    <Page title="Your account">
      <div className="grid two">
        <section className="card" aria-labelledby="who-title">
          <h2 id="who-title">Signed in as</h2>
          <dl className="facts">
            <dt>Email</dt>
            <dd>{user.email}</dd>
            <dt>Name</dt>
            <dd>{user.name || <span className="muted">not given</span>}</dd>
            <dt>Role</dt>
            <dd>{role}</dd>
            <dt>Organisation</dt>
            <dd>
              {organization.name} ({planName(organization.plan)} plan)
            </dd>
          </dl>
        </section>
        <section className="card" aria-labelledby="sign-out-title">
          <h2 id="sign-out-title">Sign out</h2>
          <p>Ends the session of this browser. Your other sessions and API keys keep working.</p>
          <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            Sign out of this browser
          </button>
          <ErrorNotice error={signOut.error} />
        </section>
      </div>
      <DeleteAccount me={me} />
    </Page>
  );
}

/** What the typed confirmation must be: the account's address (any case) or the word DELETE. */
const confirms = (typed: string, email: string) =>
  typed.trim() === 'DELETE' || typed.trim().toLowerCase() === email.toLowerCase();

function DeleteAccount({ me }: { me: Me }) {
  const [typed, setTyped] = useState('');
  const members = useQuery({ queryKey: MEMBERS_KEY, queryFn: () => api.team.listMembers() });
  const leave = useLeave();
  const remove = useMutation({ mutationFn: () => api.auth.deleteAccount(), onSuccess: leave });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (confirms(typed, me.user.email)) remove.mutate();
  };
  return (
    <section className="card" aria-labelledby="delete-title">
      <h2 id="delete-title">Delete your account</h2>
      <Loaded query={members}>{(list) => <WhatHappens me={me} members={list} />}</Loaded>
      <form onSubmit={submit} noValidate>
        <TextField
          label="Type your email address or DELETE to confirm"
          name="confirmation"
          autoComplete="off"
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          hint={`Your address is ${me.user.email}. This cannot be undone.`}
        />
        <div className="form-actions">
          <button type="submit" className="danger" disabled={!confirms(typed, me.user.email) || remove.isPending}>
            Delete my account
          </button>
        </div>
      </form>
      <ErrorNotice error={remove.error} />
    </section>
  );
}

/** What deleting the account does to the organisation, from its members now. */
function WhatHappens({ me, members }: { me: Me; members: Awaited<ReturnType<typeof api.team.listMembers>> }) {
  const others = members.filter((member) => member.user_id !== me.user.id);
  const org = me.organization.name;
  if (others.length === 0) {
    return (
      <div className="notice warn" role="note">
        <strong>You are the only member of {org}</strong>
        <p>
          Deleting your account deletes the organisation with it, and all its data: folders, subnets, addresses, VLANs,
          VRFs, locations, webhooks, API keys and the activity log. This is permanent.
        </p>
      </div>
    );
  }
  const lastAdmin = me.role === 'admin' && !others.some((member) => member.role === 'admin');
  return (
    <>
      <p>
        Your account, sessions and API keys are deleted. {org} and its data stay with its {others.length} other{' '}
        {others.length === 1 ? 'member' : 'members'}.
      </p>
      {lastAdmin && (
        <div className="notice warn" role="note">
          <strong>You are the last admin of {org}</strong>
          <p>
            An organisation with other members keeps an admin: <Link to="/team">make another member admin</Link> first,
            or your deletion is refused.
          </p>
        </div>
      )}
    </>
  );
}
