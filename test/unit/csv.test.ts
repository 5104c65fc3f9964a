/** The CSV writer against a reader of RFC 4180: any values come back as written. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvLine } from '../../server/modules/shared/csv';
import { cellValue, parseCsv } from '../support/csv';

describe('csvLine', () => {
  it('reads back any values, whatever quotes, commas, line breaks and leading signs they hold', () => {
    const cell = fc.string({
      unit: fc.constantFrom('a', ',', '"', '\n', '\r', '=', '+', '-', '@', '\t', ' ', "'", 'é'),
    });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 }), (rows) => {
        const text = rows.map(csvLine).join('');
        expect(parseCsv(text).map((row) => row.map(cellValue))).toEqual(rows);
      }),
      { numRuns: 500 },
    );
  });

  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx', "'quoted"])('puts a quote before %j', (value) => {
    expect(parseCsv(csvLine([value]))[0]?.[0]).toBe(`'${value}`);
  });

  it('quotes a field with a comma, a quote or a line break and doubles its quotes', () => {
    expect(csvLine(['a,b', 'say "hi"', 'two\nlines', 'plain'])).toBe('"a,b","say ""hi""","two\nlines",plain\r\n');
  });

  it('writes null and undefined as empty cells and booleans and numbers as text', () => {
    expect(csvLine([null, undefined, true, 12])).toBe(',,true,12\r\n');
  });
});
