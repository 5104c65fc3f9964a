import { initContract } from '@ts-rest/core';
import { errors } from './common/errors';
import { access } from './common/meta';
import {
  ToolsAsnLookup,
  ToolsBlacklistCheck,
  ToolsDmarcCheck,
  ToolsDnsLookup,
  ToolsDnsPropagation,
  ToolsRdnsLookup,
  ToolsSpfCheck,
  ToolsSslCheck,
  ToolsWhoisLookup,
} from './tools/lookups';
import {
  ToolsHeadersResult,
  ToolsHttp2Check,
  ToolsMyIp,
  ToolsPing,
  ToolsPortScan,
  ToolsTraceroute,
} from './tools/probes';
import {
  CheckDmarcRecordQuery,
  CheckDnsPropagationQuery,
  CheckHttp2SupportQuery,
  CheckIpBlacklistQuery,
  CheckSpfRecordQuery,
  CheckSslCertificateQuery,
  InspectHttpHeadersQuery,
  LookupAsnQuery,
  LookupDnsQuery,
  LookupReverseDnsQuery,
  LookupWhoisQuery,
  PingHostQuery,
  ScanPortsQuery,
  TraceRouteQuery,
} from './tools/queries';

export * from './tools/lookups';
export * from './tools/probes';
export * from './tools/queries';

const c = initContract();
const meta = access('Network tools');

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
