/**
 * Plan and billing: the plan with its usage against each limit, the organisation's name, the plans to choose
 * from with an upgrade through Stripe Checkout (after the checkout cooldown), and Stripe's billing portal.
 * Stripe sends the browser back here: `?checkout=success` (the plan changes once Stripe's signed event
 * arrives, so the plan is asked again a few times) or `?checkout=cancelled`.
 */
import { type QueryState, type UseQueryResult, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import type { CheckoutCooldownError } from '../../../typescript/src/index';
import { ApiError, api } from '../api';
import { ErrorNotice, problemOf } from '../components/errors';
import { TextField } from '../components/form';
import { fromWhen, waitInWords } from '../components/time';
import { Loaded, Page, UsageBar } from '../components/ui';
import { useLocation } from '../router';
import { useCan } from '../session';
import './billing.css';

type BillingPlan = Awaited<ReturnType<typeof api.billing.plan>>;
type PaidPlan = 'pro' | 'teams';
type Figure = number | string | null;

/** How often, and how many times, the success landing asks for the plan while Stripe's event is on its way. */
const POLL_MS = 2_000;
const POLLS = 10;
/** The start page shows the same answer. */
const PLAN_KEY = ['billing-plan'];

/**
 * What each plan holds, to choose from. The API answers only the organisation's own limits, so the figures
 * are written here; test/browser/organisation-billing.test.ts checks them against the server's plan limits.
 * null: unlimited (fair use applies).
 */
const PLAN_FIGURES: [label: string, free: Figure, pro: Figure, teams: Figure][] = [
  ['Users', 1, 2, 10],
  ['Folders', 5, null, null],
  ['Subnets', 100, null, null],
  ['IP addresses', 1500, 5000, 10000],
  ['VLANs', 10, null, null],
  ['VRFs', 5, null, null],
  ['Locations', 5, null, null],
  ['API keys', 5, 100, 100],
  ['Webhooks', 2, 10, 25],
  ['Requests per minute, per user', 600, 3000, 3000],
  ['Days of activity history', 7, 30, 90],
  ['API keys may write', 'no (read-only)', 'yes', 'yes'],
];
const PLAN_COLUMNS = ['free', 'pro', 'teams'] as const;

export const planName = (plan: string) => plan.charAt(0).toUpperCase() + plan.slice(1);

export function BillingPage(_props: Record<string, string>) {
  const landing = useLocation().searchParams.get('checkout');
  const plan = useQuery({
    queryKey: PLAN_KEY,
    queryFn: () => api.billing.plan(),
    refetchInterval: (query) => (stillPolling(landing, query.state) ? POLL_MS : false),
  });
  return (
    <Page title="Plan and billing">
      {landing === 'success' && <CheckoutSucceeded plan={plan} />}
      {landing === 'cancelled' && (
        <div className="notice info" role="status">
          <strong>Checkout cancelled</strong>
          <p>Nothing was charged, and your plan is unchanged.</p>
        </div>
      )}
      <Loaded query={plan}>
        {(data) => (
          <>
            <div className="grid two">
              <section className="card" aria-labelledby="usage-title">
                <h2 id="usage-title">Usage on the {planName(data.plan)} plan</h2>
                <UsageBar label="Folders" used={data.usage.folders} total={data.limits.folders} />
                <UsageBar label="Subnets" used={data.usage.subnets} total={data.limits.subnets} />
                <UsageBar label="IP addresses" used={data.usage.addresses} total={data.limits.addresses} />
                <p className="muted small">Unlimited entries remain subject to fair use.</p>
              </section>
              <OrganisationName name={data.org_name} />
            </div>
            <Plans data={data} />
          </>
        )}
      </Loaded>
    </Page>
  );
}

/** Whether the success landing still asks for the plan: Stripe's event may not have arrived yet. */
const stillPolling = (landing: string | null, state: QueryState<BillingPlan> | undefined) =>
  landing === 'success' && state?.data?.plan === 'free' && state.dataUpdateCount < POLLS;

/** Back from a paid checkout: the plan once Stripe has confirmed it, else that it is coming. */
function CheckoutSucceeded({ plan }: { plan: UseQueryResult<BillingPlan> }) {
  const queryClient = useQueryClient();
  const current = plan.data?.plan;
  const paid = current !== undefined && current !== 'free';
  useEffect(() => {
    // The start page and the account page show the plan from the session's answer.
    if (paid) void queryClient.invalidateQueries({ queryKey: ['me'] });
  }, [paid, queryClient]);
  if (paid) {
    return (
      <div className="notice success" role="status">
        <strong>Payment received: you are on the {planName(current)} plan</strong>
        <p>Its limits apply from now on.</p>
      </div>
    );
  }
  const waiting = plan.isPending || stillPolling('success', queryClient.getQueryState(PLAN_KEY));
  return (
    <div className="notice success" role="status">
      <strong>Payment received</strong>
      <p>
        Your plan changes as soon as Stripe confirms the payment, usually within seconds.{' '}
        {waiting ? 'Checking…' : 'Stripe has not confirmed it yet: reload this page in a minute to see your new plan.'}
      </p>
    </div>
  );
}

/** The organisation's name; admins rename it. */
function OrganisationName({ name }: { name: string }) {
  const admin = useCan('admin');
  const queryClient = useQueryClient();
  const [value, setValue] = useState(name);
  const rename = useMutation({
    mutationFn: (next: string) => api.billing.updateOrganizationName({ name: next }),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['me'] });
      await queryClient.invalidateQueries({ queryKey: PLAN_KEY });
    },
  });
  const fieldError = rename.error ? problemOf(rename.error).fields.name : undefined;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate(value);
  };
  return (
    <section className="card" aria-labelledby="org-title">
      <h2 id="org-title">Organisation</h2>
      {admin ? (
        <form onSubmit={submit} noValidate>
          <TextField
            label="Organisation name"
            name="name"
            value={value}
            onChange={(event) => setValue(event.target.value)}
            hint="1 to 100 characters."
            error={fieldError}
            required
          />
          <div className="form-actions">
            <button type="submit" disabled={rename.isPending}>
              Rename organisation
            </button>
          </div>
          {!fieldError && <ErrorNotice error={rename.error} />}
          {rename.isSuccess && (
            <p className="notice success" role="status">
              Renamed to {rename.data.name}.
            </p>
          )}
        </form>
      ) : (
        <p>
          <strong>{name}</strong>
          <br />
          <span className="muted small">Only an admin can rename the organisation.</span>
        </p>
      )}
    </section>
  );
}

/** The plans side by side, with the upgrade (free plan) or the billing portal (a billing account). */
function Plans({ data }: { data: BillingPlan }) {
  const admin = useCan('admin');
  return (
    <section className="card" aria-labelledby="plans-title">
      <h2 id="plans-title">Plans</h2>
      <div className="table-wrap">
        <table className="plans">
          <caption className="sr-only">What each plan holds (unlimited: subject to fair use)</caption>
          <thead>
            <tr>
              <th scope="col">Limit</th>
              {PLAN_COLUMNS.map((column) => (
                <th scope="col" key={column} className={column === data.plan ? 'current' : undefined}>
                  {planName(column)}
                  {column === data.plan && <span className="your-plan"> (your plan)</span>}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {PLAN_FIGURES.map(([label, ...figures]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {figures.map((figure, i) => (
                  <td key={PLAN_COLUMNS[i]} className={PLAN_COLUMNS[i] === data.plan ? 'current' : undefined}>
                    {figure === null ? 'unlimited' : figure.toLocaleString()}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="muted small">
        Enterprise: custom limits and users without a cap; contact sales.
        {data.plan === 'enterprise' && ' Your organisation is on the enterprise plan.'}
      </p>
      {data.plan === 'free' ? (
        <Upgrade data={data} admin={admin} />
      ) : (
        <p>
          You are on the {planName(data.plan)} plan.{' '}
          {data.has_billing
            ? 'Change or cancel it in the billing portal.'
            : 'It was set up without a billing account: contact support to change it.'}
        </p>
      )}
      {data.has_billing && (admin ? <Portal /> : <p className="muted">Only an admin can open the billing portal.</p>)}
    </section>
  );
}

/** Upgrading from free: checkout on Stripe's page, once the cooldown after the organisation's creation is over. */
function Upgrade({ data, admin }: { data: BillingPlan; admin: boolean }) {
  const checkout = useMutation({
    mutationFn: (plan: PaidPlan) => api.billing.checkout({ plan }),
    onSuccess: ({ url }) => window.location.assign(url),
  });
  const cooldown = cooldownOf(checkout.error);
  return (
    <>
      {data.checkout_available_at && (
        <div className="notice info" role="note">
          <strong>Checkout opens {waitInWords(data.checkout_cooldown_seconds)} after an organisation is created</strong>
          <p>For this organisation: available from {fromWhen(data.checkout_available_at)}.</p>
        </div>
      )}
      {admin ? (
        <>
          <p>You pay on Stripe’s page; the plan changes as soon as Stripe confirms the payment.</p>
          <div className="form-actions">
            <button
              type="button"
              className="primary"
              disabled={checkout.isPending}
              onClick={() => checkout.mutate('pro')}
            >
              Upgrade to Pro
            </button>
            <button type="button" disabled={checkout.isPending} onClick={() => checkout.mutate('teams')}>
              Upgrade to Teams
            </button>
          </div>
          {checkout.isPending && (
            <p className="muted" role="status">
              Opening Stripe Checkout…
            </p>
          )}
          {cooldown ? (
            <CooldownNotice cooldown={cooldown.body} seconds={data.checkout_cooldown_seconds} error={cooldown.error} />
          ) : (
            <ErrorNotice error={checkout.error} />
          )}
        </>
      ) : (
        <p className="muted">Only an admin of the organisation can upgrade the plan.</p>
      )}
    </>
  );
}

/** A 403 `checkout_cooldown` and its body, or null for any other outcome. */
function cooldownOf(error: unknown): { error: ApiError; body: CheckoutCooldownError } | null {
  if (!(error instanceof ApiError) || error.code !== 'checkout_cooldown') return null;
  const body = error.body as Partial<CheckoutCooldownError>;
  if (typeof body.available_at !== 'string' || typeof body.retry_after_seconds !== 'number') return null;
  return { error, body: body as CheckoutCooldownError };
}

/** The cooldown refusal with its time as the API gave it: `available from 10:42 (in 7 min)`. */
function CooldownNotice({
  cooldown,
  seconds,
  error,
}: {
  cooldown: CheckoutCooldownError;
  seconds: number;
  error: ApiError;
}) {
  return (
    <div className="notice warn" role="alert">
      <strong>Checkout is not open yet</strong>
      <p>
        Checkout is available from {fromWhen(cooldown.available_at, cooldown.retry_after_seconds)},{' '}
        {waitInWords(seconds)} after the organisation was created.
      </p>
      {error.requestId && <p className="muted small">Request id {error.requestId}</p>}
    </div>
  );
}

/** Stripe's billing portal: invoices, payment method, changing or cancelling the plan. */
function Portal() {
  const portal = useMutation({
    mutationFn: () => api.billing.portal(),
    onSuccess: ({ url }) => window.location.assign(url),
  });
  return (
    <>
      <p>Invoices, the payment method, and changing or cancelling the plan are on Stripe’s billing portal.</p>
      <div className="form-actions">
        <button type="button" disabled={portal.isPending} onClick={() => portal.mutate()}>
          Open the billing portal
        </button>
      </div>
      <ErrorNotice error={portal.error} />
    </>
  );
}
