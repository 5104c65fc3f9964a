/** The console's CSV reader (RFC 4180) and the import rows it makes, against the exports' own CSV writer. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CsvError, parseCsv } from '../../clients/web/src/components/csv';
import { MAX_ROWS, rowsOfCsv } from '../../clients/web/src/components/import-rows';
import { csvLine } from '../../server/modules/shared/csv';

const fields = (text: string) => parseCsv(text).map((record) => record.fields);

describe('parseCsv', () => {
  it('reads back whatever the exports write: quotes, commas, line breaks, leading signs', () => {
    const cell = fc.string({ unit: fc.constantFrom('a', ',', '"', '\n', '\r', '\r\n', '=', '-', "'", ' ', 'é') });
    fc.assert(
      fc.property(fc.array(fc.array(cell, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 }), (rows) => {
        const read = fields(rows.map(csvLine).join(''));
        expect(read.map((row) => row.map((c) => c.replace(/^'/, '')))).toEqual(rows);
      }),
      { numRuns: 500 },
    );
  });

  it('reads LF and CRLF line ends, and a last line without one', () => {
    expect(fields('a,b\nc,d\r\ne,f')).toEqual([
      ['a', 'b'],
      ['c', 'd'],
      ['e', 'f'],
    ]);
  });

  it('reads doubled quotes as one, and commas and line breaks inside quotes as text', () => {
    expect(fields('"say ""hi""","a,b","two\r\nlines"\r\n')).toEqual([['say "hi"', 'a,b', 'two\r\nlines']]);
  });

  it('keeps empty fields, at the start, the middle and the end of a line', () => {
    expect(fields(',a,,\n')).toEqual([['', 'a', '', '']]);
  });

  it('ignores a byte-order mark', () => {
    expect(fields('\uFEFFnetwork\n10.0.0.0/24\n')).toEqual([['network'], ['10.0.0.0/24']]);
  });

  it('gives each record the line it starts on, past fields spanning lines', () => {
    expect(parseCsv('h\n"a\nb"\nc\n').map((record) => record.line)).toEqual([1, 2, 4]);
  });

  it('refuses a quoted field left open, naming the line it opens on', () => {
    expect(() => parseCsv('a\n"b,c\nd')).toThrow(
      new CsvError('Line 2: a quoted field is not closed (a quote is missing).'),
    );
  });

  it('refuses text after a closing quote', () => {
    expect(() => parseCsv('"a"b,c')).toThrow(/^Line 1: text follows a closing quote/);
  });
});

describe('rowsOfCsv', () => {
  it('makes import rows of a header and rows: numbers, booleans, JSON, and empty cells left out', () => {
    const csv = 'Network,vlan,is_pool,tracked,custom_fields,name\n10.0.0.0/24,120,true,no,"{""rack"": ""R1""}",\n';
    expect(rowsOfCsv('subnets', csv)).toEqual({
      what: 'subnets',
      lines: [2],
      rows: [{ network: '10.0.0.0/24', vlan: 120, is_pool: true, tracked: false, custom_fields: { rack: 'R1' } }],
    });
  });

  it('makes a list of tag names of a tags cell, as the export writes it', () => {
    const csv = csvLine(['network', 'tags']) + csvLine(['10.0.0.0/24', 'lab, edge']);
    expect(rowsOfCsv('subnets', csv)).toMatchObject({ rows: [{ network: '10.0.0.0/24', tags: ['lab', 'edge'] }] });
  });

  it('keeps an empty vrf, the global space, and takes the export’s leading quote off a cell', () => {
    const csv = csvLine(['ip', 'subnet', 'hostname', 'vrf']) + csvLine(['10.0.0.5', '10.0.0.0/24', '-web', '']);
    expect(rowsOfCsv('addresses', csv)).toMatchObject({
      rows: [{ ip: '10.0.0.5', subnet: '10.0.0.0/24', hostname: '-web', vrf: '' }],
    });
  });

  it('names a column the import does not take, and a required one missing', () => {
    expect(rowsOfCsv('addresses', 'ip,colour\n10.0.0.1,red\n')).toEqual({
      problems: ['Line 1: the addresses import has no column “colour”.', 'The header has no subnet column.'],
    });
  });

  it('names the line and column of a value of the wrong kind, and a line with too many fields', () => {
    expect(rowsOfCsv('subnets', 'network,vlan,is_pool\n10.0.0.0/24,ten,maybe\n10.0.1.0/24,1,true,x\n')).toEqual({
      problems: [
        'Line 2, vlan: “ten” is not a whole number.',
        'Line 2, is_pool: “maybe” is not true or false.',
        'Line 3 has 4 fields where the header has 3.',
      ],
    });
  });

  it(`takes ${MAX_ROWS} rows and refuses one more`, () => {
    const csv = (n: number) => `network\n${'10.0.0.0/24\n'.repeat(n)}`;
    expect(rowsOfCsv('subnets', csv(MAX_ROWS))).toMatchObject({ lines: expect.any(Array) });
    expect(rowsOfCsv('subnets', csv(MAX_ROWS + 1))).toEqual({
      problems: ['There are 1,001 rows: an import takes at most 1,000. Split the file and import each part.'],
    });
  });

  it('skips blank lines and says when there is nothing under the header', () => {
    expect(rowsOfCsv('subnets', 'network\n\n\n')).toEqual({ problems: ['There are no rows under the header.'] });
  });
});
