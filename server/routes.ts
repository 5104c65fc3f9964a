import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { contract, type RouteMeta } from '../contract';
import type { ServerContext } from './context';
import { notImplemented } from './errors';
import { activityRouter } from './modules/activity/activity.router';
import { addressesRouter } from './modules/addresses/addresses.router';
import { apiKeysRouter } from './modules/api-keys/api-keys.router';
import { authRouter } from './modules/auth/auth.router';
import { foldersRouter } from './modules/folders/folders.router';
import { locationsRouter } from './modules/locations/locations.router';
import { subnetsRouter } from './modules/subnets/subnets.router';
import { acceptInvitation, teamRouter } from './modules/team/team.router';
import { vlansRouter } from './modules/vlans/vlans.router';
import { vrfsRouter } from './modules/vrfs/vrfs.router';
import { webhooksRouter } from './modules/webhooks/webhooks.router';

/** Answers 501 for a route of the contract that is not built yet: after authentication, before validation. */
const notImplementedRoute = {
  middleware: [(_req: unknown, _res: unknown, next: (error: unknown) => void) => next(notImplemented())],
  handler: async (): Promise<never> => {
    throw notImplemented();
  },
};

type Handler = ((...args: any[]) => unknown) | typeof notImplementedRoute;
type Handlers = { [key: string]: Handlers | Handler };

function implementedRouters(context: ServerContext): Handlers {
  const { db } = context;
  return {
    folders: foldersRouter(db),
    subnets: subnetsRouter(db),
    addresses: addressesRouter(db),
    vlans: vlansRouter(db),
    vrfs: vrfsRouter(db),
    locations: locationsRouter(db),
    apiKeys: apiKeysRouter(db),
    team: teamRouter(context),
    activity: activityRouter(context),
    webhooks: webhooksRouter(context),
    auth: { ...authRouter(context), acceptInvitation: acceptInvitation(context) },
  } as unknown as Handlers;
}

/** Every route of the contract, with the built handlers and a 501 stub for the rest. */
function complete(router: AppRouter, handlers: Handlers | undefined): Handlers {
  const result: Handlers = {};
  for (const [key, value] of Object.entries(router)) {
    const given = handlers?.[key];
    if (isAppRoute(value)) result[key] = typeof given === 'function' ? given : notImplementedRoute;
    else result[key] = complete(value as AppRouter, given as Handlers | undefined);
  }
  return result;
}

export function buildRouter(context: ServerContext) {
  assertAccessDeclared();
  return complete(contract, implementedRouters(context));
}

/** Access is declared once per route, in the contract's metadata; a route without it must not be served. */
function assertAccessDeclared() {
  const levels = ['public', 'viewer', 'editor', 'admin'];
  for (const { id, route } of listRoutesOf(contract)) {
    const meta = route.metadata as Partial<RouteMeta> | undefined;
    if (!meta || !levels.includes(meta.access as string) || (meta.access !== 'public' && !meta.scope)) {
      throw new Error(`Route ${id} does not declare its access (public or a role, and a key scope) in the contract`);
    }
  }
}

function listRoutesOf(router: AppRouter): { id: string; route: AppRoute }[] {
  return Object.entries(router).flatMap(([id, value]) =>
    isAppRoute(value) ? [{ id, route: value }] : listRoutesOf(value as AppRouter),
  );
}

/** The router's own route list: each route of the contract with whether it is implemented. */
export function listRoutes(): { id: string; route: AppRoute; implemented: boolean }[] {
  const routes: { id: string; route: AppRoute; implemented: boolean }[] = [];
  const walk = (router: AppRouter, handlers: Handlers) => {
    for (const [key, value] of Object.entries(router)) {
      if (isAppRoute(value)) routes.push({ id: key, route: value, implemented: handlers[key] !== notImplementedRoute });
      else walk(value as AppRouter, handlers[key] as Handlers);
    }
  };
  // Routers only capture the context; building them touches nothing.
  walk(contract, buildRouter({} as ServerContext));
  return routes;
}
