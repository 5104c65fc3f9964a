import { randomBytes } from 'node:crypto';
import type { AppRoute } from '@ts-rest/core';
import type { OperationId } from '../../contract/routes';
import { route } from './routes';

/**
 * A response as received. `Id` is the operation called (any of them when not known statically); the body is
 * not checked yet, so `unknown`: `expectStatus` checks it against the contract and answers it typed.
 */
export interface ApiResponse<Id extends OperationId = OperationId> {
  operationId: Id;
  route: AppRoute;
  status: number;
  headers: Headers;
  text: string;
  body: unknown;
}

/**
 * A client address of its own (10.0.0.0/8, random), for the `x-forwarded-for` header: public routes are
 * limited per IP, and on PostgreSQL the counters are shared by every test process of the run.
 */
export function clientIp(): string {
  return `10.${[...randomBytes(3)].join('.')}`;
}

/**
 * Waits for the next clock minute when less than `needMs` is left of this one. The per-address limits count in
 * fixed windows of a clock minute, so a test counting up to one must not straddle two (its 11th request would
 * start a fresh count: seen in CI on a loaded machine).
 */
export async function inOneMinuteWindow(needMs = 10_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

export type Credentials = { key: string } | { session: string; csrf?: boolean } | { authorization: string } | null;

export interface CallOptions {
  params?: Record<string, string>;
  /** A list is sent as the parameter repeated. */
  query?: Record<string, string | number | boolean | string[]>;
  /** A JSON value, or a raw string sent as is. */
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  as?: Credentials;
}

/** Calls a route of the contract by operationId over real HTTP. */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly credentials: Credentials = null,
  ) {}

  as(credentials: Credentials): ApiClient {
    return new ApiClient(this.baseUrl, credentials);
  }

  async call<Id extends OperationId>(operationId: Id, options: CallOptions = {}): Promise<ApiResponse<Id>> {
    const r = route(operationId);
    const path = r.path.replace(/:(\w+)/g, (_, name) => {
      const value = options.params?.[name];
      if (value === undefined) throw new Error(`${operationId}: missing path param ${name}`);
      return encodeURIComponent(value);
    });
    const url = new URL(path, this.baseUrl);
    for (const [k, v] of Object.entries(options.query ?? {})) {
      for (const value of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(value));
    }
    const headers: Record<string, string> = {
      ...authHeaders(options.as !== undefined ? options.as : this.credentials),
    };
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, options.headers);
    const response = await fetch(url, { method: r.method, headers, body, redirect: 'manual' });
    const text = await response.text();
    let parsed: unknown = text;
    if (response.headers.get('content-type')?.includes('application/json')) parsed = JSON.parse(text);
    return { operationId, route: r, status: response.status, headers: response.headers, text, body: parsed };
  }
}

function authHeaders(credentials: Credentials): Record<string, string> {
  if (!credentials) return {};
  if ('key' in credentials) return { authorization: `Bearer ${credentials.key}` };
  if ('authorization' in credentials) return { authorization: credentials.authorization };
  const headers: Record<string, string> = { cookie: `service_session=${credentials.session}` };
  if (credentials.csrf !== false) headers['x-requested-with'] = 'XMLHttpRequest';
  return headers;
}
