/**
 * The server's JSON writer (server/json.ts) and the SDK's parser (clients/typescript/src/json.ts) against
 * JSON.stringify and JSON.parse, over random JSON values whose strings and keys hold what could fool a
 * scan of the text: digit runs, quotes, backslashes, NUL (the marks both use), lone surrogates.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJson } from '../../clients/typescript/src/json';
import { jsonInteger, jsonText } from '../../server/json';

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const RUNS = { numRuns: 400 };

const piece = fc.oneof(
  fc.constantFrom('"', '\\', '\\"', '\u0000', '\\u0000', ':', ',', '[', ']', '{', '}', '-', 'e', '.', ' ', '\n'),
  fc.constantFrom('\ud800', '\udfff', '__proto__'),
  fc.stringMatching(/^-?\d{1,40}$/),
  fc.string({ unit: 'binary', maxLength: 3 }),
);
/** Strings made to look like the inside of JSON text. */
const trickyString = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(''));

const hugeInteger = fc.bigInt({ min: -(2n ** 130n), max: 2n ** 130n });
const number = fc.oneof(
  fc.integer(),
  fc.double(), // NaN and ±Infinity too: both sides write null
  hugeInteger.map(Number), // doubles past 2^53 that JSON.stringify writes as bare digits (below 1e21)
  fc.constantFrom(2 ** 53, 2 ** 53 - 1, -(2 ** 53), 2 ** 64, 1e21, -0),
);

type Leaf = fc.Arbitrary<unknown>;
const json = (leaf: Leaf) =>
  fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('value'), { maxLength: 5 }),
      fc.dictionary(trickyString, tie('value'), { maxKeys: 5 }),
    ),
  })).value;

const plainLeaf = fc.oneof(fc.constant(null), fc.boolean(), number, trickyString);
/** JSON values without bigints. */
const plainValue = json(plainLeaf);
/** JSON values where any leaf may be a bigint, small or huge. */
const valueWithBigInts = json(fc.oneof(plainLeaf, hugeInteger, fc.bigInt({ min: -100n, max: 100n })));

/**
 * What an exact reader should make of `JSON.stringify`-like text of `value`: a bigint or a double written
 * as an integer beyond ±Number.MAX_SAFE_INTEGER is a bigint of those digits, a smaller one a number.
 */
function exact(value: unknown): unknown {
  if (typeof value === 'bigint') return value > MAX_SAFE || value < -MAX_SAFE ? value : Number(value);
  if (typeof value === 'number') {
    const text = JSON.stringify(value);
    return /^-?\d+$/.test(text) ? exact(BigInt(text)) : JSON.parse(text);
  }
  if (Array.isArray(value)) return value.map(exact);
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) {
      Object.defineProperty(copy, key, { value: exact(member), enumerable: true, writable: true, configurable: true });
    }
    return copy;
  }
  return value;
}

const asNumbers = (_key: string, value: unknown) => (typeof value === 'bigint' ? Number(value) : value);

describe('server JSON writer', () => {
  it('writes what JSON.stringify writes when the value holds a bigint elsewhere', () => {
    fc.assert(
      fc.property(plainValue, (value) => {
        expect(jsonText([value, 1n])).toBe(`[${JSON.stringify(value)},1]`);
      }),
      RUNS,
    );
  });

  it('writes bigints as their digits, everything else as JSON.stringify', () => {
    fc.assert(
      fc.property(valueWithBigInts, (value) => {
        expect(parseJson(jsonText(value) as string)).toEqual(exact(value));
      }),
      RUNS,
    );
  });

  it('reads back with JSON.parse as JSON.stringify of the value with bigints rounded to numbers', () => {
    fc.assert(
      fc.property(valueWithBigInts, (value) => {
        expect(JSON.parse(jsonText(value) as string)).toEqual(JSON.parse(JSON.stringify(value, asNumbers)));
      }),
      RUNS,
    );
  });

  it('writes 2^128 as its 39 digits', () => {
    expect(jsonText({ total_count: 2n ** 128n })).toBe('{"total_count":340282366920938463463374607431768211456}');
  });

  it('refuses a cycle as JSON.stringify does', () => {
    const cyclic: Record<string, unknown> = { total: 2n ** 64n };
    cyclic.self = cyclic;
    expect(() => jsonText(cyclic)).toThrow(TypeError);
  });

  it('carries an integer as a number up to Number.MAX_SAFE_INTEGER and as a bigint beyond', () => {
    expect([jsonInteger(MAX_SAFE), jsonInteger(MAX_SAFE + 1n), jsonInteger(-MAX_SAFE - 1n)]).toEqual([
      Number.MAX_SAFE_INTEGER,
      MAX_SAFE + 1n,
      -MAX_SAFE - 1n,
    ]);
  });
});

describe('SDK JSON parser', () => {
  it('reads integers beyond Number.MAX_SAFE_INTEGER as bigints and everything else as JSON.parse', () => {
    fc.assert(
      fc.property(plainValue, (value) => {
        expect(parseJson(JSON.stringify(value))).toEqual(exact(value));
      }),
      RUNS,
    );
  });

  it('equals JSON.parse on any text once its bigints are rounded, and throws exactly when JSON.parse throws', () => {
    const edit = fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.constantFrom('', '"', '\\', ':', ',', '{', '}', '9', '-'));
    const text = fc.oneof(
      fc.string({ unit: 'binary-ascii' }),
      // Valid text with a few characters deleted or inserted: mostly invalid, sometimes valid differently.
      fc.tuple(plainValue, fc.array(edit, { minLength: 1, maxLength: 3 })).map(([value, edits]) =>
        edits.reduce((t, [at, drop, insert]) => {
          const i = t.length === 0 ? 0 : at % t.length;
          return t.slice(0, i) + insert + t.slice(i + drop);
        }, JSON.stringify(value)),
      ),
      fc.stringMatching(/^[{[]?"?-?\d{15,22}"?[:,]?\d{0,20}[}\]]?$/),
    );
    fc.assert(
      fc.property(text, (t) => {
        let expected: unknown;
        try {
          expected = JSON.parse(t);
        } catch {
          expect(() => parseJson(t)).toThrow(SyntaxError);
          return;
        }
        expect(JSON.parse(JSON.stringify(parseJson(t), asNumbers))).toEqual(JSON.parse(JSON.stringify(expected)));
      }),
      { numRuns: 2000 },
    );
  });

  it('reads a huge integer under a __proto__ key as an own property, as JSON.parse does', () => {
    const parsed = parseJson('{"__proto__":12345678901234567890}') as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(parsed, '__proto__')?.value).toBe(12345678901234567890n);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });

  it('leaves digit runs inside strings, after escaped quotes and NUL marks, as text', () => {
    const text = '{"a":"\\"12345678901234567890","\\u00001":"\\u000012345678901234567890","b":[12345678901234567890]}';
    expect(parseJson(text)).toEqual({
      a: '"12345678901234567890',
      '\u00001': '\u000012345678901234567890',
      b: [12345678901234567890n],
    });
  });

  it('reads 9007199254740991 as a number and 9007199254740992 as a bigint', () => {
    expect(parseJson('[9007199254740991,9007199254740992,-9007199254740992,1.0e30]')).toEqual([
      9007199254740991,
      9007199254740992n,
      -9007199254740992n,
      1e30,
    ]);
  });
});
