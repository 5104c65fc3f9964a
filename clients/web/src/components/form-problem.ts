import { problemOf } from './errors';

/**
 * An API error of a form, split for showing in place: the messages of the fields the API named (for the
 * controls' `error` prop), and the error itself for a notice when it names none of the form's `fields`.
 */
export function formProblem(error: unknown, fields: readonly string[]) {
  if (!error) return { fields: {} as Record<string, string>, notice: null };
  const named = problemOf(error).fields;
  return { fields: named, notice: fields.some((field) => field in named) ? null : error };
}
