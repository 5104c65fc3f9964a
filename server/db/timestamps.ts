import pg from 'pg';

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ);

/**
 * PostgreSQL's text form of a timestamptz (`2026-11-24 10:49:27.123456+00` in a UTC session) as the API's
 * ISO 8601 with milliseconds (`2026-11-24T10:49:27.123Z`), by slicing: far cheaper than a Date parse for
 * the rows of a page. Other offsets and eras go through the driver's parser.
 */
export function isoTimestamp(text: string): string {
  const n = text.length;
  if (n < 22 || n > 29 || text[10] !== ' ' || !text.endsWith('+00')) {
    return (parseTimestamptz(text) as Date).toISOString();
  }
  const fraction = n > 22 ? text.slice(20, n - 3) : '';
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${`${fraction}000`.slice(0, 3)}Z`;
}
