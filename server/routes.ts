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
import { vlansRouter } from './modules/vlans/vlans.router';
import { vrfsRouter } from './modules/vrfs/vrfs.router';
import { webhooksRouter } from './modules/webhooks/webhooks.router';

const s = initServer();

/** Parts of the contract not built yet: every route of them answers 501 `not_implemented`. */
const NOT_BUILT = ['tools'] as const satisfies (keyof typeof contract)[];

/** A 501 for each route of a router: after authentication, before validation (a middleware answers it). */
function notBuilt<T extends AppRouter>(router: T) {
  const answer501 = (_req: unknown, _res: unknown, next: (error: unknown) => void) => next(notImplemented());
  const route = {
    middleware: [answer501],
    handler: async (): Promise<never> => {
      throw notImplemented();
    },
  };
  return Object.fromEntries(Object.keys(router).map((id) => [id, route])) as { [K in keyof T]: typeof route };
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
    tools: notBuilt(contract.tools),
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
  const notBuiltResources: readonly string[] = NOT_BUILT;
  return contractRoutes.map((r) => ({ ...r, implemented: !notBuiltResources.includes(r.resource) }));
}
