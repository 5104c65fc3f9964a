import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { AppRouteResponse, ResolveResponseType, ZodInputOrType } from '@ts-rest/core';
import { expect } from 'vitest';
import type { OperationId, RouteOf } from '../../contract/routes';
import type { ApiResponse } from './client';
import { responseSchema } from './routes';

export const OBSERVED_DIR = join(process.cwd(), '.test-artifacts', 'observed');
const file = join(OBSERVED_DIR, `${process.pid}.jsonl`);

/**
 * The statuses the contract declares for an operation. For a union of operations (`OperationId` itself when
 * the route is known only at run time, as in a loop over routes), those any of them declares.
 */
export type DeclaredStatus<Id extends OperationId> = Id extends OperationId
  ? keyof RouteOf<Id>['responses'] & number
  : never;

/**
 * The body the contract declares for an operation and status: the input type of its schema, as the JSON
 * received is what the schema accepted (`undefined` for a status without a body). For a union of operations,
 * the union of the bodies of those that declare the status (every error status answers `ApiError`).
 */
export type ResponseBody<Id extends OperationId, S extends number> = Id extends OperationId
  ? DeclaredBody<RouteOf<Id>['responses'], S>
  : never;
type DeclaredBody<R, S extends number> = S extends keyof R
  ? R[S] extends AppRouteResponse
    ? Exclude<ZodInputOrType<ResolveResponseType<R[S]>>, NodeJS.ReadableStream> // what a server streams arrives as text
    : never
  : never;

/**
 * The only way a status counts as observed: the status is asserted, and the body validated against the
 * contract's (strict) schema for that status. Answers the body, typed from the contract: a status the route
 * does not declare does not compile.
 */
export function expectStatus<Id extends OperationId, S extends DeclaredStatus<Id>>(
  response: ApiResponse<Id>,
  status: S,
): ResponseBody<Id, S> {
  const { operationId, route } = response;
  expect(response.status, `${operationId}: ${response.text.slice(0, 300)}`).toBe(status);
  const schema = responseSchema(route, status);
  if (schema === undefined) throw new Error(`${operationId} does not declare status ${status} in the contract`);
  if (schema === 'no-body') {
    expect(response.text, `${operationId} ${status} must have no body`).toBe('');
  } else {
    const result = schema.safeParse(response.body);
    if (!result.success) {
      throw new Error(
        `${operationId} ${status}: body does not match the contract: ${JSON.stringify(result.error.issues.slice(0, 3))}\n${response.text.slice(0, 500)}`,
      );
    }
  }
  mkdirSync(OBSERVED_DIR, { recursive: true });
  appendFileSync(file, `${JSON.stringify({ operationId, status })}\n`);
  return response.body as ResponseBody<Id, S>;
}

/**
 * Statuses that tests skipped on this machine (a system program is missing) would have observed: the status
 * coverage check lists them with the reason instead of failing. Nothing is excused without a reason.
 */
export function excuseStatuses(reason: string, statuses: Partial<Record<OperationId, number[]>>): void {
  if (!reason) return;
  mkdirSync(OBSERVED_DIR, { recursive: true });
  for (const [operationId, codes] of Object.entries(statuses)) {
    for (const status of codes ?? [])
      appendFileSync(file, `${JSON.stringify({ operationId, status, excused: reason })}\n`);
  }
}
