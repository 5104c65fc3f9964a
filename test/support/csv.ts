/** Reads CSV as RFC 4180 writes it (quoted fields, doubled quotes, LF or CRLF line ends) into rows of fields. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted && c === '"' && text[i + 1] === '"') {
      field += '"';
      i++;
    } else if (c === '"') {
      quoted = !quoted;
    } else if (!quoted && c === '\r' && text[i + 1] === '\n') {
      // the CR of a CRLF line end
    } else if (!quoted && (c === ',' || c === '\n')) {
      row.push(field);
      field = '';
      if (c === '\n') {
        rows.push(row);
        row = [];
      }
    } else {
      field += c;
    }
  }
  return rows;
}

/** A cell's value as exported: the `'` the export puts before a would-be formula (or a `'`) taken off. */
export const cellValue = (cell: string) => (cell.startsWith("'") ? cell.slice(1) : cell);
