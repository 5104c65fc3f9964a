/**
 * API keys (`/developers/api-keys`): the keys the caller may see (an editor or viewer their own, an admin
 * every key: the API decides), a new key with its name and scopes whose full value is shown once, right
 * after it was made, and revoking with a confirmation.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { Confirm } from '../components/confirm';
import { ErrorNotice } from '../components/errors';
import { focusOnMount } from '../components/focus';
import { CheckboxField, FormActions, TextField } from '../components/form';
import { formProblem } from '../components/form-problem';
import { Time } from '../components/time';
import { Dialog, Loaded, Page, SecretOnce, Table } from '../components/ui';
import { Link } from '../router';
import { useCan, useSession } from '../session';
import './developers.css';

type ApiKey = Awaited<ReturnType<typeof api.apiKeys.list>>[number];
type Permission = ApiKey['permissions'][number];

const PERMISSIONS: { value: Permission; label: string }[] = [
  { value: 'read', label: 'Read (GET requests)' },
  { value: 'write', label: 'Write (changes)' },
];

const keysKey = ['api-keys'];

export function ApiKeysPage() {
  const { organization, role } = useSession();
  const canManage = useCan('editor');
  const queryClient = useQueryClient();
  const keys = useQuery({ queryKey: keysKey, queryFn: () => api.apiKeys.list() });
  // The new key lives in this mutation's state only: gone with "Done", a reload or leaving the page, and
  // never kept in the cache once nobody shows it (gcTime 0); the list only ever has the prefix.
  const create = useMutation({
    mutationFn: (body: { name: string; permissions: Permission[] }) => api.apiKeys.create(body),
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keysKey }),
  });
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const closeRevoke = () => setRevoking(null);
  const created = create.data;

  return (
    <Page
      title="API keys"
      actions={
        <a className="button" href="/docs">
          API reference
        </a>
      }
    >
      <p>
        Scripts and CI call the API with a key: <code>Authorization: Bearer svc_…</code>. A key acts for the person who
        created it, with their role; a read key only reads.
      </p>
      {organization.plan === 'free' && (
        <div className="notice info">
          <strong>API keys are read-only on the free plan</strong>
          <p>
            A key can read, but its writes are refused until the organisation is on a paid plan (
            <Link to="/billing">see plans</Link>). Changes made here in the console are not affected.
          </p>
        </div>
      )}
      {created && (
        <section className="card" aria-labelledby="new-key-title">
          <h2 id="new-key-title" tabIndex={-1} ref={focusOnMount}>
            New key “{created.name}”
          </h2>
          <SecretOnce label={`API key ${created.name}`} value={created.key} />
          <p>Try it:</p>
          <pre className="example">
            <code>{`curl -H "Authorization: Bearer $IPAM_API_KEY" ${window.location.origin}/api/v1/subnets`}</code>
          </pre>
          <button type="button" onClick={() => create.reset()}>
            Done, I have copied the key
          </button>
        </section>
      )}
      {canManage && !created && (
        <CreateKeyForm onCreate={(body) => create.mutate(body)} error={create.error} pending={create.isPending} />
      )}
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">{role === 'admin' ? 'Every key of the organisation' : 'Your keys'}</h2>
        <Loaded query={keys}>
          {(list) => (list.length === 0 ? <p>No API keys yet.</p> : <KeysTable keys={list} onRevoke={setRevoking} />)}
        </Loaded>
      </section>
      <Dialog open={revoking !== null} title="Revoke API key" onClose={closeRevoke}>
        {revoking && (
          <Confirm
            action={`Revoke ${revoking.name}`}
            run={() => api.apiKeys.revoke(revoking.id)}
            invalidate={[keysKey]}
            onClose={closeRevoke}
          >
            <p>
              Revoke <strong>{revoking.name}</strong> (<code>{revoking.key_prefix}…</code>)? Requests with it are
              refused at once. This cannot be undone.
            </p>
          </Confirm>
        )}
      </Dialog>
    </Page>
  );
}

function CreateKeyForm({
  onCreate,
  error,
  pending,
}: {
  onCreate: (body: { name: string; permissions: Permission[] }) => void;
  error: unknown;
  pending: boolean;
}) {
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<Permission[]>(['read', 'write']);
  const problem = formProblem(error, ['name', 'permissions']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onCreate({ name, permissions: PERMISSIONS.map((p) => p.value).filter((p) => chosen.includes(p)) });
  };
  const toggle = (permission: Permission, on: boolean) =>
    setChosen((list) => (on ? [...list, permission] : list.filter((p) => p !== permission)));
  return (
    <form className="card narrow" onSubmit={submit} aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <TextField
        label="Name"
        hint="What uses it, e.g. CI deploy"
        value={name}
        onChange={(event) => setName(event.target.value)}
        maxLength={100}
        required
        error={problem.fields.name}
      />
      <fieldset className="choices" aria-describedby={problem.fields.permissions ? 'permissions-error' : undefined}>
        <legend>Permissions</legend>
        {PERMISSIONS.map((permission) => (
          <CheckboxField
            key={permission.value}
            label={permission.label}
            checked={chosen.includes(permission.value)}
            onChange={(event) => toggle(permission.value, event.target.checked)}
          />
        ))}
        {problem.fields.permissions && (
          <p id="permissions-error" className="field-error">
            {problem.fields.permissions}
          </p>
        )}
      </fieldset>
      <ErrorNotice error={problem.notice} />
      <FormActions label="Create API key" pending={pending} />
    </form>
  );
}

function KeysTable({ keys, onRevoke }: { keys: ApiKey[]; onRevoke: (key: ApiKey) => void }) {
  const canManage = useCan('editor');
  return (
    <Table
      headings={['Name', 'Key', 'Permissions', 'Created', 'Last used', canManage && { label: 'Actions', hidden: true }]}
    >
      {keys.map((key) => (
        <tr key={key.id}>
          <td>{key.name}</td>
          <td className="nowrap">
            <code>{key.key_prefix}…</code>
          </td>
          <td>{key.permissions.join(', ')}</td>
          <td className="nowrap">
            <Time at={key.created_at} />
          </td>
          <td className="nowrap">{key.last_used_at ? <Time at={key.last_used_at} /> : 'never'}</td>
          {canManage && (
            <td>
              <button type="button" onClick={() => onRevoke(key)}>
                Revoke key {key.name}
              </button>
            </td>
          )}
        </tr>
      ))}
    </Table>
  );
}
