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
export const CustomFields = extendApi(z.record(z.string(), z.unknown()), {
  description: 'Free-form object of string keys',
  example: { rack: 'R12', owner_team: 'netops' },
});

/** Query integer with a range and default, e.g. `limit` and `offset`. */
export function queryInt(min: number, max: number): z.ZodOptional<z.ZodNumber>;
export function queryInt(min: number, max: number, defaultValue: number): z.ZodDefault<z.ZodNumber>;
export function queryInt(min: number, max: number, defaultValue?: number) {
  const base = z.coerce.number().int().min(min).max(max);
  return defaultValue === undefined ? base.optional() : base.default(defaultValue);
}

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
