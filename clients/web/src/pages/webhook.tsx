/**
 * One webhook (`/developers/webhooks/:id`, admins only): its settings, a test ping and its answer, the
 * delivery history (paged), rotating the signing secret (the new one shown once) and deleting it with its
 * history.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { Confirm } from '../components/confirm';
import { ErrorNotice } from '../components/errors';
import { focusOnMount } from '../components/focus';
import { CheckboxField, FormActions } from '../components/form';
import { formProblem } from '../components/form-problem';
import { Pager, usePaging } from '../components/pager';
import { Time } from '../components/time';
import { Dialog, Fact, Loaded, Page, SecretOnce, Table } from '../components/ui';
import { Link, navigate } from '../router';
import { useCan } from '../session';
import { EndpointFields, type EndpointValues, type EventType, EventTypesList } from './webhook-events';
import { ActiveBadge, AdminsOnly } from './webhooks';
import './developers.css';

type Webhook = Awaited<ReturnType<typeof api.webhooks.get>>;

const DELIVERY_LIMITS = [50, 100] as const;

export function WebhookPage({ id }: Record<string, string>) {
  const isAdmin = useCan('admin');
  if (id === undefined) throw new Error('The webhook page is routed as /developers/webhooks/:id, so it is given an id');
  return isAdmin ? (
    <WebhookDetail id={id} />
  ) : (
    <Page title="Webhook">
      <AdminsOnly />
    </Page>
  );
}

function WebhookDetail({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const webhook = useQuery({ queryKey: ['webhooks', id], queryFn: () => api.webhooks.get(id) });
  const [confirming, setConfirming] = useState<'rotate' | 'delete' | null>(null);
  const test = useMutation({
    mutationFn: () => api.webhooks.test(id),
    // The ping is in the history either way.
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['webhooks', id, 'deliveries'] }),
  });
  // The new secret lives in this mutation's state only: shown once, never cached.
  const rotate = useMutation({ mutationFn: () => api.webhooks.rotateSecret(id), gcTime: 0 });
  const close = () => setConfirming(null);
  const deleted = () => {
    queryClient.removeQueries({ queryKey: ['webhooks', id] });
    void queryClient.invalidateQueries({ queryKey: ['webhooks'], exact: true });
    navigate('/developers/webhooks');
  };
  const actions = webhook.data && (
    <>
      <button type="button" onClick={() => test.mutate()} disabled={test.isPending}>
        {test.isPending ? 'Sending test event…' : 'Send test event'}
      </button>
      <button type="button" onClick={() => setConfirming('rotate')}>
        Rotate secret
      </button>
      <button type="button" className="danger" onClick={() => setConfirming('delete')}>
        Delete webhook
      </button>
    </>
  );
  return (
    <Page title="Webhook" actions={actions}>
      <p>
        <Link to="/developers/webhooks">All webhooks</Link>
      </p>
      <Loaded query={webhook}>
        {(data) => (
          <>
            <Summary webhook={data} />
            <div aria-live="polite">
              {test.data && (
                <div className="notice success">
                  <strong>Test event delivered</strong>
                  <p>
                    The endpoint answered {test.data.response_status} in {test.data.duration_ms} ms.
                  </p>
                </div>
              )}
            </div>
            <ErrorNotice error={test.error} />
            {rotate.data && (
              <section className="card" aria-labelledby="rotated-title">
                <h2 id="rotated-title" tabIndex={-1} ref={focusOnMount}>
                  Secret rotated
                </h2>
                <SecretOnce label={`New signing secret of ${data.url}`} value={rotate.data.secret} />
                <button type="button" onClick={() => rotate.reset()}>
                  Done, I have copied the secret
                </button>
              </section>
            )}
            <Deliveries id={id} />
            <Settings key={data.id} webhook={data} />
            <Dialog open={confirming === 'rotate'} title="Rotate the signing secret" onClose={close}>
              {/* The page's mutation runs it: the new secret shows outside the dialog. */}
              <Confirm action="Rotate secret now" run={() => rotate.mutateAsync()} onClose={close}>
                <p>
                  The current secret stops working at once: the next event and test are signed with the new one, so
                  update the endpoint’s verification right after. The new secret is shown once.
                </p>
              </Confirm>
            </Dialog>
            <Dialog open={confirming === 'delete'} title="Delete webhook" onClose={close}>
              <Confirm
                action="Delete webhook and its history"
                run={() => api.webhooks.delete(id)}
                onClose={close}
                onDone={deleted}
              >
                <p>
                  Delete the webhook to <code>{data.url}</code>? No more events are sent to it, and its delivery history
                  is deleted with it. This cannot be undone.
                </p>
              </Confirm>
            </Dialog>
          </>
        )}
      </Loaded>
    </Page>
  );
}

function Summary({ webhook }: { webhook: Webhook }) {
  return (
    <dl className="card summary">
      <Fact term="URL">
        <code>{webhook.url}</code>
      </Fact>
      <Fact term="Status">
        <ActiveBadge active={webhook.is_active} />
      </Fact>
      <Fact term="Consecutive failures">{webhook.failure_count}</Fact>
      <Fact term="Events">
        <EventTypesList types={webhook.event_types} />
      </Fact>
      <Fact term="Created">
        <Time at={webhook.created_at} />
      </Fact>
    </dl>
  );
}

function Settings({ webhook }: { webhook: Webhook }) {
  const queryClient = useQueryClient();
  const [values, setValues] = useState<EndpointValues>({
    url: webhook.url,
    description: webhook.description,
    event_types: webhook.event_types as EventType[],
  });
  const [active, setActive] = useState(webhook.is_active);
  const [tried, setTried] = useState(false);
  const save = useMutation({
    mutationFn: (body: Parameters<typeof api.webhooks.update>[1]) => api.webhooks.update(webhook.id, body),
    onSuccess: (updated) => {
      queryClient.setQueryData(['webhooks', webhook.id], updated);
      void queryClient.invalidateQueries({ queryKey: ['webhooks'], exact: true });
    },
  });
  const problem = formProblem(save.error, ['url', 'description', 'event_types', 'is_active']);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTried(true);
    const { event_types } = values;
    if (event_types === null) return;
    save.mutate({ ...values, event_types, is_active: active });
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <EndpointFields values={values} onChange={setValues} errors={problem.fields} tried={tried} />
      <CheckboxField
        label="Active: send events to this endpoint"
        checked={active}
        onChange={(event) => setActive(event.target.checked)}
      />
      <ErrorNotice error={problem.notice} />
      <p aria-live="polite" className="muted">
        {save.isSuccess && 'Saved.'}
      </p>
      <FormActions label="Save webhook" pending={save.isPending} />
    </form>
  );
}

function Deliveries({ id }: { id: string }) {
  const queryClient = useQueryClient();
  const page = usePaging(DELIVERY_LIMITS);
  const deliveries = useQuery({
    queryKey: ['webhooks', id, 'deliveries', page.offset, page.limit],
    queryFn: () => api.webhooks.deliveries(id, { limit: page.limit, offset: page.offset }),
  });
  return (
    <section aria-labelledby="deliveries-title">
      <div className="section-header">
        <h2 id="deliveries-title">Deliveries</h2>
        <button
          type="button"
          onClick={() => queryClient.invalidateQueries({ queryKey: ['webhooks', id, 'deliveries'] })}
          disabled={deliveries.isFetching}
        >
          Refresh deliveries
        </button>
      </div>
      <p className="muted">Every attempt of the last 7 days, newest first, test events included.</p>
      <Loaded query={deliveries}>
        {(list) => (
          <>
            {list.length === 0 ? (
              <p>No deliveries {page.offset > 0 ? 'on this page' : 'yet'}.</p>
            ) : (
              <Table
                headings={[
                  'Event',
                  'Status',
                  { label: 'Response', num: true },
                  { label: 'Duration', num: true },
                  { label: 'Attempt', num: true },
                  'Time',
                ]}
              >
                {list.map((delivery) => {
                  const status = delivery.response_status;
                  const ok = status !== null && status >= 200 && status < 300;
                  return (
                    <tr key={delivery.id}>
                      <td>
                        <code>{delivery.event_type}</code>
                      </td>
                      <td>
                        <span className={`badge ${ok ? 'ok' : 'failed'}`}>{ok ? 'delivered' : 'failed'}</span>
                      </td>
                      <td className="num">{status ?? 'no response'}</td>
                      <td className="num">{delivery.duration_ms} ms</td>
                      <td className="num">{delivery.attempt}</td>
                      <td className="nowrap">
                        <Time at={delivery.delivered_at} />
                      </td>
                    </tr>
                  );
                })}
              </Table>
            )}
            <Pager label="Deliveries" {...page} shown={list.length} limits={DELIVERY_LIMITS} onChange={page.setPage} />
          </>
        )}
      </Loaded>
    </section>
  );
}
