import { assert } from 'vitest';

/**
 * `value`, failing the test (naming `what`) when it is undefined: for an element of a list or a match that
 * the test goes on to use. An assertion on the element itself reads it through `?.` instead.
 */
export function defined<T>(value: T | undefined, what: string): T {
  assert.isDefined(value, `expected ${what}`);
  return value;
}
