/** CSV cells, lines and streamed files (RFC 4180), safe to open in a spreadsheet: the one CSV writer of every export. */
import { Readable } from 'node:stream';
import type { Response } from 'express';

/** RFC 4180 quoting: a field holding a quote, comma or line break is quoted, its quotes doubled. */
const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/**
 * A cell a spreadsheet will not run as a formula: one starting with `=`, `+`, `-`, `@`, a tab or a carriage
 * return gets a leading `'` (OWASP's advice), and so does one starting with `'`, so a reader gets every
 * value back by taking one leading `'` off any cell that has one.
 */
const csvCell = (value: string) => csvField(/^['=+\-@\t\r]/.test(value) ? `'${value}` : value);

export type CsvValue = string | number | boolean | null | undefined;

/** One record with its CRLF line end; null and undefined are empty cells. */
export const csvLine = (values: CsvValue[]) =>
  `${values.map((value) => csvCell(value === null || value === undefined ? '' : String(value))).join(',')}\r\n`;

/**
 * A CSV file streamed page by page: the header, then the rows of each page (asked for after the last row
 * of the one before) until a page is short or `max` rows are out. Pages are read only as the client takes
 * the file, so memory stays flat however many rows there are and a slow reader holds no connection.
 */
export function csvStream<Row>(options: {
  header: readonly string[];
  pageSize: number;
  max?: number;
  page: (last: Row | null, limit: number) => Promise<Row[]>;
  row: (row: Row) => CsvValue[];
}): Readable {
  const { header, pageSize, max = Number.POSITIVE_INFINITY, page, row } = options;
  async function* lines(): AsyncGenerator<string> {
    yield csvLine([...header]);
    let last: Row | null = null;
    for (let left = max; left > 0; ) {
      const limit = Math.min(pageSize, left);
      const rows = await page(last, limit);
      if (rows.length > 0) yield rows.map((r) => csvLine(row(r))).join('');
      const final = rows.at(-1);
      if (rows.length < limit || final === undefined) return;
      left -= rows.length;
      last = final;
    }
  }
  return Readable.from(lines());
}

/**
 * A streamed CSV answer of a router: ts-rest pipes a stream without its headers, so they are set here. A
 * failure after the first bytes cannot become an error response any more; it ends the connection, so the
 * client sees a cut-off file.
 */
export function csvDownload(res: Response, body: Readable, name: string) {
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
  body.on('error', (error) => res.destroy(error));
  return { status: 200 as const, body };
}
