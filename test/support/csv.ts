import { parseCsv as readRecords } from '../../clients/web/src/components/csv';

/**
 * Reads CSV as RFC 4180 writes it into rows of fields, with the console's reader (one reader for the
 * project: what the tests accept is what the console's import accepts).
 */
export const parseCsv = (text: string): string[][] => readRecords(text).map((record) => record.fields);

/** A cell's value as exported: the `'` the export puts before a would-be formula (or a `'`) taken off. */
export const cellValue = (cell: string) => (cell.startsWith("'") ? cell.slice(1) : cell);
