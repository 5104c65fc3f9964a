import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../openapi/document';
import { useTestServer } from '../support/factories';

const committedPath = 'openapi/openapi.json';
const committed = JSON.parse(readFileSync(committedPath, 'utf8'));
const operations = Object.values<Record<string, any>>(committed.paths).flatMap((item) => Object.values(item));

const t = useTestServer({}, false);

describe('the OpenAPI document', () => {
  it('is current: the committed openapi.json equals the one derived from the contract (else run npm run openapi)', () => {
    expect(committed, 'openapi/openapi.json is stale: run npm run openapi').toEqual(buildOpenApiDocument());
  });

  it('passes @apidevtools/swagger-parser validation', async () => {
    await expect(SwaggerParser.validate(structuredClone(committed))).resolves.toBeTruthy();
  });

  it('passes redocly lint with the recommended ruleset with no errors', async () => {
    const { stdout } = await promisify(execFile)(
      'node_modules/.bin/redocly',
      ['lint', committedPath, '--format=json'],
      {
        maxBuffer: 32 * 1024 * 1024,
      },
    ).catch((error) => error);
    const report = JSON.parse(stdout);
    const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error');
    expect(errors, JSON.stringify(errors, null, 1)).toEqual([]);
  }, 60_000);

  it('gives every operation a unique verb-noun operationId, a summary, a description, a tag and security', () => {
    const ids = operations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of operations) {
      expect(op.operationId).toMatch(/^[a-z]+[A-Z][A-Za-z0-9]*$/);
      expect(op.summary, op.operationId).toBeTruthy();
      expect(op.description, op.operationId).toBeTruthy();
      expect(op.tags, op.operationId).toHaveLength(1);
      expect(op.security, op.operationId).toBeDefined();
    }
  });

  it('leaves the network tools and the public sign-in routes without security', () => {
    const publicIds = operations.filter((op) => op.security.length === 0).map((op) => op.operationId);
    expect(publicIds).toEqual(
      expect.arrayContaining(['sendMagicLink', 'verifyMagicLink', 'acceptInvitation', 'lookupDns', 'getMyIp']),
    );
    const folders = operations.find((op) => op.operationId === 'listFolders');
    expect(folders.security).toEqual([{ ApiKey: [] }, { SessionCookie: [] }]);
  });

  it('documents the security schemes: a bearer API key and the service_session cookie', () => {
    expect(committed.components.securitySchemes).toMatchObject({
      ApiKey: { type: 'http', scheme: 'bearer' },
      SessionCookie: { type: 'apiKey', in: 'cookie', name: 'service_session' },
    });
  });

  it('marks JSON request bodies required and documents response headers', () => {
    const create = committed.paths['/api/v1/folders'].post;
    expect(create.requestBody.required).toBe(true);
    expect(Object.keys(create.responses['201'].headers)).toEqual([
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Idempotent-Replayed',
    ]);
    expect(create.responses['429'].headers['Retry-After']).toBeDefined();
    expect(create.parameters).toContainEqual(expect.objectContaining({ name: 'idempotency-key', in: 'header' }));
    expect(create.responses['409'].headers['Retry-After']).toBeDefined();
    const list = committed.paths['/api/v1/subnets/{id}/addresses'].get;
    expect(list.responses['200'].headers['X-Total-Count']).toBeDefined();
  });

  it('names the error schema ApiError, not Error', () => {
    expect(committed.components.schemas.ApiError).toBeDefined();
    expect(committed.components.schemas.Error).toBeUndefined();
  });

  it('puts the limits of the specification in the schemas', () => {
    const schemas = committed.components.schemas;
    expect(schemas.CreateVlanBody.properties.vlan_number).toMatchObject({ minimum: 1, maximum: 4094 });
    expect(schemas.BatchCreateAddressesBody.properties.ips.maxItems).toBe(500);
    expect(schemas.ImportSubnetsBody.properties.subnets.maxItems).toBe(1000);
    const limit = (path: string, name: string) =>
      committed.paths[path].get.parameters.find((p: { name: string }) => p.name === name).schema;
    expect(limit('/api/v1/subnets/{id}/addresses', 'limit')).toMatchObject({ maximum: 1000, default: 1000 });
    expect(limit('/api/v1/subnets/{id}/free-blocks', 'limit')).toMatchObject({ maximum: 50, default: 5 });
    expect(limit('/api/v1/activity', 'limit')).toMatchObject({ maximum: 500, default: 50 });
    expect(limit('/api/v1/webhooks/{id}/deliveries', 'limit')).toMatchObject({ maximum: 100, default: 50 });
    expect(limit('/api/v1/search', 'q')).toMatchObject({ maxLength: 500 });
  });

  it('describes every component schema, every field and every parameter, and gives every schema an example', () => {
    const missing: string[] = [];
    const walk = (schema: Record<string, any> | undefined, path: string) => {
      if (!schema || typeof schema !== 'object') return;
      for (const key of ['allOf', 'oneOf', 'anyOf'])
        for (const [i, sub] of (schema[key] ?? []).entries()) walk(sub, `${path}/${key}[${i}]`);
      if (schema.items) walk(schema.items, `${path}[]`);
      if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, `${path}{}`);
      for (const [name, property] of Object.entries<Record<string, any>>(schema.properties ?? {})) {
        if (property.$ref) continue;
        if (!property.description) missing.push(`${path}.${name}: description`);
        walk(property, `${path}.${name}`);
      }
    };
    for (const [name, schema] of Object.entries<Record<string, any>>(committed.components.schemas)) {
      if (!schema.description) missing.push(`${name}: description`);
      if (schema.example === undefined && schema.examples === undefined) missing.push(`${name}: example`);
      walk(schema, name);
    }
    for (const op of operations)
      for (const parameter of op.parameters ?? []) {
        if (!parameter.description) missing.push(`${op.operationId} ${parameter.in} ${parameter.name}: description`);
      }
    expect(missing).toEqual([]);
  });
});

describe('served documentation', () => {
  it('serves the document at /openapi.json', async () => {
    const response = await fetch(`${t.server.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(committed);
  });

  it("answers a request carrying the document's ETag with 304 and no body", async () => {
    const etag = (await fetch(`${t.server.url}/openapi.json`)).headers.get('etag');
    expect(etag).toMatch(/^"[\w-]{27}"$/);
    const response = await fetch(`${t.server.url}/openapi.json`, { headers: { 'if-none-match': etag as string } });
    expect([response.status, await response.text()]).toEqual([304, '']);
  });

  it('sends the document gzipped to a client that accepts it, and plain to one that does not', async () => {
    const { request } = await import('node:http');
    const encodingOf = (acceptEncoding: string) =>
      new Promise<string | undefined>((resolve, reject) => {
        request(`${t.server.url}/openapi.json`, { headers: { 'accept-encoding': acceptEncoding } }, (res) => {
          res.resume();
          resolve(res.headers['content-encoding']);
        })
          .on('error', reject)
          .end();
      });
    expect([await encodingOf('gzip, br'), await encodingOf('identity')]).toEqual(['gzip', undefined]);
  });

  it('serves Swagger UI at /docs', async () => {
    const response = await fetch(`${t.server.url}/docs/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('swagger-ui');
  });
});
