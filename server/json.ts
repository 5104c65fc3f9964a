/**
 * JSON text of the API's answers, exact for integers past 2^53. Node 20's JSON has neither `JSON.rawJSON`
 * nor a way to write a bigint, so a value that may exceed 2^53 (a count of IPv6 addresses) travels as a
 * bigint and is written as bare digits. An answer without a bigint is `JSON.stringify`'s alone; only one
 * holding a bigint takes the second pass below.
 */

const MAX_EXACT = BigInt(Number.MAX_SAFE_INTEGER);

/** An integer as an answer carries it: a number while a double holds it exactly, else the bigint itself. */
export function jsonInteger(n: bigint): number | bigint {
  return n <= MAX_EXACT && n >= -MAX_EXACT ? Number(n) : n;
}

/** `JSON.stringify(value)`, with bigints written as their digits (it refuses them). */
export function jsonText(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error; // a bigint somewhere (a cycle throws again below)
  }
  const marked = JSON.stringify(value, markBigInts);
  return marked === undefined ? undefined : unmarkBigInts(marked);
}

/*
 * The second pass: JSON.stringify writes each bigint as the string NUL + digits, and a string value that
 * itself starts with NUL gets a second NUL in front, so every value string starting with NUL is one of
 * the two. Both come out as `"\u0000…` (JSON.stringify escapes NUL so), which unmarkBigInts finds: a
 * marked bigint loses its quotes and mark, an escaped string one NUL. Keys are not touched by either.
 */
const NUL = '\u0000';
const MARK = '"\\u0000';

function markBigInts(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return NUL + value.toString();
  if (typeof value === 'string' && value.charCodeAt(0) === 0) return NUL + value;
  return value;
}

function unmarkBigInts(text: string): string {
  let out = '';
  let copied = 0;
  for (let at = text.indexOf(MARK); at !== -1; at = text.indexOf(MARK, at + 1)) {
    // A quote after an odd run of backslashes is inside a string; any other starts one (in JSON.stringify's
    // output a closing quote is never followed by a backslash).
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 1) continue;
    const close = closingQuote(text, at);
    if (text.charCodeAt(close + 1) === 0x3a) {
      at = close; // a key
      continue;
    }
    const body = at + MARK.length;
    out += text.slice(copied, at);
    out += text.startsWith('\\u0000', body) ? `"${text.slice(body, close + 1)}` : text.slice(body, close);
    copied = close + 1;
    at = close;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The quote closing the string that opens at `open`: the first not preceded by an odd run of backslashes. */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  for (;;) {
    if (at === -1) return text.length; // never in valid JSON
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
}
