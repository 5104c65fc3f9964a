import type { AppRouter } from '@ts-rest/core';
import { initServer } from '@ts-rest/express';
import { contract, type RouteMeta } from '../contract';
import { type ContractRoute, contractRoutes } from '../contract/routes';
import type { ServerContext } from './context';
import { notImplemented } from './errors';
import { activityRouter } from './modules/activity/activity.router';
import { addressesRouter } from './modules/addresses/addresses.router';
import { apiKeysRouter } from './modules/api-keys/api-keys.router';
import { authRouter } from './modules/auth/auth.router';
import { billingRouter } from './modules/billing/billing.router';
import { exportsRouter } from './modules/exports/exports.router';
import { foldersRouter } from './modules/folders/folders.router';
import { importsRouter } from './modules/imports/imports.router';
import { locationsRouter } from './modules/locations/locations.router';
import { searchRouter } from './modules/search/search.router';
import { subnetsRouter } from './modules/subnets/subnets.router';
import { acceptInvitation, teamRouter } from './modules/team/team.router';
import { toolsRouter } from './modules/tools/tools.router';
import { vlansRouter } from './modules/vlans/vlans.router';
import { vrfsRouter } from './modules/vrfs/vrfs.router';
import { webhooksRouter } from './modules/webhooks/webhooks.router';

const s = initServer();

/** Network tools not built yet: each answers 501 `not_implemented`. */
const NOT_BUILT = [
  'lookupDns',
  'checkDnsPropagation',
  'lookupReverseDns',
  'lookupWhois',
  'checkSslCertificate',
  'checkSpfRecord',
  'checkDmarcRecord',
  'checkIpBlacklist',
  'lookupAsn',
  'checkHttp2Support',
  'pingHost',
  'scanPorts',
  'traceRoute',
  'getMyIp',
  'inspectHttpHeaders',
] as const satisfies (keyof typeof contract.tools)[];

/** A 501 for each of these routes: before validation (a middleware answers it). */
function notBuilt<T extends AppRouter, K extends keyof T & string>(_router: T, ids: readonly K[]) {
  const answer501 = (_req: unknown, _res: unknown, next: (error: unknown) => void) => next(notImplemented());
  const route = {
    middleware: [answer501],
    handler: async (): Promise<never> => {
      throw notImplemented();
    },
  };
  return Object.fromEntries(ids.map((id) => [id, route])) as { [P in K]: typeof route };
}

/** The whole contract's handlers, checked by the compiler against it: a missing or misspelt handler fails to build. */
export function buildRouter(context: ServerContext) {
  assertAccessDeclared();
  return s.router(contract, {
    auth: { ...authRouter(context), acceptInvitation: acceptInvitation(context) },
    folders: foldersRouter(context),
    subnets: subnetsRouter(context),
    addresses: addressesRouter(context),
    vlans: vlansRouter(context),
    vrfs: vrfsRouter(context),
    locations: locationsRouter(context),
    webhooks: webhooksRouter(context),
    apiKeys: apiKeysRouter(context),
    team: teamRouter(context),
    activity: activityRouter(context),
    billing: billingRouter(context),
    imports: importsRouter(context),
    exports: exportsRouter(context),
    search: searchRouter(context),
    tools: { ...toolsRouter(context), ...notBuilt(contract.tools, NOT_BUILT) },
  });
}

/** Access is declared once per route, in the contract's metadata; a route without it must not be served. */
function assertAccessDeclared() {
  const levels = ['public', 'viewer', 'editor', 'admin'];
  for (const { id, route } of contractRoutes) {
    const meta = route.metadata as Partial<RouteMeta> | undefined;
    if (!meta || !levels.includes(meta.access as string) || (meta.access !== 'public' && !meta.scope)) {
      throw new Error(`Route ${id} does not declare its access (public or a role, and a key scope) in the contract`);
    }
  }
}

/** Each route of the contract with whether it is built. */
export function listRoutes(): (ContractRoute & { implemented: boolean })[] {
  const notBuilt: readonly string[] = NOT_BUILT;
  return contractRoutes.map((r) => ({ ...r, implemented: !notBuilt.includes(r.id) }));
}
