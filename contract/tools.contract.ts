import { extendApi } from '@anatine/zod-openapi';
import { initContract } from '@ts-rest/core';
import { z } from 'zod';
import { errors } from './common/errors';
import { access } from './common/meta';
import { FreeForm, queryInt, Timestamp } from './common/schemas';

const c = initContract();
const meta = access('Network tools');

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

export const CheckSslCertificateQuery = z.object({ host: hostParam('example.com') }).strict();

export const CheckSpfRecordQuery = z.object({ domain: domainParam('example.com') }).strict();

export const CheckDmarcRecordQuery = z.object({ domain: domainParam('example.com') }).strict();

export const CheckIpBlacklistQuery = z.object({ ip: ipParam('203.0.113.7') }).strict();

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

export const CheckHttp2SupportQuery = z.object({ host: hostParam('example.com') }).strict();

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
        .refine((value) => /^https?:\/\//i.test(value), 'must be an absolute http or https URL'),
      { example: 'https://example.com/' },
    )
      .optional()
      .describe(
        'Absolute http(s) URL (at most 2048 characters) whose response headers to inspect; omit it to see the headers of your own request',
      ),
  })
  .strict();

// ---------------------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------------------

const ResultRecordType = z
  .enum(['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME', 'SOA', 'ALL'])
  .describe('Record type queried; `ALL` when `all=true`');

const dnsResultFields = {
  resolver: z.string().describe('Address of the resolver or nameserver that answered, e.g. 1.1.1.1'),
  records: z
    .array(z.string())
    .describe(
      'Record data in presentation format (e.g. `10 mail.example.com.` for MX); empty when the name has no such records. ' +
        'With `all=true` each string is prefixed with its record type, e.g. `MX 10 mail.example.com.`',
    ),
  ttl: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe('TTL in seconds of the answer; null when there was no answer'),
  response_time_ms: z.number().nonnegative().describe('Time the resolver took to answer, in milliseconds'),
};

export const ToolsDnsResult = extendApi(z.object(dnsResultFields).strict(), {
  title: 'ToolsDnsResult',
  description: 'The answer of one resolver',
  example: { resolver: '1.1.1.1', records: ['93.184.215.14'], ttl: 3600, response_time_ms: 12.4 },
});

export const ToolsDnsLookup = extendApi(
  z
    .object({
      domain: z.string().describe('The domain queried'),
      type: ResultRecordType,
      results: z
        .array(ToolsDnsResult)
        .describe('One entry for each of 3 independent public resolvers (or the authoritative nameservers)'),
    })
    .strict(),
  {
    title: 'ToolsDnsLookup',
    description: 'DNS lookup result',
    example: {
      domain: 'example.com',
      type: 'A',
      results: [
        { resolver: '1.1.1.1', records: ['93.184.215.14'], ttl: 3600, response_time_ms: 12.4 },
        { resolver: '8.8.8.8', records: ['93.184.215.14'], ttl: 3521, response_time_ms: 18.9 },
        { resolver: '9.9.9.9', records: ['93.184.215.14'], ttl: 3600, response_time_ms: 21.2 },
      ],
    },
  },
);

export const ToolsDnsPropagationResult = extendApi(
  z
    .object({
      ...dnsResultFields,
      label: z.string().describe('Name of the resolver, e.g. Cloudflare'),
      location: z.string().describe('Where the resolver is, e.g. Sydney, AU'),
    })
    .strict(),
  {
    title: 'ToolsDnsPropagationResult',
    description: 'The answer of one resolver, with its name and location',
    example: {
      resolver: '1.1.1.1',
      label: 'Cloudflare',
      location: 'Global anycast',
      records: ['93.184.215.14'],
      ttl: 3600,
      response_time_ms: 12.4,
    },
  },
);

export const ToolsDnsPropagation = extendApi(
  z
    .object({
      domain: z.string().describe('The domain queried'),
      type: DnsRecordType.describe('Record type queried'),
      results: z.array(ToolsDnsPropagationResult).describe('One entry for each of 8 resolvers worldwide'),
    })
    .strict(),
  {
    title: 'ToolsDnsPropagation',
    description: 'DNS propagation check result',
    example: {
      domain: 'example.com',
      type: 'A',
      results: [
        {
          resolver: '1.1.1.1',
          label: 'Cloudflare',
          location: 'Global anycast',
          records: ['93.184.215.14'],
          ttl: 3600,
          response_time_ms: 12.4,
        },
        {
          resolver: '208.67.222.222',
          label: 'OpenDNS',
          location: 'San Francisco, US',
          records: [],
          ttl: null,
          response_time_ms: 2000,
        },
      ],
    },
  },
);

export const ToolsRdnsName = extendApi(
  z
    .object({
      name: z.string().describe('Host name from the PTR record'),
      fcrdns_valid: z.boolean().describe('Forward-confirmed: the name resolves back to the queried IP'),
    })
    .strict(),
  { title: 'ToolsRdnsName', description: 'One PTR name', example: { name: 'dns.google', fcrdns_valid: true } },
);

export const ToolsRdnsLookup = extendApi(
  z
    .object({
      ip: z.string().describe('The IP queried'),
      arpa_query: z.string().describe('The reverse name queried, in in-addr.arpa or ip6.arpa'),
      names: z.array(ToolsRdnsName).describe('PTR names; empty when there is no PTR record'),
      authoritative_ns: z.array(z.string()).describe('Nameservers authoritative for the reverse zone'),
    })
    .strict(),
  {
    title: 'ToolsRdnsLookup',
    description: 'Reverse DNS lookup with forward confirmation',
    example: {
      ip: '8.8.8.8',
      arpa_query: '8.8.8.8.in-addr.arpa',
      names: [{ name: 'dns.google', fcrdns_valid: true }],
      authoritative_ns: ['ns1.google.com', 'ns2.google.com'],
    },
  },
);

export const ToolsWhoisLookup = extendApi(
  z
    .object({
      query: z.string().describe('The domain or IP queried'),
      raw: z.string().describe('The WHOIS answer as received'),
      parsed: FreeForm.describe(
        'Fields extracted from the answer, present when found. For domains: registrar, created, expires, expires_in_days, ' +
          'updated, nameservers (array), status (array). For IPs: cidr, net_name, organization, abuse_contact',
      ),
    })
    .strict(),
  {
    title: 'ToolsWhoisLookup',
    description: 'WHOIS lookup result',
    example: {
      query: 'example.com',
      raw: 'Domain Name: EXAMPLE.COM\r\nRegistrar: RESERVED-Internet Assigned Numbers Authority\r\n…',
      parsed: {
        registrar: 'RESERVED-Internet Assigned Numbers Authority',
        created: '1995-08-14T04:00:00Z',
        expires: '2026-08-13T04:00:00Z',
        expires_in_days: 264,
        updated: '2025-08-14T07:01:39Z',
        nameservers: ['a.iana-servers.net', 'b.iana-servers.net'],
        status: ['clientDeleteProhibited', 'clientTransferProhibited'],
      },
    },
  },
);

export const ToolsSslCertificate = extendApi(
  z
    .object({
      subject: z.string().describe('Subject distinguished name (or its common name)'),
      issuer: z.string().describe('Issuer distinguished name (or its common name)'),
      sans: z.array(z.string()).describe('Subject alternative names'),
      not_before: Timestamp.describe('Start of the validity window'),
      not_after: Timestamp.describe('End of the validity window'),
      days_remaining: z.number().int().describe('Whole days until not_after; negative once expired'),
      is_expired: z.boolean(),
    })
    .strict(),
  {
    title: 'ToolsSslCertificate',
    description: 'One certificate of the presented chain',
    example: {
      subject: 'CN=www.example.org',
      issuer: 'CN=DigiCert Global G3 TLS ECC SHA384 2020 CA1',
      sans: ['www.example.org', 'example.com', 'example.org'],
      not_before: '2026-01-15T00:00:00.000Z',
      not_after: '2027-01-15T23:59:59.000Z',
      days_remaining: 419,
      is_expired: false,
    },
  },
);

export const ToolsSslCheck = extendApi(
  z
    .object({
      host: z.string().describe('The host checked (port 443)'),
      tls_version: z.string().describe('Negotiated protocol, e.g. TLSv1.3'),
      cipher_suite: z.string().describe('Negotiated cipher suite'),
      chain_valid: z.boolean().describe('The chain verifies against the public trust store for this host name'),
      certificates: z.array(ToolsSslCertificate).describe('The presented chain, leaf first'),
    })
    .strict(),
  {
    title: 'ToolsSslCheck',
    description: 'TLS certificate check result',
    example: {
      host: 'example.com',
      tls_version: 'TLSv1.3',
      cipher_suite: 'TLS_AES_256_GCM_SHA384',
      chain_valid: true,
      certificates: [
        {
          subject: 'CN=www.example.org',
          issuer: 'CN=DigiCert Global G3 TLS ECC SHA384 2020 CA1',
          sans: ['www.example.org', 'example.com', 'example.org'],
          not_before: '2026-01-15T00:00:00.000Z',
          not_after: '2027-01-15T23:59:59.000Z',
          days_remaining: 419,
          is_expired: false,
        },
      ],
    },
  },
);

export const ToolsSpfMechanism = extendApi(
  z
    .object({
      qualifier: z.enum(['+', '-', '~', '?']).describe('+ pass, - fail, ~ softfail, ? neutral'),
      mechanism: z
        .string()
        .describe('Mechanism or modifier name: all, include, a, mx, ptr, ip4, ip6, exists, redirect, exp …'),
      value: z.string().nullable().describe('Argument after `:` or `=`; null when there is none'),
    })
    .strict(),
  {
    title: 'ToolsSpfMechanism',
    description: 'One term of the SPF record',
    example: { qualifier: '+', mechanism: 'include', value: '_spf.google.com' },
  },
);

export const ToolsSpfCheck = extendApi(
  z
    .object({
      domain: z.string(),
      found: z.boolean().describe('A `v=spf1` TXT record exists'),
      valid: z.boolean().describe('Exactly one record, syntactically valid, within the lookup limit'),
      raw: z.string().nullable().describe('The SPF record; null when not found'),
      mechanisms: z.array(ToolsSpfMechanism),
      dns_lookup_count: z.number().int().nonnegative().describe('DNS-querying terms counted, includes followed'),
      dns_lookup_limit: z.literal(10).describe('The RFC 7208 limit of 10 DNS lookups'),
      warnings: z.array(z.string()),
      errors: z.array(z.string()),
    })
    .strict(),
  {
    title: 'ToolsSpfCheck',
    description: 'SPF record check result',
    example: {
      domain: 'example.com',
      found: true,
      valid: true,
      raw: 'v=spf1 include:_spf.google.com ~all',
      mechanisms: [
        { qualifier: '+', mechanism: 'include', value: '_spf.google.com' },
        { qualifier: '~', mechanism: 'all', value: null },
      ],
      dns_lookup_count: 4,
      dns_lookup_limit: 10,
      warnings: [],
      errors: [],
    },
  },
);

export const ToolsDmarcCheck = extendApi(
  z
    .object({
      domain: z.string(),
      found: z.boolean().describe('A `v=DMARC1` TXT record exists at `_dmarc.<domain>`'),
      valid: z.boolean(),
      policy: z.string().nullable().describe('`p` tag: none, quarantine or reject; null when absent'),
      subdomain_policy: z.string().nullable().describe('`sp` tag; null when absent'),
      raw: z.string().nullable().describe('The DMARC record; null when not found'),
      tags: FreeForm.describe('Every tag of the record, name → value'),
      warnings: z.array(z.string()),
      errors: z.array(z.string()),
    })
    .strict(),
  {
    title: 'ToolsDmarcCheck',
    description: 'DMARC record check result',
    example: {
      domain: 'example.com',
      found: true,
      valid: true,
      policy: 'reject',
      subdomain_policy: null,
      raw: 'v=DMARC1; p=reject; rua=mailto:dmarc@example.com',
      tags: { v: 'DMARC1', p: 'reject', rua: 'mailto:dmarc@example.com' },
      warnings: ['no sp tag: subdomains inherit p=reject'],
      errors: [],
    },
  },
);

export const ToolsBlacklistResult = extendApi(
  z
    .object({
      list: z.string().describe('Name of the blocklist'),
      zone: z.string().describe('DNS zone queried'),
      listed: z.boolean(),
    })
    .strict(),
  {
    title: 'ToolsBlacklistResult',
    description: 'The answer of one DNS blocklist',
    example: { list: 'Spamhaus ZEN', zone: 'zen.spamhaus.org', listed: false },
  },
);

export const ToolsBlacklistCheck = extendApi(
  z
    .object({
      ip: z.string().describe('The IP checked'),
      listed_count: z.number().int().nonnegative().describe('Number of blocklists listing the IP'),
      total_checked: z.number().int().nonnegative().describe('Number of blocklists checked (7)'),
      results: z.array(ToolsBlacklistResult),
    })
    .strict(),
  {
    title: 'ToolsBlacklistCheck',
    description: 'DNS blocklist check result',
    example: {
      ip: '203.0.113.7',
      listed_count: 1,
      total_checked: 7,
      results: [
        { list: 'Spamhaus ZEN', zone: 'zen.spamhaus.org', listed: true },
        { list: 'SpamCop', zone: 'bl.spamcop.net', listed: false },
      ],
    },
  },
);

export const ToolsAsnLookup = extendApi(
  z
    .object({
      query: z.string().describe('The IP or AS number queried'),
      type: z.enum(['ip', 'asn']).describe('Whether the query was an IP or an AS number'),
      asn: z.number().int().nonnegative().nullable().describe('AS number; null when none is found'),
      as_name: z.string().nullable(),
      prefix: z.string().nullable().describe('Announced prefix (CIDR) containing the IP'),
      country: z.string().nullable().describe('ISO 3166-1 alpha-2 country code'),
      rir: z.string().nullable().describe('Regional internet registry, e.g. arin, ripencc'),
      allocated: z.string().nullable().describe('Allocation date as given by the registry (YYYY-MM-DD)'),
    })
    .strict(),
  {
    title: 'ToolsAsnLookup',
    description: 'ASN lookup result',
    example: {
      query: '1.1.1.1',
      type: 'ip',
      asn: 13335,
      as_name: 'CLOUDFLARENET, US',
      prefix: '1.1.1.0/24',
      country: 'US',
      rir: 'apnic',
      allocated: '2011-08-11',
    },
  },
);

export const ToolsHttp2Check = extendApi(
  z
    .object({
      host: z.string(),
      http11: z.boolean().describe('HTTP/1.1 is offered'),
      http2: z.boolean().describe('HTTP/2 is offered (ALPN h2)'),
      http3_advertised: z.boolean().describe('An `Alt-Svc` header advertises HTTP/3 (h3)'),
      alpn_negotiated: z.string().nullable().describe('Protocol chosen by ALPN, e.g. h2; null when none'),
      tls_version: z.string().nullable().describe('Negotiated TLS version; null when TLS failed'),
    })
    .strict(),
  {
    title: 'ToolsHttp2Check',
    description: 'HTTP protocol support check result',
    example: {
      host: 'example.com',
      http11: true,
      http2: true,
      http3_advertised: false,
      alpn_negotiated: 'h2',
      tls_version: 'TLSv1.3',
    },
  },
);

export const ToolsPingResult = extendApi(
  z
    .object({
      port: z.number().int().min(1).max(65535),
      open: z.boolean().describe('A TCP connection was accepted'),
      latency_ms: z.number().nonnegative().nullable().describe('TCP connect time in milliseconds; null when not open'),
    })
    .strict(),
  {
    title: 'ToolsPingResult',
    description: 'One TCP connect probe',
    example: { port: 443, open: true, latency_ms: 23.7 },
  },
);

export const ToolsPing = extendApi(
  z
    .object({
      host: z.string(),
      ip: z.string().describe('The address the host resolved to and that was probed'),
      results: z.array(ToolsPingResult),
      checked_at: Timestamp,
    })
    .strict(),
  {
    title: 'ToolsPing',
    description: 'TCP ping result',
    example: {
      host: 'example.com',
      ip: '93.184.215.14',
      results: [
        { port: 80, open: true, latency_ms: 24.1 },
        { port: 443, open: true, latency_ms: 23.7 },
      ],
      checked_at: '2026-11-22T10:00:00.000Z',
    },
  },
);

export const ToolsPortResult = extendApi(
  z
    .object({
      port: z.number().int().min(1).max(65535),
      service: z.string().describe('Usual service on the port, e.g. https; `unknown` when none'),
      category: z.string().describe('Group of the service, e.g. web, mail, database, remote'),
      open: z.boolean(),
      latency_ms: z
        .number()
        .nonnegative()
        .optional()
        .describe('TCP connect time in milliseconds; omitted for closed ports'),
    })
    .strict(),
  {
    title: 'ToolsPortResult',
    description: 'One scanned port',
    example: { port: 443, service: 'https', category: 'web', open: true, latency_ms: 23.7 },
  },
);

export const ToolsPortScan = extendApi(
  z
    .object({
      host: z.string(),
      open_count: z.number().int().nonnegative(),
      total: z.number().int().nonnegative().describe('Number of ports scanned'),
      results: z.array(ToolsPortResult),
    })
    .strict(),
  {
    title: 'ToolsPortScan',
    description: 'TCP port scan result',
    example: {
      host: 'example.com',
      open_count: 1,
      total: 2,
      results: [
        { port: 22, service: 'ssh', category: 'remote', open: false },
        { port: 443, service: 'https', category: 'web', open: true, latency_ms: 23.7 },
      ],
    },
  },
);

const rtt = z.number().nonnegative().nullable();

export const ToolsTracerouteHop = extendApi(
  z
    .object({
      hop: z.number().int().min(1).describe('Hop number, from 1'),
      ip: z.string().nullable().describe('Address that answered; null for an unresponsive hop'),
      rtt1_ms: rtt.describe('Round-trip time of the first probe in milliseconds; null when unanswered'),
      rtt2_ms: rtt.describe('Round-trip time of the second probe'),
      rtt3_ms: rtt.describe('Round-trip time of the third probe'),
    })
    .strict(),
  {
    title: 'ToolsTracerouteHop',
    description: 'One hop of the route',
    example: { hop: 3, ip: '62.115.42.118', rtt1_ms: 8.1, rtt2_ms: 7.9, rtt3_ms: 8.4 },
  },
);

export const ToolsTraceroute = extendApi(
  z
    .object({
      host: z.string(),
      ip: z.string().describe('The address the host resolved to'),
      hops: z.array(ToolsTracerouteHop),
    })
    .strict(),
  {
    title: 'ToolsTraceroute',
    description: 'Traceroute result',
    example: {
      host: 'example.com',
      ip: '93.184.215.14',
      hops: [
        { hop: 1, ip: '10.0.0.1', rtt1_ms: 0.4, rtt2_ms: 0.3, rtt3_ms: 0.3 },
        { hop: 2, ip: null, rtt1_ms: null, rtt2_ms: null, rtt3_ms: null },
        { hop: 3, ip: '93.184.215.14', rtt1_ms: 23.9, rtt2_ms: 24.2, rtt3_ms: 23.8 },
      ],
    },
  },
);

export const ToolsMyIp = extendApi(
  z
    .object({
      ip: z.string().describe('The caller’s public IP address as seen by the service'),
      country: z.string().optional().describe('ISO 3166-1 alpha-2 country code; omitted when unknown'),
      datacenter: z
        .string()
        .optional()
        .describe('Hosting provider or data centre of the address; omitted when unknown'),
      hostname: z.string().optional().describe('Reverse DNS name of the address; omitted when there is none'),
    })
    .strict(),
  {
    title: 'ToolsMyIp',
    description: 'The caller’s IP address',
    example: { ip: '198.51.100.23', country: 'DE', hostname: 'host-198-51-100-23.example.net' },
  },
);

export const ToolsRequestHeaders = extendApi(
  z
    .object({
      headers: FreeForm.describe('Headers of the caller’s request, lower-case name → value'),
      method: z.string().describe('HTTP method of the caller’s request'),
      proto: z.string().describe('Protocol of the caller’s request, e.g. HTTP/1.1 or HTTP/2'),
    })
    .strict(),
  {
    title: 'ToolsRequestHeaders',
    description: 'The caller’s own request (answered when `url` is omitted)',
    example: {
      headers: { host: 'ipam.example.com', 'user-agent': 'curl/8.5.0', accept: '*/*' },
      method: 'GET',
      proto: 'HTTP/1.1',
    },
  },
);

export const ToolsSecurityHeader = extendApi(
  z
    .object({
      present: z.boolean(),
      value: z.string().nullable().describe('The header value; null when absent'),
    })
    .strict(),
  {
    title: 'ToolsSecurityHeader',
    description: 'Presence and value of one security header',
    example: { present: true, value: 'max-age=31536000; includeSubDomains' },
  },
);

export const ToolsSecurityChecklist = extendApi(
  z
    .object({
      hsts: ToolsSecurityHeader,
      csp: ToolsSecurityHeader,
      x_frame_options: ToolsSecurityHeader,
      x_content_type_options: ToolsSecurityHeader,
      referrer_policy: ToolsSecurityHeader,
      permissions_policy: ToolsSecurityHeader,
    })
    .strict(),
  {
    title: 'ToolsSecurityChecklist',
    description:
      'Security headers of the remote response: hsts (Strict-Transport-Security), csp (Content-Security-Policy), ' +
      'x_frame_options, x_content_type_options, referrer_policy, permissions_policy',
    example: {
      hsts: { present: true, value: 'max-age=31536000; includeSubDomains' },
      csp: { present: false, value: null },
      x_frame_options: { present: true, value: 'DENY' },
      x_content_type_options: { present: true, value: 'nosniff' },
      referrer_policy: { present: false, value: null },
      permissions_policy: { present: false, value: null },
    },
  },
);

export const ToolsRemoteHeaders = extendApi(
  z
    .object({
      url: z.string().describe('The URL requested (redirects are not followed)'),
      status: z.number().int().min(100).max(599).describe('HTTP status of the remote response'),
      headers: FreeForm.describe('Headers of the remote response, lower-case name → value'),
      security_checklist: ToolsSecurityChecklist,
    })
    .strict(),
  {
    title: 'ToolsRemoteHeaders',
    description: 'A remote site’s response headers (answered when `url` is given)',
    example: {
      url: 'https://example.com/',
      status: 200,
      headers: { 'content-type': 'text/html; charset=UTF-8', 'strict-transport-security': 'max-age=31536000' },
      security_checklist: {
        hsts: { present: true, value: 'max-age=31536000' },
        csp: { present: false, value: null },
        x_frame_options: { present: false, value: null },
        x_content_type_options: { present: false, value: null },
        referrer_policy: { present: false, value: null },
        permissions_policy: { present: false, value: null },
      },
    },
  },
);

export const ToolsHeadersResult = extendApi(z.union([ToolsRequestHeaders, ToolsRemoteHeaders]), {
  title: 'ToolsHeadersResult',
  description:
    'Without `url`: the caller’s own request. With `url`: the remote site’s response headers and security checklist',
});

// ---------------------------------------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------------------------------------

const LOOKUP_LIMIT = 'Public, no authentication. Limited to 10 lookups per minute per IP (429 with Retry-After).';
const PROBE_LIMIT =
  'Public, no authentication. Active probe: limited to 3 requests per minute per IP (429 with Retry-After).';
const TARGETS =
  'Targets that resolve to loopback, private, link-local or other non-public addresses are refused with 400.';

export const toolsContract = c.router({
  lookupDns: {
    method: 'GET',
    path: '/tools/dns',
    summary: 'Look up DNS records',
    description:
      'Queries `domain` for records of `type` (default A) at 3 independent public resolvers, one result each; ' +
      'with `authoritative=true` the domain’s own nameservers are asked instead. With `all=true` all common types ' +
      '(A, AAAA, MX, TXT, NS, CNAME, SOA) are queried: the response `type` is `ALL` and every record string is ' +
      'prefixed with its type (e.g. `MX 10 mail.example.com.`). A resolver that does not answer yields an empty ' +
      'result; 502 when none answers. ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: LookupDnsQuery,
    responses: { 200: ToolsDnsLookup, ...errors(400, 429, 502) },
  },
  checkDnsPropagation: {
    method: 'GET',
    path: '/tools/dns-propagation',
    summary: 'Check DNS propagation',
    description:
      'Queries `domain` for records of `type` (default A) at 8 public resolvers worldwide; each result adds the ' +
      'resolver’s `label` and `location`. A resolver that does not answer yields an empty result with null ttl; ' +
      '502 when none answers. ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: CheckDnsPropagationQuery,
    responses: { 200: ToolsDnsPropagation, ...errors(400, 429, 502) },
  },
  lookupReverseDns: {
    method: 'GET',
    path: '/tools/rdns',
    summary: 'Look up reverse DNS',
    description:
      'PTR lookup of `ip` with forward confirmation (FCrDNS) of every name found, plus the nameservers ' +
      'authoritative for the reverse zone. 502 when DNS is unreachable. ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: LookupReverseDnsQuery,
    responses: { 200: ToolsRdnsLookup, ...errors(400, 429, 502) },
  },
  lookupWhois: {
    method: 'GET',
    path: '/tools/whois',
    summary: 'Look up WHOIS',
    description:
      'WHOIS record of a domain or IP: the raw answer and the fields parsed from it (domains: registrar, created, ' +
      'expires, expires_in_days, updated, nameservers, status; IPs: cidr, net_name, organization, abuse_contact). ' +
      '502 when the WHOIS server is unreachable. ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: LookupWhoisQuery,
    responses: { 200: ToolsWhoisLookup, ...errors(400, 429, 502) },
  },
  checkSslCertificate: {
    method: 'GET',
    path: '/tools/ssl',
    summary: 'Check a TLS certificate',
    description:
      'Connects to `host` on port 443 and reports the negotiated TLS version and cipher, whether the chain is ' +
      'valid for the host, and each certificate with its validity window. 502 when the host cannot be reached or ' +
      'the TLS handshake fails. ' +
      TARGETS +
      ' ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: CheckSslCertificateQuery,
    responses: { 200: ToolsSslCheck, ...errors(400, 429, 502) },
  },
  checkSpfRecord: {
    method: 'GET',
    path: '/tools/spf',
    summary: 'Check an SPF record',
    description:
      'Finds and parses the SPF (`v=spf1`) TXT record of `domain`, counts its DNS lookups against the limit of ' +
      '10 and reports warnings and errors. A domain without a record answers 200 with `found: false`. 502 when ' +
      'DNS is unreachable. ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: CheckSpfRecordQuery,
    responses: { 200: ToolsSpfCheck, ...errors(400, 429, 502) },
  },
  checkDmarcRecord: {
    method: 'GET',
    path: '/tools/dmarc',
    summary: 'Check a DMARC record',
    description:
      'Finds and parses the DMARC record at `_dmarc.<domain>`: policy, subdomain policy and every tag, with ' +
      'warnings and errors. A domain without a record answers 200 with `found: false`. 502 when DNS is ' +
      'unreachable. ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: CheckDmarcRecordQuery,
    responses: { 200: ToolsDmarcCheck, ...errors(400, 429, 502) },
  },
  checkIpBlacklist: {
    method: 'GET',
    path: '/tools/blacklist',
    summary: 'Check DNS blocklists',
    description:
      'Checks `ip` against 7 DNS blocklists and reports each result and the number listing it. 502 when DNS is ' +
      'unreachable. ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: CheckIpBlacklistQuery,
    responses: { 200: ToolsBlacklistCheck, ...errors(400, 429, 502) },
  },
  lookupAsn: {
    method: 'GET',
    path: '/tools/asn',
    summary: 'Look up an ASN',
    description:
      'For an IP: the autonomous system announcing it and the prefix; for an AS number (`AS13335` or `13335`): the ' +
      'AS name, country, registry and allocation date. Fields not found are null. 502 when the lookup source is ' +
      'unreachable. ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: LookupAsnQuery,
    responses: { 200: ToolsAsnLookup, ...errors(400, 429, 502) },
  },
  checkHttp2Support: {
    method: 'GET',
    path: '/tools/http2',
    summary: 'Check HTTP/2 support',
    description:
      'Connects to `host` on port 443 and reports whether HTTP/1.1 and HTTP/2 are offered (ALPN), whether HTTP/3 ' +
      'is advertised (Alt-Svc), and the negotiated protocol and TLS version. 502 when the host cannot be reached. ' +
      TARGETS +
      ' ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: CheckHttp2SupportQuery,
    responses: { 200: ToolsHttp2Check, ...errors(400, 429, 502) },
  },
  pingHost: {
    method: 'GET',
    path: '/tools/ping',
    summary: 'TCP-ping a host',
    description:
      'Opens a TCP connection to `host` on `port`, or on ports 80 and 443 when no port is given, and reports ' +
      'whether each is open and the connect latency. An unreachable host is not an error: its ports answer ' +
      '`open: false` with null latency. A host that does not resolve is a 400. ' +
      TARGETS +
      ' ' +
      PROBE_LIMIT,
    metadata: meta.public,
    query: PingHostQuery,
    responses: { 200: ToolsPing, ...errors(400, 429) },
  },
  scanPorts: {
    method: 'GET',
    path: '/tools/ports',
    summary: 'Scan TCP ports',
    description:
      'Probes `host` on the given ports (at most 25; default: 19 common ports) and reports each port’s usual ' +
      'service and whether it is open; latency is given for open ports only. An unreachable host is not an error: ' +
      'its ports answer `open: false`. 26 or more ports, or a port outside 1 to 65535, is a 400. ' +
      TARGETS +
      ' ' +
      PROBE_LIMIT,
    metadata: meta.public,
    query: ScanPortsQuery,
    responses: { 200: ToolsPortScan, ...errors(400, 429) },
  },
  traceRoute: {
    method: 'GET',
    path: '/tools/traceroute',
    summary: 'Trace the route to a host',
    description:
      'Traces the network path to `host`, with three round-trip times per hop; unresponsive hops have null ip and ' +
      'times. 503 when the traceroute program is not available on the server. ' +
      TARGETS +
      ' ' +
      PROBE_LIMIT,
    metadata: meta.public,
    query: TraceRouteQuery,
    responses: { 200: ToolsTraceroute, ...errors(400, 429, 503) },
  },
  getMyIp: {
    method: 'GET',
    path: '/tools/myip',
    summary: 'Get your IP address',
    description:
      'The caller’s public IP address as seen by the service, with country, data centre and host name when ' +
      'available. ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    responses: { 200: ToolsMyIp, ...errors(429) },
  },
  inspectHttpHeaders: {
    method: 'GET',
    path: '/tools/headers',
    summary: 'Inspect HTTP headers',
    description:
      'Without `url`: the headers, method and protocol of the caller’s own request. With `url`: the remote ' +
      'site’s status and response headers (redirects are not followed) plus a checklist of security headers ' +
      '(HSTS, CSP, X-Frame-Options, X-Content-Type-Options, Referrer-Policy, Permissions-Policy). 502 when the ' +
      'URL cannot be fetched. ' +
      TARGETS +
      ' ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: InspectHttpHeadersQuery,
    responses: { 200: ToolsHeadersResult, ...errors(400, 429, 502) },
  },
});
