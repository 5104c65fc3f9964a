/** CSV cells and lines (RFC 4180), safe to open in a spreadsheet. */

/** RFC 4180 quoting: a field holding a quote, comma or line break is quoted, its quotes doubled. */
export const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

/**
 * A cell a spreadsheet will not run as a formula: one starting with `=`, `+`, `-`, `@`, a tab or a carriage
 * return gets a leading `'` (OWASP's advice), and so does one starting with `'`, so a reader gets every
 * value back by taking one leading `'` off any cell that has one.
 */
export const csvCell = (value: string) => csvField(/^['=+\-@\t\r]/.test(value) ? `'${value}` : value);

/** One record with its CRLF line end; null and undefined are empty cells. */
export const csvLine = (values: (string | number | boolean | null | undefined)[]) =>
  `${values.map((value) => csvCell(value === null || value === undefined ? '' : String(value))).join(',')}\r\n`;
