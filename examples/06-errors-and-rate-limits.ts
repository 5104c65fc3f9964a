/**
 * 06 — Handle errors and rate limits. Every error status throws an `ApiError` subclass (NotFoundError,
 * BadRequestError, PlanLimitError, RateLimitError …) with `status`, `code`, `message`, the response headers
 * and the request id; no answer at all throws `ApiConnectionError`. The client retries by itself: network
 * errors and 5xx for GET/PATCH/DELETE, and 429 for any method, after `Retry-After`.
 *
 *   IPAM_API_KEY=svc_… npx tsx examples/06-errors-and-rate-limits.ts
 */
import {
  ApiConnectionError,
  ApiError,
  BadRequestError,
  createClient,
  NotFoundError,
  PlanLimitError,
  RateLimitError,
  rateLimitOf,
} from '../clients/typescript/src';

const apiKey = process.env.IPAM_API_KEY;
if (!apiKey) throw new Error('Set IPAM_API_KEY to a key from `npm run admin -- create-key`');
const baseUrl = process.env.IPAM_BASE_URL ?? 'http://localhost:3000';
const ipam = createClient({ baseUrl, apiKey });

// 1. Tell errors apart by class (or by `status` / `code`).
async function attempt(label: string, call: () => Promise<unknown>) {
  try {
    await call();
    console.log(`${label}: ok`);
  } catch (error) {
    if (error instanceof NotFoundError) console.log(`${label}: not found (${error.code})`);
    else if (error instanceof BadRequestError) console.log(`${label}: invalid — ${error.message}`);
    else if (error instanceof PlanLimitError) console.log(`${label}: upgrade needed — ${error.message}`);
    else if (error instanceof ApiError) console.log(`${label}: ${error.status} ${error.code}`);
    else throw error;
    if (error instanceof ApiError) console.log(`  quote request id ${error.requestId} to support`);
  }
}
await attempt('get a missing subnet', () => ipam.subnets.get('00000000-0000-4000-8000-000000000000'));
await attempt('VLAN 4095', () => ipam.vlans.create({ vlan_number: 4095 }));
await attempt('the same /16 twice', async () => {
  const created = await ipam.subnets.create({ network: '10.250.0.0/16' });
  try {
    await ipam.subnets.create({ network: '10.250.0.0/16' }); // the same network again: 400
  } finally {
    await ipam.subnets.delete('warnings' in created ? created.subnet.id : created.id);
  }
});

// 2. Rate limits: every authenticated answer says how many requests are left in the minute. The
//    operationId form resolves to {status, data, headers} when you want the headers of a success.
const answer = await ipam.listFolders();
const limit = rateLimitOf(answer.headers);
console.log(`rate limit: ${limit?.remaining}/${limit?.limit} left until ${limit?.reset.toISOString()}`);

// 3. A 429 is retried after Retry-After. To watch it without sending thousands of requests, this client's
//    fetch answers the first request with a 429 itself, as the service would, and its sleep only logs.
let first = true;
const patient = createClient({
  baseUrl,
  apiKey,
  fetch: async (input, init) => {
    if (!first) return fetch(input, init);
    first = false;
    const headers = { 'content-type': 'application/json', 'retry-after': '2' };
    return new Response(JSON.stringify({ error: 'Rate limit exceeded', code: 'rate_limited' }), {
      status: 429,
      headers,
    });
  },
  sleep: async (ms) => console.log(`  429: the SDK waits ${ms} ms (Retry-After), then retries`),
});
console.log(`after the retry: ${(await patient.folders.list()).length} folder(s)`);

// 4. When retries run out the error reaches you, with `retryAfter` to schedule the next attempt.
const strict = createClient({
  baseUrl,
  apiKey,
  maxRetries: 0,
  fetch: async () => new Response('{}', { status: 429, headers: { 'retry-after': '30' } }),
});
await strict.folders.list().catch((error) => {
  if (error instanceof RateLimitError) console.log(`gave up: try again in ${error.retryAfter} s`);
  else throw error;
});

// 5. No answer at all: ApiConnectionError (ApiTimeoutError after `timeoutMs`), after the retries.
const offline = createClient({ baseUrl: 'http://127.0.0.1:49151', apiKey, maxRetries: 1, sleep: async () => {} });
await offline.folders.list().catch((error) => {
  if (error instanceof ApiConnectionError) console.log(`unreachable: ${error.message}`);
  else throw error;
});
