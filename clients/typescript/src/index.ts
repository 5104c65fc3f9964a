/**
 * @ipam/sdk: the orval-generated client of the IPAM Service API (./generated, never edited by hand:
 * `npm run sdk` rewrites it from openapi/openapi.json) plus this small hand-written layer, which binds
 * the generated operations to one client's configuration.
 */
import * as endpoints from './generated/endpoints.js';
import type { ClientConfig, RequestOptions } from './http.js';

export type * from './generated/endpoints.js';
export * from './generated/endpoints.schemas.js';
export type { ClientConfig, HttpResponse, RequestOptions } from './http.js';

type Endpoints = typeof endpoints;

/** The API's operations, named by their OpenAPI operationId (the generated module also exports URL helpers). */
export type OperationName = {
  [K in keyof Endpoints]: Endpoints[K] extends (...args: never[]) => Promise<unknown> ? K : never;
}[keyof Endpoints];

/**
 * Every operation of the API, bound to one base URL and API key. Each resolves to `{data, status, headers}`
 * for any HTTP status; checking `status` narrows `data` to that response's schema (`ApiError` for errors).
 */
export type IpamClient = { readonly [K in OperationName]: Endpoints[K] };

/** orval names the URL builder of operation `fooBar` `getFooBarUrl`. */
function isUrlHelper(name: string): boolean {
  const match = /^get(\w+)Url$/.exec(name);
  return match !== null && `${match[1].charAt(0).toLowerCase()}${match[1].slice(1)}` in endpoints;
}

export function createClient(config: ClientConfig): IpamClient {
  const bound: ClientConfig = Object.freeze({ ...config });
  const client: Record<string, unknown> = {};
  for (const [name, operation] of Object.entries(endpoints)) {
    if (typeof operation !== 'function' || isUrlHelper(name)) continue;
    const call = operation as (...args: unknown[]) => Promise<unknown>;
    // Every generated operation declares its parameters, then `options` last: pad the arguments the
    // caller left out so the client's configuration always lands in `options`.
    const optionsIndex = call.length - 1;
    client[name] = (...args: unknown[]) => {
      const params = Array.from({ length: optionsIndex }, (_, i) => args[i]);
      const options = args[optionsIndex] as RequestOptions | undefined;
      return call(...params, { client: bound, ...options });
    };
  }
  return Object.freeze(client) as IpamClient;
}
