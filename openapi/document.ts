import { generateSchema } from '@anatine/zod-openapi';
import { type AppRouter, isAppRouteOtherResponse } from '@ts-rest/core';
import { generateOpenApi } from '@ts-rest/open-api';
import { contract, errorDescriptions, routeMeta } from '../contract';
import { webhookEventSchemas } from '../contract/webhook-events';
import { WEBHOOK_EVENT_TYPES } from '../contract/webhooks.contract';

type Json = Record<string, any>;

const successDescriptions: Record<string, string> = {
  200: 'Success',
  201: 'Created',
  204: 'Done; no content',
  307: 'Redirect; the Location header names the target',
  304: 'Not modified: If-None-Match holds the current version (the ETag header); no body',
};

const tagDescriptions: Record<string, string> = {
  Auth: 'Passwordless sign-in (magic link, Google), the current user and session',
  Folders: 'Folders group subnets',
  Subnets: 'CIDR ranges (IPv4 and IPv6) nested per VRF, with utilization, split and free space',
  Addresses: 'IP address records inside subnets',
  VLANs: 'VLANs (numbers 1 to 4094)',
  VRFs: 'VRFs: separate address spaces for overlapping ranges',
  Locations: 'Sites and rooms that subnets and VLANs belong to',
  Ranges: 'Ranges of addresses inside a subnet: DHCP pools, reserved blocks',
  Tags: 'Labels that subnets, addresses, VLANs, VRFs, locations and folders carry, and filter by',
  Webhooks: 'Signed event notifications to HTTPS endpoints',
  'API keys': 'Bearer keys for programmatic access',
  Team: 'Members, roles and invitations (Teams and Enterprise plans)',
  Billing: 'Plan, usage, checkout and billing portal',
  'Import and export': 'Bulk import of subnets and addresses; CSV export',
  Search: 'Full-text search over subnets and addresses',
  Activity: 'Audit log of every change',
  'Network tools': 'Public network diagnostics (no authentication)',
};

const rateLimitHeaders: Json = {
  'X-RateLimit-Limit': { $ref: '#/components/headers/X-RateLimit-Limit' },
  'X-RateLimit-Remaining': { $ref: '#/components/headers/X-RateLimit-Remaining' },
  'X-RateLimit-Reset': { $ref: '#/components/headers/X-RateLimit-Reset' },
};

const intHeader = (description: string) => ({ description, schema: { type: 'integer' } });

/**
 * ts-rest's generator leaves request bodies optional, omits response headers and descriptions, and marks
 * coerced query numbers nullable; this fixes each once, from the route's metadata.
 */
function mapOperation(
  operation: Json,
  route: { metadata?: unknown; body?: unknown; responses: Record<number, unknown> },
): Json {
  const meta = routeMeta(route);
  const authenticated = meta.access !== 'public';
  operation.tags = [meta.tag];
  operation.security = !authenticated
    ? []
    : meta.sessionOnly
      ? [{ SessionCookie: [] }]
      : [{ ApiKey: [] }, { SessionCookie: [] }];

  for (const parameter of operation.parameters ?? []) {
    if (!parameter.schema) continue;
    delete parameter.schema.nullable;
    // ts-rest lifts a description onto path and query parameters but leaves a header's in its schema.
    if (!parameter.description && parameter.schema.description) {
      parameter.description = parameter.schema.description;
      delete parameter.schema.description;
    }
  }
  if (operation.requestBody) {
    const body = (route as { body?: { isOptional?: () => boolean } }).body;
    operation.requestBody.required = !body?.isOptional?.();
    operation.requestBody.description = 'JSON request body';
  }

  for (const [status, response] of Object.entries<Json>(operation.responses)) {
    const code = Number(status);
    const declared = route.responses[code] as Parameters<typeof isAppRouteOtherResponse>[0];
    if (isAppRouteOtherResponse(declared)) {
      const { example, ...schema } = generateSchema(declared.body as never) as Json;
      response.content = { [declared.contentType]: { schema, ...(example ? { example } : {}) } };
    }
    if (response.description === status) {
      response.description = successDescriptions[status] ?? errorDescriptions[code] ?? `HTTP ${status}`;
    }
    const headers: Json = authenticated ? { ...rateLimitHeaders } : {};
    if (code === 429) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    if (code === 200 && meta.totalCountHeader)
      headers['X-Total-Count'] = { $ref: '#/components/headers/X-Total-Count' };
    if (code === 307) headers.Location = { description: 'Redirect target', schema: { type: 'string' } };
    if (meta.idempotent && code !== 409 && code !== 422) {
      headers['Idempotent-Replayed'] = { $ref: '#/components/headers/Idempotent-Replayed' };
    }
    if (code === 409 && meta.idempotent) headers['Retry-After'] = { $ref: '#/components/headers/Retry-After' };
    if (code === 200 && meta.cursorPages) {
      headers['Next-Cursor'] = { $ref: '#/components/headers/Next-Cursor' };
      headers.Link = { $ref: '#/components/headers/Link' };
    }
    if (meta.versioned && (code === 200 || code === 304 || code === 412))
      headers.ETag = { $ref: '#/components/headers/ETag' };
    if (Object.keys(headers).length > 0) response.headers = headers;
  }
  return operation;
}

/** The OpenAPI 3.0 document of the whole API, derived from the contract. */
export function buildOpenApiDocument(router: AppRouter = contract): Json {
  const document: Json = generateOpenApi(
    router,
    {
      info: {
        title: 'IPAM Service API',
        version: '1.0.0',
        description:
          'Multi-tenant IP address management: subnets, addresses, VLANs, VRFs and locations, with webhooks, ' +
          'API keys, teams, billing and public network tools. Errors are JSON `{error, code}`.',
        license: { name: 'Proprietary', url: 'https://example.invalid/license' },
        contact: { name: 'IPAM Service', email: 'support@example.invalid' },
      },
      servers: [{ url: '/', description: 'The server serving this document' }],
      tags: Object.entries(tagDescriptions).map(([name, description]) => ({ name, description })),
      components: {
        securitySchemes: {
          ApiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'API key `svc_…` in `Authorization: Bearer <key>`',
          },
          SessionCookie: {
            type: 'apiKey',
            in: 'cookie',
            name: 'service_session',
            description: 'Browser session; writes also need `X-Requested-With: XMLHttpRequest`',
          },
        },
        headers: {
          'X-RateLimit-Limit': intHeader('Requests allowed per minute for the caller'),
          'X-RateLimit-Remaining': intHeader('Requests left in the current window'),
          'X-RateLimit-Reset': intHeader('Unix time (seconds) when the window resets'),
          'Retry-After': intHeader('Seconds to wait before retrying'),
          'X-Total-Count': intHeader('Total number of items, regardless of limit and offset'),
          'Next-Cursor': {
            description: 'The cursor of the next page (send it as `cursor`); absent on the last page',
            schema: { type: 'string' },
          },
          Link: {
            description: 'The next page: `<path?…&cursor=…>; rel="next"` (RFC 8288); absent on the last page',
            schema: { type: 'string' },
          },
          ETag: {
            description:
              'The version of the resource: a strong entity tag of its representation (the JSON its GET answers), ' +
              'for `If-None-Match` on GET and `If-Match` on PATCH and DELETE',
            schema: { type: 'string', example: '"3q2-7wAAAAAAAAAAAAAAAA"' },
          },
          'Idempotent-Replayed': {
            description: '`true` when this is the stored answer of an earlier request with the same Idempotency-Key',
            schema: { type: 'string', enum: ['true'], example: 'true' },
          },
        },
      },
    },
    { setOperationId: true, operationMapper: mapOperation as never },
  );
  document.openapi = '3.0.3';
  for (const [name, schema] of Object.entries(webhookEventSchemas)) {
    document.components.schemas[name] = generateSchema(schema as never);
  }
  const { parameters, paths } = webhooks();
  document.components.parameters = parameters;
  document['x-webhooks'] = paths;
  return withoutUntypedNullable(document);
}

/**
 * What subscribers receive, as the `x-webhooks` extension (OpenAPI 3.1's `webhooks`, which Redoc and
 * other tools show for 3.0 documents): one POST per event type, its body and the signature headers.
 */
function webhooks(): { parameters: Json; paths: Json } {
  const header = (name: string, description: string) => ({
    name,
    in: 'header',
    required: true,
    description,
    schema: { type: 'string' },
  });
  const signatureHeaders = [
    header('webhook-id', 'The event id, the same on every retry of the event: process each id once'),
    header('webhook-timestamp', 'Unix seconds when this attempt was signed; reject attempts older than 5 minutes'),
    header(
      'webhook-signature',
      '`v1,<base64 HMAC-SHA256 of "id.timestamp.body">` keyed with the base64 part of the subscription secret',
    ),
  ];
  const parameters = signatureHeaders.map((p) => ({ $ref: `#/components/parameters/${p.name}` }));
  const schemaOf = (type: string) =>
    type === 'ping' ? 'PingEvent' : type === 'subnet.split' ? 'SubnetSplitEvent' : 'ResourceChangeEvent';
  const paths = Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          operationId: `${type.replace(/\.(\w)/, (_, c: string) => c.toUpperCase())}Event`,
          summary: `${type} event`,
          description: 'Signed per Standard Webhooks v1; only a 2xx answer counts as delivered (see Webhooks)',
          tags: ['Webhooks'],
          // The receiver authenticates the sender by the signature headers, not by a security scheme.
          security: [],
          parameters,
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${schemaOf(type)}` } } },
          },
          responses: { '2XX': { description: 'Received; any other answer is retried on the schedule' } },
        },
      },
    ]),
  );
  return { parameters: Object.fromEntries(signatureHeaders.map((p) => [p.name, p])), paths };
}

/**
 * `z.unknown()` (values of free-form objects) renders as `{nullable: true}` without a type; any value is `{}` (its
 * description kept). OpenAPI 3.0 wants `nullable` beside a `type`: a nullable union's members are made nullable.
 */
function withoutUntypedNullable(node: any): any {
  if (Array.isArray(node)) return node.map(withoutUntypedNullable);
  if (node === null || typeof node !== 'object') return node;
  if (node.nullable === true && node.type === undefined && node.$ref === undefined) {
    const { nullable: _, ...rest } = node;
    if (Array.isArray(rest.oneOf)) rest.oneOf = rest.oneOf.map((member: any) => ({ ...member, nullable: true }));
    node = rest;
  }
  return Object.fromEntries(Object.keys(node).map((k) => [k, withoutUntypedNullable(node[k])]));
}
