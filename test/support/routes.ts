import { readFileSync } from 'node:fs';
import { type AppRoute, isAppRouteNoBody, isAppRouteOtherResponse } from '@ts-rest/core';
import type { ZodTypeAny } from 'zod';
import { contractRoutes } from '../../contract/routes';

/** Every route of the contract by operationId (the route key). */
export const routesById: Record<string, AppRoute> = Object.fromEntries(contractRoutes.map((r) => [r.id, r.route]));

export function route(operationId: string): AppRoute {
  const found = routesById[operationId];
  if (!found) throw new Error(`No route ${operationId} in the contract`);
  return found;
}

/** The response schema a route declares for a status: a zod schema, 'no-body', or undefined if not declared. */
export function responseSchema(r: AppRoute, status: number): ZodTypeAny | 'no-body' | undefined {
  const declared = (r.responses as Record<number, any>)[status];
  if (declared === undefined) return undefined;
  if (isAppRouteNoBody(declared)) return 'no-body';
  if (isAppRouteOtherResponse(declared)) return declared.body as ZodTypeAny;
  return declared as ZodTypeAny;
}

export const declaredStatuses = (r: AppRoute) => Object.keys(r.responses).map(Number);
export const hasJsonBody = (r: AppRoute) => r.method !== 'GET' && 'body' in r && !isAppRouteNoBody(r.body);
export const hasIdParam = (r: AppRoute) => r.path.includes('/:');

const document = JSON.parse(readFileSync('openapi/openapi.json', 'utf8'));
const operations = new Map<string, any>(
  Object.values<Record<string, any>>(document.paths).flatMap((item) =>
    Object.values(item).map((op) => [op.operationId, op]),
  ),
);

/** The request body example the OpenAPI document gives for an operation (lint checks it matches the schema). */
export function exampleBody(operationId: string): unknown {
  const content = operations.get(operationId)?.requestBody?.content?.['application/json'];
  if (!content) return undefined;
  const ref: string | undefined = content.schema?.$ref;
  const schema = ref ? document.components.schemas[ref.split('/').at(-1)!] : content.schema;
  return content.example ?? schema?.example;
}
