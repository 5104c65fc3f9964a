import { z } from 'zod';
import type { RouteMeta } from './meta';

/** Route metadata of a single resource's GET, PATCH or DELETE with versions (`RouteMeta.versioned`). */
export const versioned = <const M extends RouteMeta>(meta: M) => ({ ...meta, versioned: true as const });

/** A list of entity tags as HTTP sends them (`"a", "b"`, or `*`); at most 4,096 characters. */
const tagList = z.string().max(4096);

/** The optional `If-None-Match` of a single resource's GET. */
export const IfNoneMatchHeaders = z.object({
  'if-none-match': tagList
    .optional()
    .describe(
      'The ETag of the copy you hold (or several, comma-separated): when it is the current version the answer is ' +
        '304 without a body, and your copy stands.',
    ),
});

/** The optional `If-Match` of a single resource's PATCH or DELETE. */
export const IfMatchHeaders = z.object({
  'if-match': tagList
    .optional()
    .describe(
      'The ETag of the version you read: the change is made only if the resource is still at that version, ' +
        'else 412 `precondition_failed` with the current version in `ETag` and nothing written (no lost update ' +
        'between two editors). `*` matches any version; a weak tag (`W/"…"`) never matches.',
    ),
});
