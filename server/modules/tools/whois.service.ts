/**
 * WHOIS over port 43 from the root (TOOLS_WHOIS_ROOT, IANA by default) through its referrals — IANA's
 * `refer:` to the registry or RIR, a thin registry's `Registrar WHOIS Server:` to the registrar, ARIN's
 * `ReferralServer: whois://host[:port]` or `rwhois://host[:port]` — at most 3 servers, each resolved and
 * checked (checkedTarget) and connected to at the checked address. A referral that is refused or fails
 * ends the chain: the answers so far stand. RDAP (rdap.ts) is the fallback when no server beyond the root
 * answered (root down, refused, silent or empty, or its referral not reachable); when RDAP has no object
 * either (404) the root's answer, if any, is returned, else RDAP's 404 body with nothing parsed; 502 when
 * neither whois nor RDAP answered at all.
 *
 * `raw` is the last, most specific answer as received (control characters but newline and tab removed, cut
 * at 256 KB). `parsed` is read from it, with the fields it lacks taken from the answers before it — but never
 * from the root's when a referral was followed (IANA's answer describes the TLD or the RIR's whole block).
 */
import { Socket } from 'node:net';
import type { z } from 'zod';
import type { LookupWhoisQuery, ToolsWhoisLookup } from '../../../contract/tools.contract';
import { upstreamFailed } from '../../errors';
import { formatIp, parseIp } from '../../ipam';
import { organisationalDomain } from './domains';
import { type RdapAnswer, RdapFailed, rdapGet } from './rdap';
import { checkedTarget, type Tools } from './tools';
import {
  cleanText,
  type Parsed,
  parseRdapDomain,
  parseRdapNetwork,
  parseWhoisDomain,
  parseWhoisNetwork,
  type WhoisServer,
  whoisReferral,
} from './whois-parse';

type WhoisLookup = z.infer<typeof ToolsWhoisLookup>;

/** Servers asked at most: root, registry (or RIR), registrar (or the RIR's referral). */
export const WHOIS_MAX_HOPS = 3;
/** One answer is read up to this size, then cut (the connection is dropped). */
export const WHOIS_ANSWER_LIMIT = 256 * 1024;
const HOP_TIMEOUT_MS = 5_000;
const WHOIS_TIME_LIMIT_MS = 10_000;
const RDAP_TIME_LIMIT_MS = 8_000;
/** Addresses of one server tried in turn when a connection fails. */
const ADDRESSES_TRIED = 2;

class WhoisFailed extends Error {}

interface Answer {
  server: string;
  text: string;
  referral: WhoisServer | null;
}

export async function lookupWhois(tools: Tools, { query }: z.infer<typeof LookupWhoisQuery>): Promise<WhoisLookup> {
  const ip = parseIp(query);
  // Registries hold registered domains, not their subdomains: www.example.co.uk is asked as example.co.uk.
  const question = ip ? formatIp(ip) : organisationalDomain(query);
  const parse = (text: string) => (ip ? parseWhoisNetwork(text) : parseWhoisDomain(text, tools.now()));

  const chain = await followReferrals(tools, question, Date.now() + WHOIS_TIME_LIMIT_MS);
  const [root, ...beyond] = chain.answers;
  const beyondRoot = root !== undefined && (beyond.length > 0 || root.referral === null);
  if (beyondRoot) return fromWhois(query, root, beyond, parse);

  // Below the root nothing answered: RDAP, then the root's answer, then RDAP's "no such object".
  let rdap: RdapAnswer | null = null;
  let rdapProblem = '';
  try {
    rdap = await rdapGet(tools, `/${ip ? 'ip' : 'domain'}/${question}`, Date.now() + RDAP_TIME_LIMIT_MS);
  } catch (error) {
    if (!(error instanceof RdapFailed)) throw error;
    rdapProblem = error.message;
  }
  const raw = rdap && cleanText(rdap.text.slice(0, WHOIS_ANSWER_LIMIT));
  if (rdap?.status === 200) {
    const parsed = ip ? parseRdapNetwork(rdap.json) : parseRdapDomain(rdap.json, tools.now());
    return { query, raw: raw ?? '', parsed };
  }
  if (root) return fromWhois(query, root, beyond, parse);
  if (rdap) return { query, raw: raw ?? '', parsed: {} };
  throw upstreamFailed(`query: no whois server answered (${chain.problem}) and RDAP failed (${rdapProblem})`);
}

/** The lookup from the root's answer and those of the servers it referred to (`beyond`, in order). */
function fromWhois(query: string, root: Answer, beyond: Answer[], parse: (text: string) => Parsed): WhoisLookup {
  const specific = beyond.length > 0 ? beyond : [root];
  let parsed: Parsed = {};
  for (const answer of specific) {
    const next = parse(answer.text);
    // expires_in_days belongs to the expiry date it was computed from.
    if ('expires' in next) delete parsed.expires_in_days;
    parsed = { ...parsed, ...next };
  }
  return { query, raw: (beyond.at(-1) ?? root).text, parsed };
}

/** Asks the root, then each server referred to, until no referral, a failure, a server asked before, or the cap. */
async function followReferrals(
  tools: Tools,
  question: string,
  deadline: number,
): Promise<{ answers: Answer[]; problem: string }> {
  const answers: Answer[] = [];
  const asked = new Set<string>();
  let next: WhoisServer | null = { ...tools.config.whoisRoot, protocol: 'whois' };
  while (next && answers.length < WHOIS_MAX_HOPS) {
    const server: WhoisServer = next;
    const key = `${server.host.toLowerCase()}:${server.port}`;
    if (asked.has(key)) break;
    asked.add(key);
    let addresses: string[];
    try {
      addresses = await checkedTarget(tools, server.host, 'whois server');
    } catch (error) {
      return { answers, problem: `not contacted: ${(error as Error).message}` };
    }
    let text: string;
    try {
      text = await askServer(addresses, server, question, deadline);
    } catch (error) {
      return { answers, problem: `${server.host}: ${(error as Error).message}` };
    }
    if (text.trim() === '') return { answers, problem: `${server.host} answered nothing` };
    const referral = whoisReferral(text);
    answers.push({ server: server.host, text, referral });
    next = referral;
  }
  return { answers, problem: '' };
}

/** The answer of the first of the (checked) addresses that can be reached. */
async function askServer(addresses: string[], server: WhoisServer, question: string, deadline: number) {
  let failure: Error = new WhoisFailed('no address');
  for (const address of addresses.slice(0, ADDRESSES_TRIED)) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new WhoisFailed('no answer in time');
    try {
      return await ask(address, server, question, Math.min(HOP_TIMEOUT_MS, remaining));
    } catch (error) {
      failure = error as Error;
    }
  }
  throw failure;
}

/**
 * Sends `question` CRLF to `address` and reads to the close (RWhois: to its `%ok`/`%error` line), cut at
 * WHOIS_ANSWER_LIMIT. What arrived before a timeout or a reset still counts as the answer.
 */
function ask(address: string, server: WhoisServer, question: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const socket = new Socket();
    const done = (failure: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (failure && size === 0) reject(failure);
      else resolve(cleanText(Buffer.concat(chunks).subarray(0, WHOIS_ANSWER_LIMIT).toString('utf8')));
    };
    const timer = setTimeout(() => done(new WhoisFailed(`no answer within ${timeoutMs} ms`)), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= WHOIS_ANSWER_LIMIT) done(null);
      else if (server.protocol === 'rwhois' && /^%(ok|error)\b/m.test(Buffer.concat(chunks).toString('latin1')))
        done(null);
    });
    socket.on('end', () => done(null));
    socket.on('close', () => done(new WhoisFailed('connection closed')));
    socket.on('error', (error: NodeJS.ErrnoException) =>
      done(new WhoisFailed(error.code === 'ECONNREFUSED' ? 'connection refused' : 'connection failed')),
    );
    socket.connect(server.port, address, () => socket.write(`${question}\r\n`));
  });
}
