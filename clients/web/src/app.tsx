/**
 * The console: the sign-in page for anyone, and for a signed-in person the shell (navigation, who they are,
 * sign out) around the page their path names.
 */
import { type ComponentType, useEffect, useState } from 'react';
import { isSignedOut } from './api';
import { ErrorNotice } from './components/errors';
import { SearchBox } from './components/search-box';
import { Page } from './components/ui';
import { AccountPage } from './pages/account';
import { ActivityPage } from './pages/activity';
import { ApiKeysPage } from './pages/api-keys';
import { BillingPage } from './pages/billing';
import { FoldersPage } from './pages/folders';
import { HomePage } from './pages/home';
import { ImportExportPage } from './pages/import-export';
import { LocationsPage } from './pages/locations';
import { LoginPage } from './pages/login';
import { SearchPage } from './pages/search';
import { SubnetPage } from './pages/subnet';
import { SubnetsPage } from './pages/subnets';
import { TeamPage } from './pages/team';
import { VlansPage } from './pages/vlans';
import { VrfsPage } from './pages/vrfs';
import { WebhookPage } from './pages/webhook';
import { WebhooksPage } from './pages/webhooks';
import { Link, matchPath, navigate, useLocation } from './router';
import { SessionProvider, useMeQuery, useSession, useSignOut } from './session';

/** The signed-in pages by path; a page gets the path's parameters as props. */
const ROUTES: [string, ComponentType<Record<string, string>>][] = [
  ['/', HomePage],
  ['/subnets', SubnetsPage],
  ['/subnets/:id', SubnetPage],
  ['/folders', FoldersPage],
  ['/vlans', VlansPage],
  ['/vrfs', VrfsPage],
  ['/locations', LocationsPage],
  ['/search', SearchPage],
  ['/import-export', ImportExportPage],
  ['/developers/api-keys', ApiKeysPage],
  ['/developers/webhooks', WebhooksPage],
  ['/developers/webhooks/:id', WebhookPage],
  ['/developers/activity', ActivityPage],
  ['/billing', BillingPage],
  ['/team', TeamPage],
  ['/account', AccountPage],
];

const NAV: { heading: string; links: [string, string][] }[] = [
  {
    heading: 'Network',
    links: [
      ['/subnets', 'Subnets'],
      ['/folders', 'Folders'],
      ['/vlans', 'VLANs'],
      ['/vrfs', 'VRFs'],
      ['/locations', 'Locations'],
      ['/search', 'Search'],
      ['/import-export', 'Import and export'],
    ],
  },
  {
    heading: 'Developers',
    links: [
      ['/developers/api-keys', 'API keys'],
      ['/developers/webhooks', 'Webhooks'],
      ['/developers/activity', 'Activity'],
    ],
  },
  {
    heading: 'Organisation',
    links: [
      ['/billing', 'Plan and billing'],
      ['/team', 'Team'],
      ['/account', 'Your account'],
    ],
  },
];

export function App() {
  const location = useLocation();
  const me = useMeQuery();
  const signedOut = isSignedOut(me.error);

  useEffect(() => {
    if (signedOut && location.pathname !== '/login') navigate('/login', { replace: true });
  }, [signedOut, location.pathname]);

  if (location.pathname === '/login') return <LoginPage />;
  if (me.isPending || signedOut) return <p className="muted">Loading…</p>;
  if (me.error) return <ErrorNotice error={me.error} />;
  return (
    <SessionProvider me={me.data}>
      <Shell path={location.pathname} />
    </SessionProvider>
  );
}

function Shell({ path }: { path: string }) {
  // The small-screen menu is open for the page it was opened on: following a link closes it.
  const [menuOpenOn, setMenuOpenOn] = useState<string | null>(null);
  const menuOpen = menuOpenOn === path;
  let page = <NotFound />;
  for (const [pattern, Component] of ROUTES) {
    const params = matchPath(pattern, path);
    if (params) {
      page = <Component key={path} {...params} />;
      break;
    }
  }
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link to="/" className="brand">
          IPAM
        </Link>
        <SearchBox />
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="site-nav"
          onClick={() => setMenuOpenOn(menuOpen ? null : path)}
        >
          Menu
        </button>
        <Who />
      </header>
      <div className="body">
        <nav id="site-nav" aria-label="Console" className={menuOpen ? 'open' : undefined}>
          {NAV.map((group) => (
            <div key={group.heading} className="nav-group">
              <h2>{group.heading}</h2>
              <ul>
                {group.links.map(([to, label]) => (
                  <li key={to}>
                    <Link to={to} aria-current={path === to || path.startsWith(`${to}/`) ? 'page' : undefined}>
                      {label}
                    </Link>
                  </li>
                ))}
              </ul>
            </div>
          ))}
          <p className="nav-docs">
            <a href="/docs">API reference</a>
          </p>
        </nav>
        <main id="main">{page}</main>
      </div>
    </div>
  );
}

/** Who is signed in, in which organisation and role, and signing out. */
function Who() {
  const { user, organization, role } = useSession();
  const logout = useSignOut();
  return (
    <div className="who">
      <span>
        {user.email} · {organization.name} · <span className="role">{role}</span>
      </span>
      <button type="button" onClick={() => logout.mutate()} disabled={logout.isPending}>
        Sign out
      </button>
    </div>
  );
}

function NotFound() {
  return (
    <Page title="Page not found">
      <p>
        There is no page here. <Link to="/">Go to the start page</Link>.
      </p>
    </Page>
  );
}
