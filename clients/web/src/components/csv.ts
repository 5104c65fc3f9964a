/** Reading CSV (RFC 4180) in the browser: records of fields, each with the line of the file it starts on. */

export interface CsvRecord {
  /** The line of the text the record starts on, from 1 (a quoted field may span several lines). */
  line: number;
  fields: string[];
}

/** Text that is not CSV, with the line where reading stopped. */
export class CsvError extends Error {}

const lineEndAt = (text: string, i: number) => text[i] === '\n' || (text[i] === '\r' && text[i + 1] === '\n');
const linesIn = (chunk: string) => chunk.split('\n').length - 1;

/**
 * The records of `text`: fields separated by commas, records by CRLF or LF; a field in double quotes may hold
 * commas, line breaks and doubled quotes (`""` for `"`). A byte-order mark and a final line break are ignored;
 * a blank line is a record of one empty field. A quote left open, or text after a closing quote, is a
 * `CsvError` naming the line. A quote inside an unquoted field is taken as it is.
 */
export function parseCsv(text: string): CsvRecord[] {
  const records: CsvRecord[] = [];
  let i = text.startsWith('\uFEFF') ? 1 : 0;
  let line = 1;
  while (i < text.length) {
    const record: CsvRecord = { line, fields: [] };
    for (;;) {
      let value = '';
      if (text[i] === '"') {
        const opened = line;
        for (i++; ; ) {
          const quote = text.indexOf('"', i);
          if (quote < 0) throw new CsvError(`Line ${opened}: a quoted field is not closed (a quote is missing).`);
          value += text.slice(i, quote);
          line += linesIn(text.slice(i, quote));
          i = quote + 1;
          if (text[i] !== '"') break;
          value += '"';
          i++;
        }
        if (i < text.length && text[i] !== ',' && !lineEndAt(text, i))
          throw new CsvError(`Line ${line}: text follows a closing quote (write a quote inside a quoted field twice).`);
      } else {
        const start = i;
        while (i < text.length && text[i] !== ',' && !lineEndAt(text, i)) i++;
        value = text.slice(start, i);
      }
      record.fields.push(value);
      if (text[i] !== ',') break;
      i++;
    }
    records.push(record);
    if (i < text.length) {
      i += text[i] === '\r' ? 2 : 1;
      line++;
    }
  }
  return records;
}
