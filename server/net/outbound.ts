/**
 * The one outbound-safety layer (docs/decisions.md, outbound safety): every request the service makes to a URL a
 * client gave (webhooks now, network tools later) goes through here. The host is resolved once, every
 * address is checked against the shared list, and the connection is pinned to the checked address, so a
 * name that changes its answer between the check and the connection cannot reach a refused address.
 */

import type { LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { HttpError } from '../errors';
import { formatIp, parseIp } from '../ipam';
import { describeReason, isAllowedAddress, isRefusedAddress } from './refused-ranges';

export { isRefusedAddress } from './refused-ranges';

export interface OutboundPolicy {
  /** OUTBOUND_ALLOW_CIDRS: blocks the shared list would refuse that may be reached (and over plain http). */
  allowCidrs: string[];
  resolveHost: (host: string) => Promise<string[]>;
}

export const OUTBOUND_TIMEOUT_MS = 15_000;
/** At most this much of a response is read; the rest is dropped with the connection. */
const RESPONSE_READ_LIMIT = 64 * 1024;

const invalid = (field: string, problem: string) => new HttpError(400, 'validation', `${field}: ${problem}`);

const readable = (address: string) => {
  const ip = parseIp(address);
  return ip ? formatIp(ip) : address;
};

/** The URL checked: its parsed form and every address its host resolves to (one at least, all of them allowed). */
async function checkUrl(
  url: string,
  field: string,
  policy: OutboundPolicy,
): Promise<{ target: URL; addresses: [string, ...string[]] }> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw invalid(field, 'must be a valid URL');
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') throw invalid(field, 'must be an https URL');
  if (target.username !== '' || target.password !== '') throw invalid(field, 'must not contain credentials');
  // The URL parser has already normalised IPv4 forms (0x7f.1, 2130706433 …) and bracketed IPv6 literals.
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') throw invalid(field, 'must name a host');
  let addresses: string[];
  if (parseIp(host)) addresses = [host];
  else {
    try {
      addresses = await policy.resolveHost(host);
    } catch {
      addresses = [];
    }
  }
  const [first, ...others] = addresses;
  if (first === undefined) throw invalid(field, `host ${host} does not resolve to any address`);
  for (const address of addresses) {
    const reason = isRefusedAddress(address, policy.allowCidrs);
    if (reason) throw invalid(field, `resolves to ${readable(address)}, ${describeReason(reason)}`);
  }
  if (target.protocol === 'http:' && !addresses.every((a) => isAllowedAddress(a, policy.allowCidrs))) {
    throw invalid(field, 'must be an https URL (plain http only to addresses in OUTBOUND_ALLOW_CIDRS)');
  }
  return { target, addresses: [first, ...others] };
}

/**
 * Throws HttpError 400 (code 'validation', naming the field and the problem) when the URL may not be
 * called: not https (http only when every resolved address is inside allowCidrs), has credentials,
 * resolves to nothing, or resolves to any refused address.
 */
export async function assertAllowedUrl(url: string, field: string, policy: OutboundPolicy): Promise<void> {
  await checkUrl(url, field, policy);
}

export interface PostResult {
  /** The HTTP status answered; null when no response arrived (refused, unreachable, timed out). */
  status: number | null;
  durationMs: number;
  /** Why no response arrived; never any of the remote body. */
  error?: string;
}

/**
 * POSTs `body` to `url` after the checks of assertAllowedUrl, connecting to the checked address itself.
 * Redirects are never followed (a 3xx is just a non-2xx status); the response body is read up to a small
 * limit and discarded. Never throws for network problems: they come back as `status: null` with `error`.
 */
export async function postJson(
  url: string,
  body: string,
  headers: Record<string, string>,
  policy: OutboundPolicy,
  timeoutMs = OUTBOUND_TIMEOUT_MS,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.max(0, Math.round(performance.now() - started));
  let checked: Awaited<ReturnType<typeof checkUrl>>;
  try {
    checked = await checkUrl(url, 'url', policy);
  } catch (error) {
    return { status: null, durationMs: elapsed(), error: `not sent: ${(error as Error).message}` };
  }
  const outcome = await send(checked.target, checked.addresses[0], body, headers, timeoutMs);
  return { ...outcome, durationMs: elapsed() };
}

function send(
  target: URL,
  address: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ status: number | null; error?: string }> {
  const family = parseIp(address)?.version ?? 4;
  // Every lookup the socket makes answers the checked address, whatever the name resolves to now.
  const lookup = (_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family } satisfies LookupAddress]);
    else callback(null, address, family);
  };
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: { status: number | null; error?: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      resolve(result);
    };
    const request = client.request(
      target,
      {
        method: 'POST',
        agent: false,
        lookup: lookup as never,
        headers: { 'user-agent': 'ipam-service-webhooks/1', ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? null;
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read >= RESPONSE_READ_LIMIT) finish({ status });
        });
        response.on('end', () => finish({ status }));
        response.on('error', () => finish({ status }));
        response.on('close', () => finish({ status }));
      },
    );
    const timer = setTimeout(() => finish({ status: null, error: `no response within ${timeoutMs} ms` }), timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish({ status: null, error: networkError(error) }));
    request.end(body);
  });
}

/** The cause of a failed connection, in words that never include the remote body. */
function networkError(error: NodeJS.ErrnoException): string {
  if (error.code === 'ECONNREFUSED') return 'connection refused';
  if (error.code === 'ECONNRESET') return 'connection reset';
  if (error.code === 'ETIMEDOUT') return 'connection timed out';
  return error.code ? `connection failed (${error.code})` : 'connection failed';
}
