/**
 * Versions of single resources (ETags). A version is a hash of the resource's representation, the JSON text its
 * GET answers, so it is strong (RFC 9110 §8.8.1): equal versions mean byte-equal answers. A subnet's
 * representation holds its utilization and children, so an address or child added moves its version too.
 */
import { createHash } from 'node:crypto';
import { HttpError } from './errors';
import { jsonText } from './json';

/** The strong ETag of a representation's JSON text: 128 bits of its SHA-256. */
export const versionOfText = (text: string) =>
  `"${createHash('sha256').update(text).digest('base64url').slice(0, 22)}"`;

/** The ETag of a representation, as its GET answers it. */
export const versionOf = (representation: unknown) => versionOfText(jsonText(representation) ?? '');

/** The entity tags of an `If-Match` or `If-None-Match` list (`*` stays `*`). */
const tagsOf = (header: string) =>
  header
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');

/**
 * `If-None-Match` against the current version: true when the client's copy is current (answer 304). Weak
 * comparison, as RFC 9110 §13.1.2 asks: `W/"x"` matches `"x"`.
 */
export function notModified(header: string | undefined, version: string): boolean {
  if (header === undefined) return false;
  const strong = (tag: string) => tag.replace(/^W\//, '');
  return tagsOf(header).some((tag) => tag === '*' || strong(tag) === version);
}

/**
 * `If-Match` of a PATCH or DELETE against the resource's current representation, read in the write's
 * transaction with the row locked: a 412 `precondition_failed` naming the current version (also in `ETag`) when
 * none of the tags is it. `*` matches any current representation; a weak tag never matches (strong comparison,
 * RFC 9110 §13.1.1). Without the header there is nothing to check and nothing is read.
 */
export async function assertVersion(
  header: string | undefined,
  current: () => unknown | Promise<unknown>,
  what: string,
): Promise<void> {
  if (header === undefined) return;
  const tags = tagsOf(header);
  if (tags.includes('*')) return;
  const version = versionOf(await current());
  if (tags.includes(version)) return;
  throw new HttpError(
    412,
    'precondition_failed',
    `If-Match: ${what} changed since ${tags.join(', ') || 'the version given'}; its current version is ${version}`,
    { ETag: version },
  );
}
