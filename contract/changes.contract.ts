import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors } from './common/errors';
import { access } from './common/meta';
import { FreeForm, queryInt, Timestamp, Uuid } from './common/schemas';

const c = initContract();
const meta = access('Changes');

/** Changes in one page of the feed, at most. */
export const CHANGES_MAX_LIMIT = 1000;

/** `after=now`: start after the last change committed. */
export const AFTER_NOW = 'now';

export const ListChangesQuery = z
  .object({
    after: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe(
        'Where to resume: the `cursor` of the last change seen (or the `next_cursor` of the last page); the page ' +
          'starts right after it. `now` starts after the last change committed (an empty page whose `next_cursor` ' +
          'is where to follow from). Without it, the feed starts at the oldest change kept.',
      ),
    limit: queryInt(1, CHANGES_MAX_LIMIT, 100).describe(`Changes per page, 1 to ${CHANGES_MAX_LIMIT} (default 100)`),
  })
  .strict();

const changeExample = {
  cursor: 'WyJ0aGUgY2hhbmdlIGZlZWQiLDQyLDEwNDJd',
  operation: 'update',
  action: 'update',
  resource_type: 'subnet',
  resource_id: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f',
  changes: { name: ['LAN', 'Office LAN'] },
  activity_id: 1042,
  user_id: '5a1c2e3f-8b7d-4c6a-9e0f-1d2c3b4a5e6f',
  created_at: '2026-11-22T10:00:00.000Z',
};

export const ChangeOperation = z.enum(['create', 'update', 'delete']);

export const Change = extendApi(
  z
    .object({
      cursor: z.string().describe('Position of this change in the feed: `after=` it resumes right after it'),
      operation: ChangeOperation.describe(
        'What happened to the object: `create` (every field it holds, `[null, value]`), `update` (the fields that ' +
          'changed, `[old, new]`) or `delete` (the fields it held, `[value, null]`)',
      ),
      action: z
        .string()
        .describe('The activity action that made it: create, update, delete, split, import, batch_create …'),
      resource_type: z.string().describe('Kind of object changed, e.g. subnet, address, folder, webhook'),
      resource_id: Uuid.nullable().describe('Id of the object changed'),
      changes: FreeForm.describe('What changed, `{field: [old, new]}`, as in the activity entry'),
      activity_id: z.number().int().min(1).describe('The id of the activity entry that records it'),
      user_id: Uuid.nullable().describe('User who made the change; null when made by the system or a deleted user'),
      created_at: Timestamp.describe('Time of the transaction that made it'),
    })
    .strict(),
  {
    title: 'Change',
    description: 'One change of the organisation’s data, in commit order',
    example: changeExample,
  },
);

export const ChangePage = extendApi(
  z
    .object({
      changes: z.array(Change).describe('The changes after `after`, oldest commit first'),
      next_cursor: z
        .string()
        .describe('`after=` this for the next page; on the last page, where to poll from for changes to come'),
      has_more: z.boolean().describe('Whether changes already committed follow this page'),
    })
    .strict(),
  {
    title: 'ChangePage',
    description: 'A page of the change feed',
    example: {
      changes: [changeExample],
      next_cursor: changeExample.cursor,
      has_more: false,
    },
  },
);

export const changesContract = c.router({
  listChanges: {
    method: 'GET',
    path: '/changes',
    summary: 'Follow the change feed',
    description:
      'Every create, update and delete of the organisation’s objects (the activity log’s entries), in commit order: ' +
      'a change committed later never appears before a cursor already handed out, so resuming `after` the last ' +
      'cursor seen misses nothing and repeats nothing, whatever others write meanwhile. The changes of one ' +
      'transaction are consecutive, in the order it made them. Changes are kept as long as the activity log (the ' +
      'plan’s retention); a cursor older than that is a 410 `cursor_expired`: read the current state again and ' +
      'follow `after=now`.',
    metadata: meta.read,
    query: ListChangesQuery,
    responses: { 200: ChangePage, ...errors(400, 401, 403, 410, 429) },
  },
});
