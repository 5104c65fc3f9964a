import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors } from './common/errors';
import { IdempotencyHeaders, idempotent } from './common/idempotency';
import { access } from './common/meta';
import { describedUuid, IdParams, requiredName, Timestamp } from './common/schemas';

const c = initContract();
const meta = access('API keys');

export const ApiKeyPermission = extendApi(z.enum(['read', 'write']), {
  title: 'ApiKeyPermission',
  description: 'Scope of an API key: read allows GET requests, write allows changes',
  example: 'read',
});

const Permissions = extendApi(
  z
    .array(ApiKeyPermission)
    .min(1)
    .max(2)
    .refine((list) => new Set(list).size === list.length, 'permissions must not repeat a value'),
  { uniqueItems: true },
);

const KeyPrefix = z.string().length(12).describe('First 12 characters of the key, to recognise it');

export const ApiKey = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the API key (UUID)'),
      name: z.string().describe('Display name of the API key, e.g. CI deploy'),
      key_prefix: KeyPrefix,
      permissions: z.array(ApiKeyPermission).describe('Scopes granted to the key: read, or read and write'),
      created_at: Timestamp,
      last_used_at: Timestamp.nullable().describe('Last use, recorded at most once a minute; null when never used'),
    })
    .strict(),
  {
    title: 'ApiKey',
    description: 'An API key without its secret value',
    example: {
      id: '7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a',
      name: 'CI pipeline',
      key_prefix: 'svc_4kT9pQ2x',
      permissions: ['read', 'write'],
      created_at: '2026-11-22T10:00:00.000Z',
      last_used_at: null,
    },
  },
);

export const CreatedApiKey = extendApi(
  z
    .object({
      id: describedUuid('Unique id of the API key (UUID)'),
      name: z.string().describe('Display name of the API key, e.g. CI deploy'),
      key: z
        .string()
        .length(68)
        .startsWith('svc_')
        .describe('The full key, `svc_` and 64 random characters; shown only in this response'),
      key_prefix: KeyPrefix,
      permissions: z.array(ApiKeyPermission).describe('Scopes granted to the key: read, or read and write'),
      created_at: Timestamp,
    })
    .strict(),
  {
    title: 'ApiKeyCreated',
    description: 'A new API key with its full value, shown once',
    example: {
      id: '7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a',
      name: 'CI pipeline',
      key: 'svc_4kT9pQ2xWm7Lr3Vn8Bz1Hc6Yd0Fs5Ju2Ge9Ka4Nt7Qw1Xp3Rb6Cm8Dv0Hy5Lk2Zs',
      key_prefix: 'svc_4kT9pQ2x',
      permissions: ['read', 'write'],
      created_at: '2026-11-22T10:00:00.000Z',
    },
  },
);

export const CreateApiKeyBody = extendApi(
  z
    .object({
      name: requiredName(100).describe('Label for the key'),
      permissions: Permissions.default(['read', 'write']).describe('Scopes of the key; both when omitted'),
    })
    .strict(),
  {
    title: 'CreateApiKeyBody',
    description: 'A new API key: its name and scopes',
    example: { name: 'Monitoring (read-only)', permissions: ['read'] },
  },
);

export const apiKeysContract = c.router({
  listApiKeys: {
    method: 'GET',
    path: '/api-keys',
    summary: 'List API keys',
    description:
      'The caller’s own keys, newest first; for an admin every key of the organisation. Only `key_prefix` is shown, never the key.',
    metadata: meta.read,
    responses: { 200: z.array(ApiKey), ...errors(401, 403, 429) },
  },
  createApiKey: {
    method: 'POST',
    path: '/api-keys',
    summary: 'Create an API key',
    description:
      'Creates a key acting for the caller, with `read`, `write` or both (default) scopes. The full key is in this ' +
      'response only. Writes with a key also need a plan with API write access and a role that may write. Counts ' +
      'against the plan’s API key limit (402 when reached).',
    metadata: idempotent(meta.write, 'key'),
    headers: IdempotencyHeaders,
    body: CreateApiKeyBody,
    responses: { 201: CreatedApiKey, ...errors(400, 401, 402, 403, 409, 413, 415, 422, 429) },
  },
  revokeApiKey: {
    method: 'DELETE',
    path: '/api-keys/:id',
    summary: 'Revoke an API key',
    description:
      'Deletes the key; requests with it answer 401 at once. Editors revoke their own keys, admins any key of the organisation.',
    metadata: meta.write,
    pathParams: IdParams,
    responses: { 204: c.noBody(), ...errors(400, 401, 403, 404, 429) },
  },
});
