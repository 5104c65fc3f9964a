/**
 * Team: the members with their roles (admins change roles and remove members; the API keeps the last admin,
 * and its refusal shows where it was asked), and for admins the invitations: send one (seats and the hourly
 * limit as the API answers them), the pending ones with their expiry, cancel.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { Confirm } from '../components/confirm';
import { ErrorNotice, problemOf } from '../components/errors';
import { SelectField, TextField } from '../components/form';
import { Time } from '../components/time';
import { Dialog, Loaded, Page, Table } from '../components/ui';
import { type Role, useCan, useSession } from '../session';
import './team.css';

type Member = Awaited<ReturnType<typeof api.team.listMembers>>[number];

const ROLES: { value: Role; label: string }[] = [
  { value: 'viewer', label: 'Viewer' },
  { value: 'editor', label: 'Editor' },
  { value: 'admin', label: 'Admin' },
];
/** The role an option's value names (the options are ROLES). */
const roleOf = (value: string): Role => ROLES.find((option) => option.value === value)?.value ?? 'viewer';
export const MEMBERS_KEY = ['team-members'];
const INVITATIONS_KEY = ['team-invitations'];

export function TeamPage(_props: Record<string, string>) {
  const admin = useCan('admin');
  const members = useQuery({ queryKey: MEMBERS_KEY, queryFn: () => api.team.listMembers() });
  return (
    <Page title="Team">
      <p className="muted">
        Viewers read; editors also change IPAM data, run imports and make their own API keys; admins do everything, the
        team, webhooks, billing and every key included.
      </p>
      <section className="card" aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <Loaded query={members}>{(list) => <Members members={list} admin={admin} />}</Loaded>
      </section>
      {admin ? (
        <>
          <InviteForm />
          <Invitations />
        </>
      ) : (
        <p className="muted">Only an admin can invite people, change roles or remove members.</p>
      )}
    </Page>
  );
}

function Members({ members, admin }: { members: Member[]; admin: boolean }) {
  const [removing, setRemoving] = useState<Member | null>(null);
  const closeRemove = () => setRemoving(null);
  return (
    <>
      <Table className="members" headings={['Email', 'Name', 'Role', 'Joined', admin && 'Actions']}>
        {members.map((member) => (
          <tr key={member.user_id}>
            <td>
              <You member={member} />
            </td>
            <td>{member.name || <span className="muted">not given</span>}</td>
            <td>{admin ? <RoleForm member={member} /> : member.role}</td>
            <td>
              <Time at={member.accepted_at} />
            </td>
            {admin && (
              <td>
                <button type="button" onClick={() => setRemoving(member)}>
                  Remove<span className="sr-only"> {member.email}</span>
                </button>
              </td>
            )}
          </tr>
        ))}
      </Table>
      {admin && (
        <Dialog open={removing !== null} title="Remove a member" onClose={closeRemove}>
          {removing && (
            <Confirm
              action={`Remove ${removing.email}`}
              run={() => api.team.removeMember(removing.user_id)}
              invalidate={[MEMBERS_KEY]}
              onClose={closeRemove}
              cancel={`Keep ${removing.email}`}
            >
              <p>
                Remove <strong>{removing.email}</strong> ({removing.role}) from the organisation? Their sessions and API
                keys stop working at once; what they made stays.
              </p>
            </Confirm>
          )}
        </Dialog>
      )}
    </>
  );
}

function You({ member }: { member: Member }) {
  const { user } = useSession();
  return (
    <>
      {member.email}
      {member.user_id === user.id && <span className="muted"> (you)</span>}
    </>
  );
}

/** A member's role, changed with its own button (a select that acted on its own would surprise). */
function RoleForm({ member }: { member: Member }) {
  const queryClient = useQueryClient();
  const [role, setRole] = useState<Role>(member.role);
  const change = useMutation({
    mutationFn: (next: Role) => api.team.updateMemberRole(member.user_id, { role: next }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: MEMBERS_KEY });
      // A change of one's own role changes what the console offers.
      await queryClient.invalidateQueries({ queryKey: ['me'] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    change.mutate(role);
  };
  return (
    <form className="role-form" onSubmit={submit}>
      <div className="role-controls">
        <select
          aria-label={`Role of ${member.email}`}
          value={role}
          onChange={(event) => {
            setRole(roleOf(event.target.value));
            change.reset();
          }}
        >
          {ROLES.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
        <button type="submit" disabled={role === member.role || change.isPending}>
          Change role<span className="sr-only"> of {member.email}</span>
        </button>
      </div>
      {change.isSuccess && (
        <p className="small" role="status">
          {change.data.message}
        </p>
      )}
      <ErrorNotice error={change.error} />
    </form>
  );
}

function InviteForm() {
  const queryClient = useQueryClient();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const invite = useMutation({
    mutationFn: (body: { email: string; role: Role }) => api.team.invite(body),
    onSuccess: async () => {
      setEmail('');
      await queryClient.invalidateQueries({ queryKey: INVITATIONS_KEY });
    },
  });
  const fields = invite.error ? problemOf(invite.error).fields : {};
  const submit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate({ email, role });
  };
  return (
    <section className="card" aria-labelledby="invite-title">
      <h2 id="invite-title">Invite a teammate</h2>
      <form onSubmit={submit} noValidate>
        <div className="form-row">
          <TextField
            label="Email address"
            type="email"
            name="email"
            autoComplete="off"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
            error={fields.email}
            required
          />
          <SelectField
            label="Role"
            name="role"
            value={role}
            onChange={(event) => setRole(roleOf(event.target.value))}
            options={ROLES}
            error={fields.role}
          />
          <button type="submit" className="primary" disabled={invite.isPending}>
            Send invitation
          </button>
        </div>
        <p className="hint">
          The invitation is mailed with a link valid 7 days. Every member and pending invitation takes a seat of the
          plan; at most 10 invitations an hour.
        </p>
      </form>
      {!fields.email && !fields.role && <ErrorNotice error={invite.error} />}
      {invite.isSuccess && (
        <p className="notice success" role="status">
          Invitation sent to {invite.data.email} as {invite.data.role}.
        </p>
      )}
    </section>
  );
}

function Invitations() {
  const queryClient = useQueryClient();
  const invitations = useQuery({ queryKey: INVITATIONS_KEY, queryFn: () => api.team.listInvitations() });
  const cancel = useMutation({
    mutationFn: (id: string) => api.team.cancelInvitation(id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: INVITATIONS_KEY }),
  });
  return (
    <section className="card" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Pending invitations</h2>
      <ErrorNotice error={cancel.error} />
      <Loaded query={invitations}>
        {(list) =>
          list.length === 0 ? (
            <p className="muted">No pending invitations.</p>
          ) : (
            <Table headings={['Email', 'Role', 'Sent', 'Expires', 'Actions']}>
              {list.map((invitation) => (
                <tr key={invitation.id}>
                  <td>{invitation.email}</td>
                  <td>{invitation.role}</td>
                  <td>
                    <Time at={invitation.created_at} />
                  </td>
                  <td>
                    <Time at={invitation.expires_at} />
                  </td>
                  <td>
                    <button type="button" disabled={cancel.isPending} onClick={() => cancel.mutate(invitation.id)}>
                      Cancel<span className="sr-only"> invitation to {invitation.email}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </Table>
          )
        }
      </Loaded>
    </section>
  );
}
