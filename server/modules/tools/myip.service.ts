/**
 * /tools/myip: the caller's address as the service sees it (the connection, or the client a trusted proxy
 * names: Express's `req.ip` under the TRUST_PROXY setting). For a public address, what DNS knows of it at
 * the server's resolver: its forward-confirmed reverse name, and from Team Cymru's IP-to-ASN data the
 * country the address block is registered in and the network (AS) announcing it. Nothing is guessed: a
 * field whose source has no answer in time is omitted. Request headers are never believed for these
 * fields (a client could send any CF-IPCountry; which proxy set one is not known here).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { z } from 'zod';
import type { ToolsMyIp } from '../../../contract/tools.contract';
import { formatIp, type Ip, parseIp } from '../../ipam';
import { isRefusedAddress } from '../../net/refused-ranges';
import { arpaName, type DnsServer, queryDns, txtStrings } from './dns-client';
import type { Tools } from './tools';

/** What a tool sees of the caller's request (the client address as the trust-proxy setting yields it). */
export interface CallerRequest {
  ip: string | undefined;
  method: string;
  httpVersion: string;
  headers: IncomingHttpHeaders;
}

/** Each DNS question of the lookup; two rounds run one after the other, so the answer takes 3 s at most. */
export const MYIP_DNS_TIMEOUT_MS = 1500;
/** PTR names checked for forward confirmation. */
const MAX_NAMES = 3;

type MyIp = z.infer<typeof ToolsMyIp>;

/** The caller's address, an IPv4-mapped IPv6 address (a dual-stack socket's) shown as the IPv4 address. */
function callerAddress(raw: string): Ip | null {
  const ip = parseIp(raw);
  if (ip?.version === 6 && ip.value >> 32n === 0xffffn) return { version: 4, value: ip.value & 0xffffffffn };
  return ip;
}

export async function myIp(tools: Tools, caller: CallerRequest): Promise<MyIp> {
  if (caller.ip === undefined) throw new Error('the connection has no client address');
  const ip = callerAddress(caller.ip);
  // Not an address (a trusted proxy passed something odd along): shown as text, cleaned and short.
  if (!ip) return { ip: printable(caller.ip).slice(0, 64) };
  const text = formatIp(ip);
  // Private, loopback, documentation … addresses have no public reverse name or registration to show.
  if (isRefusedAddress(text, []) !== null) return { ip: text };
  const [hostname, network] = await Promise.all([confirmedName(tools.resolver, ip), networkOf(tools.resolver, ip)]);
  return { ip: text, ...network, ...(hostname ? { hostname } : {}) };
}

const ask = async (resolver: DnsServer, name: string, type: 'PTR' | 'A' | 'AAAA' | 'TXT') => {
  try {
    return (await queryDns(resolver, name, type, { timeoutMs: MYIP_DNS_TIMEOUT_MS })).answers.filter(
      (record) => record.type === type,
    );
  } catch {
    return [];
  }
};

const HOSTNAME =
  /^(?=.{1,253}$)(?:[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$/;

/** The first PTR name of `ip` that resolves back to it (FCrDNS), or undefined. */
async function confirmedName(resolver: DnsServer, ip: Ip): Promise<string | undefined> {
  const names = (await ask(resolver, arpaName(ip), 'PTR'))
    .map((record) => String(record.data).replace(/\.$/, ''))
    .filter((name) => HOSTNAME.test(name))
    .slice(0, MAX_NAMES);
  const confirmed = await Promise.all(
    names.map(async (name) =>
      (await ask(resolver, name, ip.version === 4 ? 'A' : 'AAAA')).some(
        (record) => parseIp(record.text)?.value === ip.value,
      ),
    ),
  );
  return names.find((_, i) => confirmed[i]);
}

/** `a | b | c` fields of a Team Cymru TXT answer. */
const fields = (data: unknown) =>
  txtStrings(data)
    .join('')
    .split('|')
    .map((field) => field.trim());

/** Printable text only, short: the AS name is remote content. */
const printable = (text: string) =>
  text
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .trim()
    .slice(0, 128);

/**
 * From Team Cymru's DNS interface: the origin of the most specific announced prefix holding `ip`
 * (`ASN | prefix | CC | registry | allocated`), then that AS's name (`ASN | CC | registry | allocated | name`).
 */
async function networkOf(resolver: DnsServer, ip: Ip): Promise<Pick<MyIp, 'country' | 'datacenter'>> {
  const originName = arpaName(ip)
    .replace(/\.in-addr\.arpa$/, '.origin.asn.cymru.com')
    .replace(/\.ip6\.arpa$/, '.origin6.asn.cymru.com');
  const origins = (await ask(resolver, originName, 'TXT'))
    .map((record) => fields(record.data))
    .map(([asns = '', prefix = '', country = '']) => ({
      asn: /^\d{1,10}/.exec(asns)?.[0],
      length: Number(/\/(\d{1,3})$/.exec(prefix)?.[1] ?? -1),
      country: country.toUpperCase(),
    }))
    .sort((a, b) => b.length - a.length);
  const [origin] = origins;
  if (!origin) return {};
  const country = /^[A-Z]{2}$/.test(origin.country) ? { country: origin.country } : {};
  if (!origin.asn) return country;
  const [described] = await ask(resolver, `AS${origin.asn}.asn.cymru.com`, 'TXT');
  const name = described ? printable(fields(described.data)[4] ?? '') : '';
  return { ...country, ...(name ? { datacenter: name } : {}) };
}
