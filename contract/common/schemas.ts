import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';

const uuidExample = '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f';
export const Uuid = extendApi(z.string().uuid(), { example: uuidExample });
/** `Uuid` with a field description: `Uuid.describe()` would return a copy without the example. */
export const describedUuid = (description: string) =>
  extendApi(z.string().uuid().describe(description), { example: uuidExample });
export const Timestamp = extendApi(z.string().datetime({ offset: true }), {
  description: 'RFC 3339 UTC timestamp',
  example: '2026-11-22T10:00:00.000Z',
});

/** `{id}` in a path: a UUID, so a malformed one is a 400 before any lookup. */
export const IdParams = z.object({ id: Uuid.describe('Resource id (UUID)') }).strict();

export const MessageResponse = extendApi(
  z.object({ message: z.string().describe('Human-readable confirmation, e.g. Member removed') }).strict(),
  {
    title: 'MessageResponse',
    description: 'Confirmation message',
    example: { message: 'Member removed' },
  },
);

/** Free-form object of string keys (custom fields, change sets, parsed records, headers). */
export const FreeForm = z.record(z.string(), z.unknown());
/** Bounds of `custom_fields`: what a user types about a subnet or an address, not a document store. */
export const CUSTOM_FIELDS_MAX_DEPTH = 8;
export const CUSTOM_FIELDS_MAX_BYTES = 16 * 1024;
export const CUSTOM_FIELDS_MAX_KEYS = 100;

/**
 * How deep a JSON value nests objects and arrays (a scalar: 0, `{}`: 1), walked with a stack of its own (no
 * recursion, which a value thousands deep would overflow); stops counting past `stopAbove`.
 */
function nestingDepth(value: unknown, stopAbove: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > stopAbove) break;
    for (const inner of Object.values(item)) stack.push([inner, depth + 1]);
  }
  return deepest;
}

export const CustomFields = extendApi(
  z.record(z.string(), z.unknown()).superRefine((fields, ctx) => {
    const problem = (message: string) => ctx.addIssue({ code: z.ZodIssueCode.custom, message });
    const keys = Object.keys(fields).length;
    if (keys > CUSTOM_FIELDS_MAX_KEYS) return problem(`has ${keys} keys; at most ${CUSTOM_FIELDS_MAX_KEYS}`);
    const depth = nestingDepth(fields, CUSTOM_FIELDS_MAX_DEPTH);
    if (depth > CUSTOM_FIELDS_MAX_DEPTH) {
      return problem(`nests objects and arrays more than ${CUSTOM_FIELDS_MAX_DEPTH} levels deep`);
    }
    // Stringified only once known to be shallow.
    const bytes = new TextEncoder().encode(JSON.stringify(fields)).length;
    if (bytes > CUSTOM_FIELDS_MAX_BYTES) {
      problem(`is ${bytes} bytes as JSON; at most ${CUSTOM_FIELDS_MAX_BYTES} (16 KiB)`);
    }
  }),
  {
    description:
      `Free-form object of string keys: at most ${CUSTOM_FIELDS_MAX_KEYS} keys at the top level, objects and ` +
      `arrays nested at most ${CUSTOM_FIELDS_MAX_DEPTH} levels deep (the object itself is the first), and at ` +
      `most ${CUSTOM_FIELDS_MAX_BYTES} bytes (16 KiB) as UTF-8 JSON; more is a 400 naming custom_fields`,
    maxProperties: CUSTOM_FIELDS_MAX_KEYS,
    example: { rack: 'R12', owner_team: 'netops' },
  },
);

/** Query integer with a range and default, e.g. `limit` and `offset`. */
export function queryInt(min: number, max: number): z.ZodOptional<z.ZodNumber>;
export function queryInt(min: number, max: number, defaultValue: number): z.ZodDefault<z.ZodNumber>;
export function queryInt(min: number, max: number, defaultValue?: number) {
  const base = z.coerce.number().int().min(min).max(max);
  return defaultValue === undefined ? base.optional() : base.default(defaultValue);
}

/** The `cursor` of a list with cursor pages (`RouteMeta.cursorPages`): the `Next-Cursor` of the page before. */
export const PageCursor = z
  .string()
  .min(1)
  .max(1024)
  .optional()
  .describe(
    'The Next-Cursor header of the page before: this page starts right after its last item, so an iteration sees ' +
      'each item that exists throughout exactly once, whatever is inserted or deleted meanwhile. Not with offset.',
  );

export const Offset = z.coerce.number().int().min(0).max(1_000_000_000).default(0).describe('Number of items to skip');

/** A text field a user types: trimmed, bounded so no one stores a novel in a description. */
export function text(max = 1000) {
  return z.string().max(max);
}
export function requiredName(max = 200) {
  return z.string().trim().min(1, 'must not be empty').max(max);
}

/**
 * A text body (a CSV file) the server may stream: it answers a string or a Node readable stream, which
 * ts-rest pipes to the response; clients receive the text. The document shows a string.
 */
export const streamedText = (openApi: { description: string; example: string }) =>
  extendApi(
    z
      .union([
        z.string(),
        z.custom<NodeJS.ReadableStream>((value) => typeof value === 'object' && value !== null && 'pipe' in value),
      ])
      .transform(String),
    { type: 'string', oneOf: undefined, ...openApi },
  );
