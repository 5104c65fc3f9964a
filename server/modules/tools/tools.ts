/**
 * What every network tool works with: its configuration, the outbound rules, and how the server resolves
 * names. Tools make the server connect out on anyone's behalf, so every target (and every NS address, whois
 * referral and redirect hop) goes through `checkedTarget`: resolved, and refused with a 400 when any address
 * it resolves to is in the shared refused list (server/net/refused-ranges.ts) and not in OUTBOUND_ALLOW_CIDRS.
 */
import { getServers } from 'node:dns';
import type { ToolsConfig } from '../../config';
import type { ServerContext } from '../../context';
import { HttpError, upstreamFailed } from '../../errors';
import { formatIp, parseIp } from '../../ipam';
import { describeReason, isRefusedAddress } from '../../net/refused-ranges';
import { type DnsServer, DnsUnreachable, queryDns } from './dns-client';

export interface Tools {
  config: ToolsConfig;
  allowCidrs: string[];
  /** The server's own resolver for its lookups (TOOLS_RECURSIVE_RESOLVER, else the system's first nameserver). */
  resolver: DnsServer;
  /** Every address a name resolves to (the server's one way to resolve names: see `resolverOfHosts`). */
  resolveHost: (host: string) => Promise<string[]>;
  now: () => Date;
  /** Runs a tool request within the process's cap on tool requests at once (TOOLS_MAX_CONCURRENT). */
  limited: <T>(run: () => Promise<T>) => Promise<T>;
}

/** Only what the tools use of the server's context (so a test can build them from a configuration). */
export function toolsOf(context: Pick<ServerContext, 'config' | 'resolveHost' | 'now'>): Tools {
  return {
    config: context.config.tools,
    allowCidrs: context.config.outboundAllowCidrs,
    resolver: context.config.tools.recursiveResolver ?? systemResolver(),
    resolveHost: context.resolveHost,
    now: context.now,
    limited: concurrencyLimit(context.config.tools.maxConcurrentRuns),
  };
}

/**
 * At most `limit` runs at once; the others wait in arrival order. The per-IP rate limits bound each client,
 * this bounds the sockets every client together can make the process open (each run ends within its
 * timeouts, so the queue drains).
 */
export function concurrencyLimit(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(run: () => Promise<T>): Promise<T> => {
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await run();
    } finally {
      // The slot passes straight to the next in line, so `running` counts it throughout.
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/**
 * How the server resolves names (tool targets, webhook hosts): A and AAAA at TOOLS_RECURSIVE_RESOLVER when it
 * is set, else the system's resolver (`system`).
 */
export function resolverOfHosts(config: ToolsConfig, system: (host: string) => Promise<string[]>) {
  const { recursiveResolver } = config;
  return recursiveResolver ? (host: string) => addressesOf(recursiveResolver, host) : system;
}

/** The first nameserver of the system's configuration (`[v6]:port`, `v4:port` or a bare address). */
function systemResolver(): DnsServer {
  const [first = '127.0.0.1'] = getServers();
  const match = /^\[(.+)\]:(\d+)$/.exec(first) ?? /^([^:]+):(\d+)$/.exec(first);
  const [, address, port] = match ?? [];
  return address !== undefined && port !== undefined ? { address, port: Number(port) } : { address: first, port: 53 };
}

/**
 * A and AAAA of `host` at `resolver` (which follows CNAMEs itself). A question that fails adds nothing, but
 * a resolver that answers neither is a 502: "does not resolve" would blame the name for our resolver.
 */
async function addressesOf(resolver: DnsServer, host: string): Promise<string[]> {
  const answers = await Promise.allSettled([queryDns(resolver, host, 'A'), queryDns(resolver, host, 'AAAA')]);
  if (answers.every((answer) => answer.status === 'rejected' && answer.reason instanceof DnsUnreachable)) {
    throw upstreamFailed(`the DNS resolver did not answer for ${host}`);
  }
  return answers.flatMap((answer) =>
    answer.status === 'fulfilled'
      ? answer.value.answers.filter((r) => r.type === 'A' || r.type === 'AAAA').map((r) => r.text)
      : [],
  );
}

const refused = (field: string, problem: string) => new HttpError(400, 'validation', `${field}: ${problem}`);

/** The addresses a tool may connect to for `host`: the IP as given, or all its name resolves to. */
export async function checkedTarget(tools: Tools, host: string, field: string): Promise<[string, ...string[]]> {
  const literal = parseIp(host.replace(/^\[(.*)\]$/, '$1'));
  let addresses: string[];
  if (literal) addresses = [formatIp(literal)];
  else {
    try {
      addresses = await tools.resolveHost(host);
    } catch (error) {
      // Our resolver being unreachable (502) is not the name's fault; a lookup failure of the system is.
      if (error instanceof HttpError) throw error;
      addresses = [];
    }
  }
  const [first, ...others] = addresses;
  if (first === undefined) throw refused(field, `${host} does not resolve to any address`);
  for (const address of addresses) {
    const reason = isRefusedAddress(address, tools.allowCidrs);
    if (reason) throw refused(field, `${host} resolves to ${address}, ${describeReason(reason)}`);
  }
  return [first, ...others];
}
