/**
 * Reading the service's JSON exactly. Counts of addresses are integers of any size (an IPv6 /0 holds
 * 2^128), written in full in the JSON text; `JSON.parse` would round those past 2^53. `parseJson` is
 * `JSON.parse`, except that an integer beyond `Number.MAX_SAFE_INTEGER` becomes a `bigint`.
 */

/** A count of addresses: a number while it is exact (up to `Number.MAX_SAFE_INTEGER`), a `bigint` beyond. */
export type AddressCount = number | bigint;

/** The shortest integer beyond Number.MAX_SAFE_INTEGER (9007199254740991) has 16 digits. */
const LONG_DIGIT_RUN = /\d{16}/;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
/** NUL: raw in no valid JSON string, so a string value starting with it is one this module marked. */
const MARK = '\\u0000';

/**
 * `JSON.parse(text)`, with integers beyond ±`Number.MAX_SAFE_INTEGER` as exact bigints. Text without a run
 * of 16 digits is `JSON.parse`'s alone. Otherwise the text is checked by `JSON.parse` first (same errors),
 * then each such integer outside strings is written as a marked string, parsed, and made a bigint; string
 * values that happen to start with the mark are escaped, so no string is ever mistaken for one.
 */
export function parseJson(text: string): unknown {
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text);
  const plain = JSON.parse(text);
  const marked = markBigIntegers(text);
  return marked === text ? plain : unmark(JSON.parse(marked));
}

/** The parsed marked text with its marked strings as bigints and its escaped strings restored. */
function unmark(value: unknown): unknown {
  if (typeof value === 'string') {
    if (value.charCodeAt(0) !== 0) return value;
    return value.charCodeAt(1) === 0 ? value.slice(1) : BigInt(value.slice(1));
  }
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = unmark(value[i]);
    return value;
  }
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const member = object[key];
    const restored = unmark(member);
    // defineProperty, as JSON.parse makes them: assigning a "__proto__" key would set the prototype instead.
    if (restored !== member)
      Object.defineProperty(object, key, { value: restored, writable: true, enumerable: true, configurable: true });
  }
  return object;
}

/**
 * Valid JSON `text` with every integer token beyond the safe range written as the string `"\u0000<digits>"`,
 * and every string value (not key) whose text starts with `\u0000` given a second one in front.
 */
function markBigIntegers(text: string): string {
  let out = '';
  let copied = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (text.startsWith(MARK, i + 1) && !isKey(text, end + 1)) {
        out += `${text.slice(copied, i + 1)}${MARK}`;
        copied = i + 1;
      }
      i = end;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1;
      while (end < text.length && isNumberChar(text.charCodeAt(end))) end++;
      const token = text.slice(i, end);
      if (isBigInteger(token)) {
        out += `${text.slice(copied, i)}"${MARK}${token}"`;
        copied = end;
      }
      i = end - 1;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** The index of the quote closing the string that opens at `open` (an escaped quote has an odd run of backslashes before it). */
function closingQuote(text: string, open: number): number {
  let at = text.indexOf('"', open + 1);
  for (;;) {
    if (at === -1) return text.length; // never in valid JSON
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
}

/** In valid JSON, a string is a key exactly when a colon follows it. */
function isKey(text: string, from: number): boolean {
  let i = from;
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  return text.charCodeAt(i) === 0x3a;
}

const isWhitespace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** Digits, sign, fraction point and exponent: the characters of a JSON number token. */
const isNumberChar = (c: number) =>
  (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;

function isBigInteger(token: string): boolean {
  const digits = token.charCodeAt(0) === 0x2d ? token.length - 1 : token.length;
  if (digits < 16 || /[.eE]/.test(token)) return false;
  const value = BigInt(token);
  return value > MAX_SAFE || value < -MAX_SAFE;
}
