/**
 * Webhooks (`/developers/webhooks`, admins only): the subscriptions of the organisation, and a new one with
 * its URL, description and event types, whose signing secret is shown once, right after it was made.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { ErrorNotice } from '../components/errors';
import { focusOnMount } from '../components/focus';
import { FormActions } from '../components/form';
import { formProblem } from '../components/form-problem';
import { Time } from '../components/time';
import { Loaded, Page, SecretOnce, Table } from '../components/ui';
import { Link } from '../router';
import { useCan, useSession } from '../session';
import { EndpointFields, type EndpointValues, EventTypesList } from './webhook-events';
import './developers.css';

type CreateBody = Parameters<typeof api.webhooks.create>[0];

export function WebhooksPage() {
  const isAdmin = useCan('admin');
  return <Page title="Webhooks">{isAdmin ? <Webhooks /> : <AdminsOnly />}</Page>;
}

/** What a member who is not an admin sees on the webhook pages. */
export function AdminsOnly() {
  const { role } = useSession();
  return (
    <div className="notice info">
      <strong>Webhooks are managed by admins</strong>
      <p>
        A webhook sends each change of subnets, addresses, folders, VLANs, VRFs and locations to an HTTPS endpoint as it
        happens. Only an admin of the organisation can see and change them; you are {role}.
      </p>
    </div>
  );
}

function Webhooks() {
  const queryClient = useQueryClient();
  const webhooks = useQuery({ queryKey: ['webhooks'], queryFn: () => api.webhooks.list() });
  // The secret lives in this mutation's state only (see the API keys page): shown once, never cached.
  const create = useMutation({
    mutationFn: (body: CreateBody) => api.webhooks.create(body),
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['webhooks'] }),
  });
  const created = create.data;
  return (
    <>
      <p>
        Each change is sent as a signed POST (Standard Webhooks: verify the <code>webhook-signature</code> header with
        the endpoint’s secret), retried for about a day when the endpoint fails.
      </p>
      {created ? (
        <section className="card" aria-labelledby="new-webhook-title">
          <h2 id="new-webhook-title" tabIndex={-1} ref={focusOnMount}>
            Endpoint added
          </h2>
          <p>
            <Link to={`/developers/webhooks/${created.id}`}>{created.url}</Link>
          </p>
          <SecretOnce label={`Signing secret of ${created.url}`} value={created.secret} />
          <button type="button" onClick={() => create.reset()}>
            Done, I have copied the secret
          </button>
        </section>
      ) : (
        <CreateWebhookForm onCreate={(body) => create.mutate(body)} error={create.error} pending={create.isPending} />
      )}
      <section aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Endpoints</h2>
        <Loaded query={webhooks}>
          {(list) =>
            list.length === 0 ? (
              <p>No webhook endpoints yet.</p>
            ) : (
              <Table headings={['URL', 'Description', 'Events', 'Status', { label: 'Failures', num: true }, 'Created']}>
                {list.map((webhook) => (
                  <tr key={webhook.id}>
                    <td className="url">
                      <Link to={`/developers/webhooks/${webhook.id}`}>{webhook.url}</Link>
                    </td>
                    <td>{webhook.description}</td>
                    <td>
                      <EventTypesList types={webhook.event_types} />
                    </td>
                    <td>
                      <ActiveBadge active={webhook.is_active} />
                    </td>
                    <td className="num">{webhook.failure_count}</td>
                    <td className="nowrap">
                      <Time at={webhook.created_at} />
                    </td>
                  </tr>
                ))}
              </Table>
            )
          }
        </Loaded>
      </section>
    </>
  );
}

export function ActiveBadge({ active }: { active: boolean }) {
  return <span className={`badge${active ? ' ok' : ''}`}>{active ? 'active' : 'off'}</span>;
}

function CreateWebhookForm({
  onCreate,
  error,
  pending,
}: {
  onCreate: (body: CreateBody) => void;
  error: unknown;
  pending: boolean;
}) {
  const [values, setValues] = useState<EndpointValues>({ url: '', description: '', event_types: [] });
  const [tried, setTried] = useState(false);
  const problem = formProblem(error, ['url', 'description', 'event_types']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    const { event_types } = values;
    if (event_types === null) return;
    onCreate({ ...values, event_types });
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="create-webhook-title">
      <h2 id="create-webhook-title">Add an endpoint</h2>
      <EndpointFields values={values} onChange={setValues} errors={problem.fields} tried={tried} hints />
      <ErrorNotice error={problem.notice} />
      <FormActions label="Add endpoint" pending={pending} />
    </form>
  );
}
