/**
 * /tools/headers: the caller's own request, or a remote URL's response headers with a security checklist.
 * A remote URL is fetched with GET, hop by hop: every hop's host is checked like the URL itself
 * (checkedTarget) and the connection made to the checked address; redirects are followed at most 5 times.
 * Only the status and headers are read: the body is dropped with the connection.
 */
import type { IncomingHttpHeaders } from 'node:http';
import http from 'node:http';
import https from 'node:https';
import type { z } from 'zod';
import type {
  InspectHttpHeadersQuery,
  ToolsHeadersResult,
  ToolsRemoteHeaders,
  ToolsRequestHeaders,
  ToolsSecurityChecklist,
} from '../../../contract/tools.contract';
import { upstreamFailed } from '../../errors';
import { parseIp } from '../../ipam';
import type { CallerRequest } from './myip.service';
import { cleanText } from './tls.service';
import { checkedTarget, type Tools } from './tools';

/** Redirects followed before giving up (502). */
export const MAX_REDIRECTS = 5;
/** Each hop: connect, TLS and response headers. */
const HOP_TIMEOUT_MS = 5_000;
/** The whole chain of hops. */
const TOTAL_TIMEOUT_MS = 10_000;
const MAX_HEADERS = 100;
const MAX_VALUE = 1024;
/** Credentials the caller sent are not echoed (a page must not read them back through this endpoint). */
const REDACTED = new Set(['authorization', 'proxy-authorization', 'cookie']);
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function inspectHeaders(
  tools: Tools,
  query: z.infer<typeof InspectHttpHeadersQuery>,
  caller: CallerRequest,
): Promise<z.infer<typeof ToolsHeadersResult>> {
  return query.url === undefined ? callerHeaders(caller) : remoteHeaders(tools, query.url);
}

/** The caller's request as received: every header, credentials redacted. */
export function callerHeaders(caller: CallerRequest): z.infer<typeof ToolsRequestHeaders> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(caller.headers)) {
    if (value === undefined) continue;
    headers[name] = REDACTED.has(name) ? '[redacted]' : Array.isArray(value) ? value.join(', ') : value;
  }
  const proto = caller.httpVersion.startsWith('2') ? 'HTTP/2' : `HTTP/${caller.httpVersion}`;
  return { headers, method: caller.method, proto };
}

/** The response headers as reported: lower-case names (Node's), bounded, control characters removed. */
export function reportedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const reported: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers).slice(0, MAX_HEADERS)) {
    if (value === undefined) continue;
    reported[cleanText(name, 128)] = Array.isArray(value)
      ? value.slice(0, MAX_HEADERS).map((v) => cleanText(v, MAX_VALUE))
      : cleanText(value, MAX_VALUE);
  }
  return reported;
}

/** Which security headers a response has; HSTS counts only over https (browsers ignore it over http). */
export function securityChecklist(
  headers: IncomingHttpHeaders,
  https: boolean,
): z.infer<typeof ToolsSecurityChecklist> {
  const header = (name: string) => {
    const value = headers[name];
    if (value === undefined) return { present: false, value: null };
    return { present: true, value: cleanText(Array.isArray(value) ? value.join(', ') : value, MAX_VALUE) };
  };
  return {
    hsts: https ? header('strict-transport-security') : { present: false, value: null },
    csp: header('content-security-policy'),
    x_frame_options: header('x-frame-options'),
    x_content_type_options: header('x-content-type-options'),
    referrer_policy: header('referrer-policy'),
    permissions_policy: header('permissions-policy'),
  };
}

/** Where a response redirects to: an http(s) URL, or null when it is not a redirect to one. */
export function redirectTarget(status: number, location: string | undefined, base: URL): URL | null {
  if (!REDIRECTS.has(status) || location === undefined) return null;
  try {
    const next = new URL(location, base);
    return next.protocol === 'http:' || next.protocol === 'https:' ? next : null;
  } catch {
    return null;
  }
}

async function remoteHeaders(tools: Tools, given: string): Promise<z.infer<typeof ToolsRemoteHeaders>> {
  const deadline = Date.now() + TOTAL_TIMEOUT_MS;
  let url = new URL(given);
  for (let redirects = 0; ; redirects++) {
    const shown = cleanText(url.href, 256);
    const field = redirects === 0 ? 'url' : `url (redirected to ${shown})`;
    const addresses = await checkedTarget(tools, url.hostname, field);
    const address = addresses.find((a) => !a.includes(':')) ?? addresses[0];
    const timeoutMs = Math.max(1, Math.min(HOP_TIMEOUT_MS, deadline - Date.now()));
    const response = await fetchHead(url, address, timeoutMs).catch((error: Error) => {
      throw upstreamFailed(`url: cannot fetch ${shown}: ${error.message}`);
    });
    const next = redirectTarget(response.status, response.headers.location, url);
    if (next === null) {
      return {
        url: url.href,
        status: response.status,
        headers: reportedHeaders(response.headers),
        security_checklist: securityChecklist(response.headers, url.protocol === 'https:'),
      };
    }
    if (redirects === MAX_REDIRECTS) throw upstreamFailed(`url: more than ${MAX_REDIRECTS} redirects`);
    url = next;
  }
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  HPE_HEADER_OVERFLOW: 'response headers too large',
};

/**
 * GET `url` from `address` (the checked one: no lookup is made) and answer its status and headers, then drop
 * the connection without reading the body. Credentials in the URL are never sent; certificates are not
 * verified (a diagnostic read: /tools/ssl judges certificates).
 */
function fetchHead(
  url: URL,
  address: string,
  timeoutMs: number,
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  const secure = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request({
      host: address,
      port: url.port || (secure ? 443 : 80),
      path: `${url.pathname}${url.search}`,
      method: 'GET',
      agent: false,
      // SNI: the host name (none for an IP literal); the certificate is read, not judged.
      servername: parseIp(hostname) ? '' : hostname,
      rejectUnauthorized: false,
      headers: { host: url.host, 'user-agent': 'ipam-service-tools/1', accept: '*/*' },
    });
    const timer = setTimeout(() => {
      request.destroy();
      reject(new Error(`no response within ${timeoutMs} ms`));
    }, timeoutMs);
    request.on('response', (response) => {
      clearTimeout(timer);
      const status = response.statusCode ?? 0;
      if (status < 100 || status > 599) reject(new Error(`invalid HTTP status ${status}`));
      else resolve({ status, headers: response.headers });
      response.destroy();
      request.destroy();
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      const code = error.code ?? 'unknown error';
      reject(new Error(NETWORK_ERRORS[code] ?? code));
    });
    request.end();
  });
}
