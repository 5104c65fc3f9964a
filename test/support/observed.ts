import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ApiResponse } from './client';
import { responseSchema } from './routes';

export const OBSERVED_DIR = join(process.cwd(), '.test-artifacts', 'observed');
const file = join(OBSERVED_DIR, `${process.pid}.jsonl`);

/**
 * The only way a status counts as observed: the status is asserted, and the body validated against the
 * contract's (strict) schema for that status. Answers the parsed body.
 */
export function expectStatus<T = any>(response: ApiResponse, status: number): T {
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
  return response.body as T;
}
