/**
 * The one row of a query that returns a row by construction: an `INSERT … RETURNING` of one row, an
 * aggregate such as `count(*)`. No row there is a bug, not bad input, so it throws a plain Error (a 500)
 * naming what was expected. A read of a row that may be missing returns `T | undefined` instead, and
 * its caller decides (`orNotFound` and the like).
 */
export function first<T>(rows: readonly T[], what: string): T {
  const [row] = rows;
  if (row === undefined) throw new Error(`Expected ${what}, but the query returned no row`);
  return row;
}
