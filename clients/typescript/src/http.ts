// The generated client reads request headers with `Headers#entries()`, which TypeScript declares in the
// DOM.Iterable lib; the reference keeps the SDK compiling under a `lib: ["DOM"]`-only configuration.

/**
 * Where and as whom a client talks to the API. Each `createClient()` instance carries its own: there is
 * no module-level configuration.
 */
export interface ClientConfig {
  /** Origin (and optional path prefix) of the service, e.g. `https://ipam.example.com`. The generated
   * paths already start with `/api/v1`. */
  baseUrl: string;
  /** API key (`svc_…`), sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** The fetch implementation; `globalThis.fetch` when absent. */
  fetch?: typeof globalThis.fetch;
  /** Headers sent with every request (per-call headers override them). */
  headers?: Record<string, string>;
}

/** The last argument of every generated operation: fetch options plus, when bound, the client's config. */
export type RequestOptions = RequestInit & { client?: ClientConfig };

/** What every generated operation resolves to; the generated types narrow `data` by `status`. */
export interface HttpResponse<T = unknown> {
  data: T;
  status: number;
  headers: Headers;
}

/**
 * The fetch mutator of the orval-generated client (`override.mutator`). It resolves the generated path
 * against the caller's base URL, adds the API key, and returns `{data, status, headers}` for every HTTP
 * status: an error status is a value the caller narrows on, not an exception. Network failures reject.
 * Bodies: JSON when the response says so, text otherwise (CSV exports), `undefined` when empty.
 */
export async function ipamFetch<T>(url: string, options: RequestOptions = {}): Promise<T> {
  const { client, headers: requestHeaders, ...init } = options;
  const headers = new Headers(client?.headers);
  if (client?.apiKey) headers.set('authorization', `Bearer ${client.apiKey}`);
  for (const [name, value] of headerEntries(requestHeaders)) headers.set(name, value);
  const target = client ? `${client.baseUrl.replace(/\/+$/, '')}${url}` : url;
  const response = await (client?.fetch ?? globalThis.fetch)(target, { ...init, headers });
  const result: HttpResponse = { data: await readBody(response), status: response.status, headers: response.headers };
  return result as T;
}

/** Header pairs from any HeadersInit, or from the `{name: string | string[]}` records the generated code builds. */
function headerEntries(init: unknown): [string, string][] {
  if (!init) return [];
  if (init instanceof Headers) return [...init.entries()];
  if (Array.isArray(init)) return init.map(([name, value]) => [String(name), String(value)]);
  return Object.entries(init as Record<string, unknown>)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]);
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  const type = response.headers.get('content-type') ?? '';
  return /[/+]json\b/i.test(type) ? JSON.parse(text) : text;
}
