/** The start page: where a new person goes from here (a key, a first subnet, an allocation), and a welcome. */
import { useQuery } from '@tanstack/react-query';
import { api } from '../api';
import { Loaded, Page, UsageBar } from '../components/ui';
import { Link, useLocation } from '../router';
import { useSession } from '../session';

export function HomePage() {
  const { user, organization, role } = useSession();
  const joined = useLocation().searchParams.get('invitation') === 'accepted';
  const plan = useQuery({ queryKey: ['billing-plan'], queryFn: () => api.billing.plan() });
  return (
    <Page title={organization.name}>
      {joined && (
        <div className="notice success" role="status">
          <strong>Welcome to {organization.name}</strong>
          <p>
            You joined as {role}, signed in as {user.email}.
          </p>
        </div>
      )}
      <div className="grid two">
        <section className="card" aria-labelledby="start-title">
          <h2 id="start-title">Getting started</h2>
          <ol className="steps">
            <li>
              <Link to="/subnets">Plan a subnet</Link>: add a range such as <code>10.0.0.0/16</code>; smaller ones nest
              inside it by themselves.
            </li>
            <li>
              Open the subnet and <strong>allocate the next free address</strong> or block.
            </li>
            <li>
              <Link to="/developers/api-keys">Create an API key</Link> for your scripts and CI (
              <code>Authorization: Bearer svc_…</code>).
            </li>
            <li>
              Read the <a href="/docs">API reference</a>, or get events as they happen with{' '}
              <Link to="/developers/webhooks">webhooks</Link>.
            </li>
          </ol>
        </section>
        <section className="card" aria-labelledby="usage-title">
          <h2 id="usage-title">Usage on the {organization.plan} plan</h2>
          <Loaded query={plan}>
            {(data) => (
              <>
                <UsageBar label="Subnets" used={data.usage.subnets} total={data.limits.subnets} />
                <UsageBar label="IP addresses" used={data.usage.addresses} total={data.limits.addresses} />
                <UsageBar label="Folders" used={data.usage.folders} total={data.limits.folders} />
                <p>
                  <Link to="/billing">Plan and billing</Link>
                </p>
              </>
            )}
          </Loaded>
        </section>
      </div>
    </Page>
  );
}
