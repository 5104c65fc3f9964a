import { duplicate, HttpError, isUniqueViolation, notFound } from '../../errors';
import { assertVersion } from '../../versions';

export function orNotFound<T>(row: T | undefined | null, resource: string): T {
  if (row === undefined || row === null) throw notFound(resource);
  return row;
}

/** Runs an insert or update, turning a unique violation into a 400 `duplicate` with this message. */
export async function uniqueOr<T>(action: () => Promise<T>, message: string): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicate(message);
    throw error;
  }
}

/** Keeps only the keys whose value was given, so a PATCH changes just those columns. */
export function given<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** What became of one row of an import: its id when created, else why not. */
export type RowOutcome = { status: 'created'; id: string } | { status: 'skipped' | 'error'; error: string };

/** A row's value, or the error outcome for the 4xx its computation throws (any other error propagates). */
export function orRowError<T>(compute: () => T): T | RowOutcome {
  try {
    return compute();
  } catch (error) {
    if (error instanceof HttpError) return { status: 'error', error: error.message };
    throw error;
  }
}

/** A row's outcome, or the error outcome for the 4xx its (asynchronous) computation throws. */
export async function orRowErrorAsync(compute: () => Promise<RowOutcome>): Promise<RowOutcome> {
  try {
    return await compute();
  } catch (error) {
    if (error instanceof HttpError) return { status: 'error', error: error.message };
    throw error;
  }
}

export const isRowOutcome = (value: unknown): value is RowOutcome =>
  typeof value === 'object' && value !== null && 'status' in value && 'error' in value;

/**
 * A row read with its lock: found (else a 404 naming `resource`) and still at the version an `If-Match` names
 * (else a 412 with the current one; server/versions.ts), compared with its representation as its GET answers it.
 */
export async function atVersion<T>(
  row: T | undefined | null,
  resource: string,
  ifMatch: string | undefined,
  represent: (row: T) => unknown,
): Promise<T> {
  const found = orNotFound(row, resource);
  await assertVersion(ifMatch, () => represent(found), resource);
  return found;
}
