/** Query parameters of the network tools: names, hosts, IPs and flags, validated before any lookup. */
import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';
import { queryInt } from '../common/schemas';

// ---------------------------------------------------------------------------------------------------------
// Query parameters
// ---------------------------------------------------------------------------------------------------------

/** One DNS label: letters, digits, `_` and `-`, 1..63 characters, no leading or trailing `-`. */
const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
/** A DNS name (optionally fully qualified with a trailing dot). IPv4 literals match it too. */
const HOSTNAME = `(?:${LABEL}\\.)*${LABEL}\\.?`;
const HOSTNAME_RE = new RegExp(`^${HOSTNAME}$`);
/** A hostname, an IPv4 address, or something shaped like an IPv6 address (checked exactly by a refine). */
const HOST_OR_IP_RE = new RegExp(`^(?:${HOSTNAME}|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)$`);
const AS_NUMBER_RE = /^(?:[Aa][Ss])?[0-9]{1,10}$/;
/** Up to 25 comma-separated port numbers (blanks around commas allowed). */
const PORT_LIST_RE = /^ *[0-9]{1,5} *(?:, *[0-9]{1,5} *){0,24}$/;

const isIpv6 = (value: string) => z.string().ip({ version: 'v6' }).safeParse(value).success;
const isIp = (value: string) => z.string().ip().safeParse(value).success;

/** A domain name query parameter. */
function domainParam(example: string) {
  return extendApi(
    z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(253)
      .regex(HOSTNAME_RE, 'must be a domain name such as example.com')
      .describe('Domain name (at most 253 characters), e.g. example.com'),
    { example },
  );
}

/** A host query parameter: a hostname or an IPv4/IPv6 address. */
function hostParam(example: string, description = 'Hostname or IPv4/IPv6 address (at most 253 characters)') {
  return extendApi(
    z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(253)
      .regex(HOST_OR_IP_RE, 'must be a hostname or an IP address')
      .refine((value) => !value.includes(':') || isIpv6(value), 'must be a hostname or an IP address')
      .describe(description),
    { example },
  );
}

/** `host`, `host:port`, `IPv4:port`, `[IPv6]:port`, `[IPv6]` or a bare IPv6 address, split; the problem when malformed. */
export function splitHostPort(
  value: string,
  defaultPort: number,
): { host: string; port: number } | { problem: string } {
  const shape = 'must be a hostname or IP address, optionally with :port (e.g. example.com:8443 or [2001:db8::1]:8443)';
  let host: string;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(value);
  if (bracketed) {
    [, host = '', portText] = bracketed;
    if (!isIpv6(host)) return { problem: shape };
  } else if (value.indexOf(':') !== value.lastIndexOf(':')) {
    // Two colons or more: a bare IPv6 address (a port needs the brackets).
    if (!isIpv6(value)) return { problem: shape };
    host = value;
  } else {
    [host = '', portText] = value.split(':');
    if (host.length > 253 || !HOSTNAME_RE.test(host)) return { problem: shape };
  }
  if (portText === undefined) return { host, port: defaultPort };
  const port = /^[0-9]{1,5}$/.test(portText) ? Number(portText) : Number.NaN;
  if (!(port >= 1 && port <= 65535)) return { problem: 'port must be a number from 1 to 65535' };
  return { host, port };
}

/** A TLS target query parameter: host and port (default 443), with the text as given for the response. */
function tlsTargetParam() {
  return extendApi(
    z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(261)
      .transform((text, ctx) => {
        const split = splitHostPort(text, 443);
        if ('problem' in split) {
          ctx.addIssue({ code: z.ZodIssueCode.custom, message: split.problem });
          return z.NEVER;
        }
        return { ...split, text };
      })
      .describe(
        'Hostname or IPv4/IPv6 address, optionally with a TCP port (1 to 65535, default 443): `example.com`, ' +
          '`example.com:8443`, `192.0.2.1:8443`, `2001:db8::1` or `[2001:db8::1]:8443`',
      ),
    { example: 'example.com' },
  );
}

/** An IP address query parameter. */
function ipParam(example: string) {
  return extendApi(
    z.string().trim().ip({ message: 'must be an IPv4 or IPv6 address' }).describe('IPv4 or IPv6 address'),
    { example },
  );
}

/** A `true`/`false` query flag, transformed to a boolean. */
function queryFlag(description: string) {
  return z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .describe(description);
}

export const DnsRecordType = z.enum(['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME', 'SOA']);

export const LookupDnsQuery = z
  .object({
    domain: domainParam('example.com'),
    type: DnsRecordType.default('A').describe('Record type to query; ignored when `all=true`'),
    all: queryFlag('`true` queries all common record types (A, AAAA, MX, TXT, NS, CNAME, SOA) at once'),
    authoritative: queryFlag('`true` queries the domain’s own authoritative nameservers instead of public resolvers'),
  })
  .strict();

export const CheckDnsPropagationQuery = z
  .object({
    domain: domainParam('example.com'),
    type: DnsRecordType.default('A').describe('Record type to query'),
  })
  .strict();

export const LookupReverseDnsQuery = z.object({ ip: ipParam('8.8.8.8') }).strict();

export const LookupWhoisQuery = z
  .object({ query: hostParam('example.com', 'Domain name or IPv4/IPv6 address to look up') })
  .strict();

export const CheckSslCertificateQuery = z.object({ host: tlsTargetParam() }).strict();

export const CheckSpfRecordQuery = z.object({ domain: domainParam('example.com') }).strict();

export const CheckDmarcRecordQuery = z.object({ domain: domainParam('example.com') }).strict();

export const CheckIpBlacklistQuery = z.object({ ip: ipParam('8.8.8.8') }).strict();

export const LookupAsnQuery = z
  .object({
    query: extendApi(
      z
        .string()
        .trim()
        .min(1, 'must not be empty')
        .max(64)
        .refine((value) => isIp(value) || AS_NUMBER_RE.test(value), 'must be an IP address or an AS number')
        .describe('IPv4/IPv6 address, or AS number with or without the `AS` prefix (e.g. `AS13335` or `13335`)'),
      { example: 'AS13335' },
    ),
  })
  .strict();

export const CheckHttp2SupportQuery = z.object({ host: tlsTargetParam() }).strict();

export const PingHostQuery = z
  .object({
    host: hostParam('example.com'),
    port: queryInt(1, 65535).describe('TCP port to probe (1 to 65535); when omitted ports 80 and 443 are probed'),
  })
  .strict();

export const ScanPortsQuery = z
  .object({
    host: hostParam('example.com'),
    ports: extendApi(
      z
        .string()
        .regex(PORT_LIST_RE, 'must be a comma-separated list of at most 25 port numbers')
        .superRefine((value, ctx) => {
          for (const part of value.split(',')) {
            const port = Number(part.trim());
            if (!Number.isInteger(port) || port < 1 || port > 65535) {
              ctx.addIssue({ code: z.ZodIssueCode.custom, message: `port ${part.trim()} is not between 1 and 65535` });
            }
          }
        })
        .transform((value) => [...new Set(value.split(',').map((part) => Number(part.trim())))]),
      { example: '22,80,443,3306' },
    )
      .optional()
      .describe(
        'Comma-separated TCP ports, at most 25, each 1 to 65535 (duplicates are probed once); when omitted 19 common ports are probed',
      ),
  })
  .strict();

export const TraceRouteQuery = z.object({ host: hostParam('example.com') }).strict();

export const InspectHttpHeadersQuery = z
  .object({
    url: extendApi(
      z
        .string()
        .trim()
        .max(2048)
        .url('must be an absolute http or https URL')
        .refine((value) => /^https?:\/\//i.test(value), 'must be an absolute http or https URL')
        .refine((value) => !/^https?:\/\/[^/?#]*@/i.test(value), 'must not contain credentials (user:password@)'),
      { example: 'https://example.com/' },
    )
      .optional()
      .describe(
        'Absolute http(s) URL (at most 2048 characters, any port, no user:password@) whose response headers to inspect; omit it to see the headers of your own request',
      ),
  })
  .strict();
