/**
 * The RDAP client whois and ASN lookups fall back to: a GET of `<TOOLS_RDAP_URL><path>` (rdap.org by
 * default, which redirects to the registry holding the answer), redirects followed hop by hop. As in
 * server/net/outbound.ts, each hop's host is resolved once, every address checked (checkedTarget), and the
 * connection pinned to the checked address; https only, plain http only to addresses OUTBOUND_ALLOW_CIDRS
 * permits. Timeouts per hop and in all, and a cap on the body read.
 */
import type { LookupAddress } from 'node:dns';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { parseIp } from '../../ipam';
import { isAllowedAddress } from '../../net/refused-ranges';
import { checkedTarget, type Tools } from './tools';

export const RDAP_MAX_REDIRECTS = 3;
const HOP_TIMEOUT_MS = 5_000;
/** A body beyond this is not read (and the answer not used): RDAP objects are tens of kilobytes. */
const BODY_LIMIT = 1024 * 1024;

/** Why RDAP gave nothing usable, in words that never quote the remote body. */
export class RdapFailed extends Error {}

export interface RdapAnswer {
  /** The URL that answered (after redirects). */
  url: string;
  /** 200, or 404 when the registry holds no such object. */
  status: 200 | 404;
  /** The body as received (200) or null (404). */
  json: unknown;
  text: string;
}

/**
 * Whether a URL may be fetched once its host resolved to `addresses` (all already checked against the
 * refused list): the reason it may not, or null. Plain http is for addresses OUTBOUND_ALLOW_CIDRS permits.
 */
export function rdapUrlProblem(url: URL, addresses: string[], allowCidrs: string[]): string | null {
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return `${url.protocol} is not http(s)`;
  if (url.username || url.password) return 'the URL carries credentials';
  if (url.protocol === 'http:' && !addresses.every((a) => isAllowedAddress(a, allowCidrs)))
    return 'plain http to an address OUTBOUND_ALLOW_CIDRS does not permit';
  return null;
}

/** GETs `path` (`/domain/example.com`, `/ip/192.0.2.1`, `/autnum/13335`) under the configured RDAP base. */
export async function rdapGet(tools: Tools, path: string, deadline: number): Promise<RdapAnswer> {
  if (!tools.config.rdapUrl) throw new RdapFailed('no RDAP service is configured');
  let url = new URL(tools.config.rdapUrl + path);
  for (let redirects = 0; ; redirects++) {
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: [string, ...string[]];
    try {
      addresses = await checkedTarget(tools, host, 'rdap');
    } catch (error) {
      throw new RdapFailed(`not contacted: ${(error as Error).message}`);
    }
    const problem = rdapUrlProblem(url, addresses, tools.allowCidrs);
    if (problem) throw new RdapFailed(`not contacted: ${problem}`);
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new RdapFailed('no answer in time');
    const answer = await get(url, addresses[0], Math.min(HOP_TIMEOUT_MS, remaining));
    if (answer.location !== undefined) {
      if (redirects >= RDAP_MAX_REDIRECTS) throw new RdapFailed(`more than ${RDAP_MAX_REDIRECTS} redirects`);
      try {
        url = new URL(answer.location, url);
      } catch {
        throw new RdapFailed('a redirect to an invalid URL');
      }
      continue;
    }
    if (answer.status === 404) return { url: url.href, status: 404, json: null, text: answer.body };
    if (answer.status !== 200) throw new RdapFailed(`HTTP ${answer.status}`);
    try {
      return { url: url.href, status: 200, json: JSON.parse(answer.body), text: answer.body };
    } catch {
      throw new RdapFailed('the answer is not JSON');
    }
  }
}

interface RawAnswer {
  status: number;
  /** Set on a 3xx with a Location header. */
  location?: string;
  body: string;
}

/** One GET to `url` over a connection to `address` (the checked one), within `timeoutMs`. */
function get(url: URL, address: string, timeoutMs: number): Promise<RawAnswer> {
  const family = parseIp(address)?.version ?? 4;
  // Every lookup the socket makes answers the checked address, whatever the name resolves to now.
  const lookup = (_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family } satisfies LookupAddress]);
    else callback(null, address, family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (outcome: RawAnswer | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const request = client.request(
      url,
      {
        method: 'GET',
        agent: false,
        lookup: lookup as never,
        headers: { accept: 'application/rdap+json, application/json', 'user-agent': 'ipam-service-tools/1' },
      },
      (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        const location = response.headers.location;
        if (status >= 300 && status < 400 && location) {
          finish({ status, location, body: '' });
          return;
        }
        const chunks: Buffer[] = [];
        let read = 0;
        response.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > BODY_LIMIT) finish(new RdapFailed(`the answer is larger than ${BODY_LIMIT} bytes`));
          else chunks.push(chunk);
        });
        response.on('end', () => finish({ status, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', () => finish(new RdapFailed('the connection broke')));
        response.on('close', () => finish(new RdapFailed('the connection broke')));
      },
    );
    const timer = setTimeout(() => finish(new RdapFailed(`no answer within ${timeoutMs} ms`)), timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish(new RdapFailed(error.code === 'ECONNREFUSED' ? 'connection refused' : 'connection failed')),
    );
    request.end();
  });
}
