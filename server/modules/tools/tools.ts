/**
 * What every network tool works with: its configuration, the outbound rules, and how the server resolves
 * names. Tools make the server connect out on anyone's behalf, so every target (and every NS address, whois
 * referral and redirect hop) goes through `checkedTarget`: resolved, and refused with a 400 when any address
 * it resolves to is in the shared refused list (server/net/refused-ranges.ts) and not in OUTBOUND_ALLOW_CIDRS.
 */
import { getServers } from 'node:dns';
import type { ToolsConfig } from '../../config';
import type { ServerContext } from '../../context';
import { HttpError } from '../../errors';
import { formatIp, parseIp } from '../../ipam';
import { describeReason, isRefusedAddress } from '../../net/refused-ranges';
import { type DnsServer, queryDns } from './dns-client';

export interface Tools {
  config: ToolsConfig;
  allowCidrs: string[];
  /** The server's own resolver for its lookups (TOOLS_RECURSIVE_RESOLVER, else the system's first nameserver). */
  resolver: DnsServer;
  /** Every address a name resolves to (A and AAAA at the recursive resolver when configured, else the system's). */
  resolveHost: (host: string) => Promise<string[]>;
  now: () => Date;
}

export function toolsOf(context: ServerContext): Tools {
  const { recursiveResolver } = context.config.tools;
  const resolver = recursiveResolver ?? systemResolver();
  return {
    config: context.config.tools,
    allowCidrs: context.config.outboundAllowCidrs,
    resolver,
    resolveHost: recursiveResolver ? (host) => addressesOf(resolver, host) : context.resolveHost,
    now: context.now,
  };
}

/** The first nameserver of the system's configuration (`[v6]:port`, `v4:port` or a bare address). */
function systemResolver(): DnsServer {
  const [first = '127.0.0.1'] = getServers();
  const match = /^\[(.+)\]:(\d+)$/.exec(first) ?? /^([^:]+):(\d+)$/.exec(first);
  return match ? { address: match[1], port: Number(match[2]) } : { address: first, port: 53 };
}

/** A and AAAA of `host` at `resolver` (which follows CNAMEs itself); a failed question adds nothing. */
async function addressesOf(resolver: DnsServer, host: string): Promise<string[]> {
  const answers = await Promise.allSettled([queryDns(resolver, host, 'A'), queryDns(resolver, host, 'AAAA')]);
  return answers.flatMap((answer) =>
    answer.status === 'fulfilled'
      ? answer.value.answers.filter((r) => r.type === 'A' || r.type === 'AAAA').map((r) => r.text)
      : [],
  );
}

const refused = (field: string, problem: string) => new HttpError(400, 'validation', `${field}: ${problem}`);

/** The addresses a tool may connect to for `host`: the IP as given, or all its name resolves to. */
export async function checkedTarget(tools: Tools, host: string, field: string): Promise<string[]> {
  const literal = parseIp(host.replace(/^\[(.*)\]$/, '$1'));
  let addresses: string[];
  if (literal) addresses = [formatIp(literal)];
  else {
    try {
      addresses = await tools.resolveHost(host);
    } catch {
      addresses = [];
    }
  }
  if (addresses.length === 0) throw refused(field, `${host} does not resolve to any address`);
  for (const address of addresses) {
    const reason = isRefusedAddress(address, tools.allowCidrs);
    if (reason) throw refused(field, `${host} resolves to ${address}, ${describeReason(reason)}`);
  }
  return addresses;
}
