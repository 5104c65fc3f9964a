/** Every route of the contract, walked once: the server, its middleware and the tests read this list. */
import { type AppRoute, type AppRouter, isAppRoute } from '@ts-rest/core';
import { contract } from './index';

/** The keys of every route of a router, at any depth: the contract's operationIds. */
type RouteIds<T> = { [K in keyof T]: T[K] extends AppRoute ? K : RouteIds<T[K]> }[keyof T];
export type OperationId = RouteIds<typeof contract> & string;

/** Every route of a router, at any depth, as `[operationId, route]` pairs (a union). */
type RouteEntries<T> = { [K in keyof T]: T[K] extends AppRoute ? [K, T[K]] : RouteEntries<T[K]> }[keyof T];
/** The route an operationId names, as the contract declares it (its responses, by status, keep their schemas). */
export type RouteOf<Id extends OperationId> = Extract<RouteEntries<typeof contract>, [Id, AppRoute]>[1];

export interface ContractRoute {
  /** The route key, which is its operationId. */
  id: OperationId;
  /** The top-level router it belongs to (`folders`, `billing` …). */
  resource: keyof typeof contract;
  route: AppRoute;
}

function walk(router: AppRouter, resource: keyof typeof contract, into: ContractRoute[]) {
  for (const [id, value] of Object.entries(router)) {
    if (isAppRoute(value)) into.push({ id: id as OperationId, resource, route: value });
    else walk(value as AppRouter, resource, into);
  }
}

export const contractRoutes: readonly ContractRoute[] = (() => {
  const routes: ContractRoute[] = [];
  for (const resource of Object.keys(contract) as (keyof typeof contract)[]) walk(contract[resource], resource, routes);
  return routes;
})();

/** operationId of each route object, for middleware that sees only the matched route. */
export const operationIdOf = new Map(contractRoutes.map((r) => [r.route, r.id]));
