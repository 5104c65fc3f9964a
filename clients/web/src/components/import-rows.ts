/** Import rows from CSV: the columns each import takes, and the text of each cell turned into its value. */
import type { ImportAddressRow, ImportSubnetRow } from '../../../typescript/src/index';
import { CsvError, parseCsv } from './csv';

export type SubnetRow = ImportSubnetRow;
export type AddressRow = ImportAddressRow;

/** How a column's text becomes a value of the row. */
type Kind = 'text' | 'integer' | 'boolean' | 'json' | 'names';

/** The columns each import takes (every field of its row, checked against the SDK's type), the first required. */
export const COLUMNS = {
  subnets: {
    network: 'text',
    name: 'text',
    description: 'text',
    folder: 'text',
    vlan: 'integer',
    vrf: 'text',
    location: 'text',
    gateway: 'text',
    dns_primary: 'text',
    dns_secondary: 'text',
    is_pool: 'boolean',
    scan_enabled: 'boolean',
    tracked: 'boolean',
    tags: 'names',
    custom_fields: 'json',
  } satisfies Record<keyof SubnetRow, Kind>,
  addresses: {
    ip: 'text',
    subnet: 'text',
    hostname: 'text',
    mac_address: 'text',
    description: 'text',
    status: 'text',
    owner: 'text',
    ptr_record: 'text',
    vrf: 'text',
    tags: 'names',
    custom_fields: 'json',
  } satisfies Record<keyof AddressRow, Kind>,
};
export type What = keyof typeof COLUMNS;
export const REQUIRED: Record<What, string[]> = { subnets: ['network'], addresses: ['ip', 'subnet'] };

/** The API's most rows per import: a longer file is refused here, before anything is sent. */
export const MAX_ROWS = 1000;

const BOOLEANS: Record<string, boolean> = { true: true, false: false, yes: true, no: false, '1': true, '0': false };

/** A cell's value: `problem` when its text cannot be one (said with the line and column). */
function cellValue(kind: Kind, text: string): { value: unknown } | { problem: string } {
  if (kind === 'integer')
    return /^\s*-?\d+\s*$/.test(text) ? { value: Number(text) } : { problem: `“${text}” is not a whole number` };
  if (kind === 'boolean') {
    const value = BOOLEANS[text.trim().toLowerCase()];
    return value === undefined ? { problem: `“${text}” is not true or false` } : { value };
  }
  if (kind === 'json') {
    try {
      const value: unknown = JSON.parse(text);
      if (value && typeof value === 'object' && !Array.isArray(value)) return { value };
    } catch {}
    return { problem: 'is not a JSON object such as {"rack": "R12"}' };
  }
  // Names separated by commas, as the export writes tags (no tag name holds a comma).
  if (kind === 'names') return { value: text.split(',').map((name) => name.trim()) };
  return { value: text };
}

/** The rows of an import, with the line of the text each starts on. */
export type Parsed = { lines: number[] } & (
  | { what: 'subnets'; rows: SubnetRow[] }
  | { what: 'addresses'; rows: AddressRow[] }
);

/**
 * Rows typed as the import's: they hold what the CSV says, each value of its column's kind, and the API checks
 * each row on its own (a wrong one is an error row of the answer, the others still import).
 */
const typed = <Row>(rows: Record<string, unknown>[]) => rows as unknown as Row[];

/**
 * The rows of an import from CSV text: a header row naming the columns (in any order and case), then one row
 * each. An empty cell is left out of the row, except `vrf`, where empty means the global space (as the export
 * writes it); one leading `'` is taken off a cell (the export puts it before a cell a spreadsheet would run).
 */
export function rowsOfCsv(what: What, text: string): Parsed | { problems: string[] } {
  const columns: Record<string, Kind> = COLUMNS[what];
  let records: ReturnType<typeof parseCsv>;
  try {
    records = parseCsv(text).filter((r) => r.fields.length > 1 || (r.fields[0] ?? '').trim() !== '');
  } catch (error) {
    if (error instanceof CsvError) return { problems: [error.message] };
    throw error;
  }
  const [head, ...body] = records;
  if (!head) return { problems: ['There is nothing to import: paste CSV or choose a file.'] };
  const header = head.fields.map((name) => name.trim().toLowerCase());
  const problems = [
    ...header
      .filter((name) => !(name in columns))
      .map((name) => `Line ${head.line}: the ${what} import has no column “${name}”.`),
    ...header.filter((name, i) => header.indexOf(name) !== i).map((name) => `The column ${name} is named twice.`),
    ...REQUIRED[what].filter((name) => !header.includes(name)).map((name) => `The header has no ${name} column.`),
  ];
  if (body.length === 0) problems.push('There are no rows under the header.');
  if (body.length > MAX_ROWS)
    problems.push(
      `There are ${body.length.toLocaleString('en')} rows: an import takes at most ${MAX_ROWS.toLocaleString('en')}. Split the file and import each part.`,
    );
  if (problems.length > 0) return { problems };
  const rows = body.map(({ line, fields }) => {
    if (fields.length !== header.length)
      problems.push(`Line ${line} has ${fields.length} fields where the header has ${header.length}.`);
    const row: Record<string, unknown> = {};
    header.forEach((name, i) => {
      const cell = (fields[i] ?? '').replace(/^'/, '');
      const kind = columns[name]; // every column of the header is known (checked above)
      if (kind === undefined || (cell === '' && name !== 'vrf')) return;
      const value = cellValue(kind, cell);
      if ('problem' in value) problems.push(`Line ${line}, ${name}: ${value.problem}.`);
      else row[name] = value.value;
    });
    return row;
  });
  if (problems.length > 0) return { problems };
  const lines = body.map((r) => r.line);
  return what === 'subnets'
    ? { what, lines, rows: typed<SubnetRow>(rows) }
    : { what, lines, rows: typed<AddressRow>(rows) };
}
