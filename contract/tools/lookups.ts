/** Responses of the lookup tools: DNS, propagation, reverse DNS, whois, TLS, SPF, DMARC, blocklists, ASN. */
import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';
import { FreeForm, Timestamp } from '../common/schemas';
import { DnsRecordType } from './queries';

// ---------------------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------------------

const ResultRecordType = z
  .enum(['A', 'AAAA', 'MX', 'TXT', 'NS', 'CNAME', 'SOA', 'ALL'])
  .describe('Record type queried; `ALL` when `all=true`');

/** DNS response codes in the order of their values (RFC 1035, 2136, 8490): 0 NOERROR … 11 DSOTYPENI; 12–15 unassigned. */
export const DnsRcode = z.enum([
  'NOERROR',
  'FORMERR',
  'SERVFAIL',
  'NXDOMAIN',
  'NOTIMP',
  'REFUSED',
  'YXDOMAIN',
  'YXRRSET',
  'NXRRSET',
  'NOTAUTH',
  'NOTZONE',
  'DSOTYPENI',
  'RCODE12',
  'RCODE13',
  'RCODE14',
  'RCODE15',
]);

const dnsResultFields = {
  resolver: z
    .string()
    .describe('Address of the resolver asked (with `authoritative=true`: of the nameserver asked), e.g. 1.1.1.1'),
  records: z
    .array(z.string())
    .describe(
      'Record data in presentation format (e.g. `10 mail.example.com.` for MX, a TXT record’s strings joined), ' +
        'distinct, at most 100, each cut at 2048 characters; control characters are written `\\DDD`. Empty when ' +
        'the name has no such records or the resolver did not answer. With `all=true` each string is prefixed ' +
        'with its record type, e.g. `MX 10 mail.example.com.`',
    ),
  ttl: z
    .number()
    .int()
    .nonnegative()
    .nullable()
    .describe('Smallest TTL in seconds of the records; null when there are none'),
  response_time_ms: z
    .number()
    .nonnegative()
    .describe(
      'Time the resolver took to answer (every type, with `all=true`), in milliseconds; when it did not answer, the time waited',
    ),
  rcode: DnsRcode.nullable().describe(
    'The resolver’s response code: `NOERROR` (the name exists; `records` may still be empty: no records of ' +
      'the type), `NXDOMAIN` (no such name), `SERVFAIL`, `REFUSED` …; with `all=true` the first of the types ' +
      'asked that is not `NOERROR`. Null when the resolver did not answer',
  ),
};

export const ToolsDnsResult = extendApi(z.object(dnsResultFields).strict(), {
  title: 'ToolsDnsResult',
  description: 'The answer of one resolver',
  example: { resolver: '1.1.1.1', records: ['93.184.215.14'], ttl: 3600, response_time_ms: 12.4, rcode: 'NOERROR' },
});

export const ToolsDnsLookup = extendApi(
  z
    .object({
      domain: z.string().describe('The domain queried'),
      type: ResultRecordType,
      results: z
        .array(ToolsDnsResult)
        .describe(
          'One entry for each of 3 independent public resolvers, in their configured order (with `authoritative=true`: one for each nameserver asked, at most 4)',
        ),
    })
    .strict(),
  {
    title: 'ToolsDnsLookup',
    description: 'DNS lookup result',
    example: {
      domain: 'example.com',
      type: 'A',
      results: [
        { resolver: '1.1.1.1', records: ['93.184.215.14'], ttl: 3600, response_time_ms: 12.4, rcode: 'NOERROR' },
        { resolver: '8.8.8.8', records: ['93.184.215.14'], ttl: 3521, response_time_ms: 18.9, rcode: 'NOERROR' },
        { resolver: '9.9.9.9', records: ['93.184.215.14'], ttl: 3600, response_time_ms: 21.2, rcode: 'NOERROR' },
      ],
    },
  },
);

export const ToolsDnsPropagationResult = extendApi(
  z
    .object({
      ...dnsResultFields,
      label: z.string().describe('Name of the resolver, e.g. Cloudflare'),
      location: z.string().describe('Where the resolver is, e.g. Sydney, AU; `Unknown` when not configured'),
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
      rcode: 'NOERROR',
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
          rcode: 'NOERROR',
        },
        {
          resolver: '208.67.222.222',
          label: 'OpenDNS',
          location: 'San Francisco, US',
          records: [],
          ttl: null,
          response_time_ms: 2000,
          rcode: null,
        },
      ],
    },
  },
);

export const ToolsRdnsName = extendApi(
  z
    .object({
      name: z.string().describe('Host name from the PTR record, without the trailing dot'),
      fcrdns_valid: z
        .boolean()
        .describe('Forward-confirmed: the name’s A or AAAA records contain the queried IP (compared as addresses)'),
    })
    .strict(),
  { title: 'ToolsRdnsName', description: 'One PTR name', example: { name: 'dns.google', fcrdns_valid: true } },
);

export const ToolsRdnsLookup = extendApi(
  z
    .object({
      ip: z.string().describe('The IP queried'),
      arpa_query: z.string().describe('The reverse name queried, in in-addr.arpa or ip6.arpa'),
      names: z.array(ToolsRdnsName).describe('PTR names (at most 10); empty when there is no PTR record'),
      authoritative_ns: z
        .array(z.string())
        .describe(
          'Nameservers of the closest zone enclosing the reverse name, sorted, without trailing dots; empty when none is found',
        ),
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
      query: z.string().describe('The domain or IP queried, as given'),
      raw: z
        .string()
        .describe(
          'The most specific WHOIS answer received (control characters but newline and tab removed, at most 256 KB); ' +
            'the RDAP JSON text when RDAP answered instead',
        ),
      parsed: FreeForm.describe(
        'Fields extracted from the answer, each present only when found. For domains: registrar, created, expires and ' +
          'updated (ISO 8601 in UTC when the registry’s date could be read, else as written), expires_in_days (whole ' +
          'days from now, negative once expired), nameservers (lower-case, unique), status (EPP codes as listed). ' +
          'For IPs: cidr (of the most specific network; several comma-separated when a range is not one block), ' +
          'net_name, organization, abuse_contact (an e-mail address)',
      ),
    })
    .strict(),
  {
    title: 'ToolsWhoisLookup',
    description: 'WHOIS lookup result',
    example: {
      query: 'example.com',
      raw: 'Domain Name: EXAMPLE.COM\nRegistrar: RESERVED-Internet Assigned Numbers Authority\n…',
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
      subject: z.string().describe('Subject distinguished name, e.g. `CN=www.example.org, O=Example Inc.`'),
      issuer: z.string().describe('Issuer distinguished name, e.g. `CN=DigiCert Global G3 TLS ECC SHA384 2020 CA1`'),
      sans: z
        .array(z.string())
        .describe('Subject alternative names: the DNS names and IP addresses (other kinds are left out)'),
      not_before: Timestamp.describe('Start of the validity window'),
      not_after: Timestamp.describe('End of the validity window'),
      days_remaining: z.number().int().describe('Whole days until not_after; negative once expired'),
      is_expired: z.boolean().describe('Whether the certificate’s validity period has ended'),
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
      host: z.string().describe('The host checked, as given (with the port when one was given, e.g. example.com:8443)'),
      tls_version: z.string().describe('Negotiated protocol, e.g. TLSv1.3'),
      cipher_suite: z.string().describe('Negotiated cipher suite (IANA name), e.g. TLS_AES_256_GCM_SHA384'),
      chain_valid: z
        .boolean()
        .describe(
          'The chain verifies up to a root of the public trust store (plus the operator’s extra trust anchors) and ' +
            'the leaf is valid for the host name, or the IP address when one was given. False for an expired or not ' +
            'yet valid certificate, an incomplete chain, an untrusted or self-signed root, or a certificate for ' +
            'another name',
        ),
      certificates: z
        .array(ToolsSslCertificate)
        .describe(
          'The presented chain, leaf first, each certificate followed by its issuer (at most 10); the root is ' +
            'included when the trust store holds it',
        ),
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
      qualifier: z
        .enum(['+', '-', '~', '?'])
        .describe('+ pass (the default when none is written; always + for a modifier), - fail, ~ softfail, ? neutral'),
      mechanism: z
        .string()
        .describe('Mechanism or modifier name: all, include, a, mx, ptr, ip4, ip6, exists, redirect, exp …'),
      value: z
        .string()
        .nullable()
        .describe('Argument after `:` or `=` (or the CIDR lengths such as `/24` of a bare a/mx); null when none'),
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
      domain: z.string().describe('Domain checked, e.g. example.com'),
      found: z.boolean().describe('A `v=spf1` TXT record exists'),
      valid: z
        .boolean()
        .describe('Exactly one record with no errors: syntax, lookup and void-lookup limits, loops, MX targets'),
      raw: z.string().nullable().describe('The SPF record (the first one when several); null when not found'),
      mechanisms: z
        .array(ToolsSpfMechanism)
        .describe('Terms of the SPF record in order, mechanisms and modifiers, e.g. include:_spf.google.com'),
      dns_lookup_count: z
        .number()
        .int()
        .nonnegative()
        .describe(
          'DNS-querying terms (include, a, mx, ptr, exists, redirect) counted through includes and redirects; ' +
            'once over the limit no further record is fetched, so the count is what the records fetched hold',
        ),
      dns_lookup_limit: z.literal(10).describe('The RFC 7208 limit of 10 DNS lookups'),
      warnings: z.array(z.string()).describe('Problems that do not invalidate the record'),
      errors: z.array(z.string()).describe('Problems that invalidate the record'),
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
      domain: z.string().describe('Domain checked, e.g. example.com'),
      found: z
        .boolean()
        .describe('A `v=DMARC1` TXT record exists at `_dmarc.<domain>`, or else at its organisational domain’s'),
      valid: z.boolean().describe('Exactly one record was found and it has no errors'),
      policy: z.string().nullable().describe('`p` tag: none, quarantine or reject; null when absent or invalid'),
      subdomain_policy: z
        .string()
        .nullable()
        .describe('`sp` tag, or `p` when sp is absent (subdomains inherit it); null when not found or invalid'),
      raw: z.string().nullable().describe('The DMARC record; null when not found'),
      tags: FreeForm.describe('Every tag of the record, lower-case name → value as written'),
      warnings: z.array(z.string()).describe('Problems that do not invalidate the record'),
      errors: z.array(z.string()).describe('Problems that invalidate the record'),
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
      subdomain_policy: 'reject',
      raw: 'v=DMARC1; p=reject; rua=mailto:dmarc@example.com',
      tags: { v: 'DMARC1', p: 'reject', rua: 'mailto:dmarc@example.com' },
      warnings: [],
      errors: [],
    },
  },
);

export const ToolsBlacklistResult = extendApi(
  z
    .object({
      list: z.string().describe('Name of the blocklist'),
      zone: z.string().describe('DNS zone queried'),
      listed: z
        .boolean()
        .nullable()
        .describe(
          'Whether the address is listed on this blocklist; null when unknown (no answer in time, a DNS error, ' +
            'or a refusal code such as Spamhaus’ 127.255.255.x)',
        ),
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
      listed_count: z
        .number()
        .int()
        .nonnegative()
        .describe('Number of blocklists listing the IP (`listed: true`; unknown results are not counted)'),
      total_checked: z.number().int().nonnegative().describe('Number of blocklists checked (7)'),
      results: z.array(ToolsBlacklistResult).describe('One result per blocklist queried'),
    })
    .strict(),
  {
    title: 'ToolsBlacklistCheck',
    description: 'DNS blocklist check result',
    example: {
      ip: '8.8.8.8',
      listed_count: 1,
      total_checked: 7,
      results: [
        { list: 'Spamhaus ZEN', zone: 'zen.spamhaus.org', listed: true },
        { list: 'SpamCop', zone: 'bl.spamcop.net', listed: false },
        { list: 'Barracuda BRBL', zone: 'b.barracudacentral.org', listed: null },
      ],
    },
  },
);

export const ToolsAsnLookup = extendApi(
  z
    .object({
      query: z.string().describe('The IP or AS number queried, as given'),
      type: z.enum(['ip', 'asn']).describe('Whether the query was an IP or an AS number'),
      asn: z.number().int().nonnegative().nullable().describe('AS number; null when none is found'),
      as_name: z.string().nullable().describe('Name of the autonomous system, e.g. GOOGLE'),
      prefix: z
        .string()
        .nullable()
        .describe(
          'Announced prefix (CIDR) containing the IP (from RDAP: the registered network); null for an AS number',
        ),
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
