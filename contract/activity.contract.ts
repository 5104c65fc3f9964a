import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors } from './common/errors';
import { access, heavy } from './common/meta';
import { FreeForm, Offset, PageCursor, queryInt, streamedText, Timestamp, Uuid } from './common/schemas';

const c = initContract();
const meta = access('Activity');

/** Most rows in one activity CSV export (spec Limits). */
export const ACTIVITY_EXPORT_MAX_ROWS = 10_000;

const filterFields = {
  action: z.string().trim().min(1).max(100).optional().describe('Only entries with this action, e.g. `create`'),
  resource_type: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .optional()
    .describe('Only entries about this resource type, e.g. `subnet`'),
  user_id: Uuid.optional().describe('Only entries made by this user'),
  since: Timestamp.optional().describe('Only entries created at or after this RFC 3339 timestamp'),
  until: Timestamp.optional().describe('Only entries created at or before this RFC 3339 timestamp'),
};

export const ListActivityQuery = z
  .object({
    limit: queryInt(1, 500, 50).describe('Entries per page, 1 to 500 (default 50)'),
    offset: Offset,
    cursor: PageCursor,
    ...filterFields,
  })
  .strict();

export const ExportActivityQuery = z.object(filterFields).strict();

export const ActivityEntry = extendApi(
  z
    .object({
      id: z.number().int().min(1).describe('Entry number, increasing with time'),
      user_id: Uuid.nullable().describe('User who made the change; null when made by the system or a deleted user'),
      action: z
        .string()
        .describe(
          'What was done: create, update, delete, split, import, batch_create, batch_update, batch_delete, ' +
            'rotate_secret, revoke, invite, role_change, remove_member …',
        ),
      resource_type: z.string().describe('Kind of object changed, e.g. subnet, address, folder, webhook'),
      resource_id: Uuid.nullable().describe('Id of the object changed; null when the change has no single object'),
      changes: FreeForm.describe('What changed: for updates `{field: [old, new]}`; for creates and deletes the values'),
      created_at: Timestamp,
    })
    .strict(),
  {
    title: 'ActivityEntry',
    description: 'One change in the audit log',
    example: {
      id: 1042,
      user_id: '5a1c2e3f-8b7d-4c6a-9e0f-1d2c3b4a5e6f',
      action: 'update',
      resource_type: 'subnet',
      resource_id: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f',
      changes: { name: ['LAN', 'Office LAN'] },
      created_at: '2026-11-22T10:00:00.000Z',
    },
  },
);

export const ActivityList = extendApi(
  z
    .object({
      entries: z.array(ActivityEntry).describe('Entries matching the filters, newest first'),
      total: z
        .number()
        .int()
        .nonnegative()
        .describe('Number of entries matching the filters, regardless of limit and offset'),
      users: z
        .record(z.string().uuid(), z.string())
        .describe('Email of each user appearing in `entries`, keyed by user id'),
    })
    .strict(),
  {
    title: 'ActivityList',
    description: 'A page of the audit log',
    example: {
      entries: [
        {
          id: 1042,
          user_id: '5a1c2e3f-8b7d-4c6a-9e0f-1d2c3b4a5e6f',
          action: 'update',
          resource_type: 'subnet',
          resource_id: '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f',
          changes: { name: ['LAN', 'Office LAN'] },
          created_at: '2026-11-22T10:00:00.000Z',
        },
      ],
      total: 1,
      users: { '5a1c2e3f-8b7d-4c6a-9e0f-1d2c3b4a5e6f': 'ada@example.com' },
    },
  },
);

export const ActivityFilters = extendApi(
  z
    .object({
      actions: z.array(z.string()).describe('Distinct actions present in the log, sorted'),
      resource_types: z.array(z.string()).describe('Distinct resource types present in the log, sorted'),
    })
    .strict(),
  {
    title: 'ActivityFilters',
    description: 'Values to offer as filters of the audit log',
    example: { actions: ['create', 'delete', 'update'], resource_types: ['address', 'folder', 'subnet'] },
  },
);

const ActivityCsv = streamedText({
  description:
    'CSV (RFC 4180, CRLF line ends) with a header row; columns id, created_at, user_id, user_email, action, ' +
    'resource_type, resource_id, changes (JSON). A cell that a spreadsheet would run as a formula (starting with ' +
    "`=`, `+`, `-`, `@`, a tab or a carriage return) or that starts with `'` gets a leading `'`.",
  example:
    'id,created_at,user_id,user_email,action,resource_type,resource_id,changes\r\n' +
    '1042,2026-11-22T10:00:00.000Z,5a1c2e3f-8b7d-4c6a-9e0f-1d2c3b4a5e6f,ada@example.com,update,subnet,' +
    '3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f,"{""name"":[""LAN"",""Office LAN""]}"\r\n',
});

export const activityContract = c.router({
  listActivity: {
    method: 'GET',
    path: '/activity',
    summary: 'List activity',
    description:
      'The organisation’s audit log, newest first, filtered by action, resource type, user and time range ' +
      '(`since` and `until` inclusive), paginated by `limit` and `offset`, or by cursor (`Next-Cursor` on every page ' +
      'but the last, `?cursor=` for the page after it). `total` counts every matching entry ' +
      'and `users` maps the user ids of the page to their emails. Entries older than the plan’s retention ' +
      '(7, 30 or 90 days) are not kept.',
    metadata: { ...meta.read, cursorPages: true },
    query: ListActivityQuery,
    responses: { 200: ActivityList, ...errors(400, 401, 403, 429) },
  },
  listActivityFilters: {
    method: 'GET',
    path: '/activity/filters',
    summary: 'List activity filter values',
    description: 'The distinct actions and resource types present in the organisation’s audit log.',
    metadata: meta.read,
    responses: { 200: ActivityFilters, ...errors(401, 403, 429) },
  },
  exportActivity: {
    method: 'GET',
    path: '/activity/export',
    summary: 'Export activity as CSV',
    description:
      'The audit log entries matching the same filters as the list (no limit or offset), newest first, as CSV ' +
      '(`text/csv`) with a header row, at most the 10,000 newest matching entries. Columns: id, created_at, ' +
      'user_id, user_email, action, resource_type, resource_id, changes (the change set as JSON).',
    metadata: heavy(meta.read),
    query: ExportActivityQuery,
    responses: {
      200: c.otherResponse({ contentType: 'text/csv', body: ActivityCsv }),
      ...errors(400, 401, 403, 429),
    },
  },
});
