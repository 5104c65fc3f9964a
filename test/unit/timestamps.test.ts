/** The page's timestamp conversion against the driver's own parser, over random instants and forms. */
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { isoTimestamp } from '../../server/db/timestamps';

const driver = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ);
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** PostgreSQL's text form of an instant with `micros` past its second, at an offset of `offsetMinutes`. */
function pgText(ms: number, micros: number, offsetMinutes: number): string {
  const local = new Date(ms + offsetMinutes * 60_000);
  const date = `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}`;
  const time = `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`;
  // PostgreSQL drops trailing zeros of the fraction, and the fraction itself when it is zero.
  const fraction = micros === 0 ? '' : `.${pad(micros, 6).replace(/0+$/, '')}`;
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const offset = `${sign}${pad(Math.floor(abs / 60))}${abs % 60 ? `:${pad(abs % 60)}` : ''}`;
  return `${date} ${time}${fraction}${offset}`;
}

describe('isoTimestamp', () => {
  it('gives what the driver parses, as ISO 8601 with milliseconds, for 5,000 random instants', () => {
    for (let i = 0; i < 5000; i++) {
      const seconds = Math.floor(Math.random() * 4102444800); // 1970 … 2100
      const micros = [0, 100_000, 120_000, 123_000, 123_400, 1, 999_999][i % 7] ?? 0;
      const offset = i % 3 === 0 ? 0 : ([330, -480, 60, -30][i % 4] ?? 0);
      const text = pgText(seconds * 1000, micros, offset);
      expect(isoTimestamp(text), text).toBe((driver(text) as Date).toISOString());
    }
  });

  it('truncates microseconds to milliseconds, as a Date does', () => {
    expect(isoTimestamp('2026-11-24 10:49:27.123999+00')).toBe('2026-11-24T10:49:27.123Z');
    expect(isoTimestamp('2026-11-24 10:49:27+00')).toBe('2026-11-24T10:49:27.000Z');
    expect(isoTimestamp('2026-11-24 10:49:27.5+00')).toBe('2026-11-24T10:49:27.500Z');
  });
});
