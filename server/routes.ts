import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { contract } from '../contract';
import type { ServerContext } from './context';
import { notImplemented } from './http/errors';
import { addressesRouter } from './modules/addresses/addresses.router';
import { foldersRouter } from './modules/folders/folders.router';
import { locationsRouter } from './modules/locations/locations.router';
import { subnetsRouter } from './modules/subnets/subnets.router';
import { vlansRouter } from './modules/vlans/vlans.router';
import { vrfsRouter } from './modules/vrfs/vrfs.router';

/** Answers 501 for a route of the contract that is not built yet: after authentication, before validation. */
const notImplementedRoute = {
  middleware: [(_req: unknown, _res: unknown, next: (error: unknown) => void) => next(notImplemented())],
  handler: async (): Promise<never> => {
    throw notImplemented();
  },
};

type Handler = ((...args: any[]) => unknown) | typeof notImplementedRoute;
type Handlers = { [key: string]: Handlers | Handler };

function implementedRouters({ db }: ServerContext): Handlers {
  return {
    folders: foldersRouter(db),
    subnets: subnetsRouter(db),
    addresses: addressesRouter(db),
    vlans: vlansRouter(db),
    vrfs: vrfsRouter(db),
    locations: locationsRouter(db),
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
  return complete(contract, implementedRouters(context));
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
