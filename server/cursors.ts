/**
 * Cursors of list pages (`Next-Cursor`, `?cursor=`): opaque to clients, base64url of the JSON `[list, ...key]`,
 * where the key is the last item's position in the list's order. The next page starts strictly after it
 * (keyset paging), so items that existed throughout an iteration are each seen once, whatever others insert
 * or delete meanwhile. A cursor names its list: one sent to another list is a 400.
 */
import { badRequest } from './errors';

export type CursorKey = readonly (string | number)[];

export const encodeCursor = (list: string, key: CursorKey) =>
  Buffer.from(JSON.stringify([list, ...key])).toString('base64url');

/** The key of a cursor of `list` with `arity` parts, each a string or a number; else a 400 naming `cursor`. */
export function decodeCursor(list: string, cursor: string, arity: number): (string | number)[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  const valid =
    Array.isArray(parsed) &&
    parsed[0] === list &&
    parsed.length === arity + 1 &&
    parsed.slice(1).every((part) => typeof part === 'string' || typeof part === 'number');
  if (!valid) throw badRequest(`cursor: not a cursor of ${list}; send the Next-Cursor header of a page of it`);
  return (parsed as (string | number)[]).slice(1);
}

/** A cursor and an offset name two ways to the same page: one of them. */
export function assertOneWay(cursor: string | undefined, offset: number) {
  if (cursor !== undefined && offset !== 0)
    throw badRequest('offset: not with cursor (the cursor says where the page starts)');
}

/**
 * Whether a cursor's part is a time as PostgreSQL writes a timestamptz (`2026-11-27 12:03:49.856123+00`), a
 * real date and time: anything else would fail the statement's cast (a 500), not the request's cursor.
 */
export function isPostgresTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)(\.\d{1,6})?[+-]\d\d(:\d\d){0,2}$/.exec(value);
  if (!m) return false;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const at = new Date(Date.UTC(y, mo - 1, d, h, mi, se));
  return (
    y >= 1 &&
    at.getUTCFullYear() === y &&
    at.getUTCMonth() === mo - 1 &&
    at.getUTCDate() === d &&
    at.getUTCHours() === h &&
    at.getUTCMinutes() === mi &&
    at.getUTCSeconds() === se
  );
}
