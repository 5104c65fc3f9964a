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
      'Queries `domain` for records of `type` (default A) at 3 independent public resolvers in parallel, with ' +
      'recursion, one result each in their configured order. Records are in presentation form and only of the type ' +
      'asked: the resolver follows a CNAME, so A of an alias gives the target’s addresses. With `all=true` each ' +
      'common type (A, AAAA, MX, TXT, NS, CNAME, SOA) is asked separately (never ANY): the response `type` is ' +
      '`ALL` and every record string is prefixed with its type (e.g. `MX 10 mail.example.com.`). ' +
      'With `authoritative=true` the NS set of the closest zone enclosing `domain` is found through the server’s ' +
      'resolver and at most 4 of its nameservers are asked directly on port 53, without recursion, one result ' +
      'each. A nameserver resolving to a non-public address is skipped, never asked: 400 when every one is, 400 ' +
      'when no enclosing zone has nameservers, 502 when none of them resolves. ' +
      'A name that does not exist or has no such records answers 200 with empty records and null ttl, each ' +
      'result’s `rcode` telling them apart (`NXDOMAIN`: no such name; `NOERROR`: no records of the type); ' +
      'a resolver answering an error (SERVFAIL, REFUSED) counts as an answer with empty records and that ' +
      '`rcode`; one that does not answer within 2 seconds yields empty records, null ttl and rcode, and the time ' +
      'waited. 502 when no resolver (or nameserver) answers at all. ' +
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
      'Queries `domain` for records of `type` (default A) at 8 public resolvers worldwide, in parallel, as ' +
      '`/tools/dns` does; each result adds the resolver’s `label` and `location`. A resolver answering NXDOMAIN, ' +
      'no such records or an error has empty records and says which in `rcode`; one that does not answer within ' +
      '2 seconds yields empty records with null ttl and rcode, and the time waited; 502 when none answers. ' +
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
      'PTR lookup of `ip` at the server’s resolver (in-addr.arpa, or the 32 nibbles under ip6.arpa; a CNAME of ' +
      'RFC 2317 classless delegation is followed), with forward confirmation (FCrDNS) of every name found (at ' +
      'most 10): its A or AAAA records must contain the IP. `authoritative_ns` lists the nameservers of the ' +
      'closest zone enclosing the reverse name. No PTR record: 200 with empty `names`. 502 when DNS is ' +
      'unreachable or the resolver answers an error (SERVFAIL, REFUSED) for the PTR. ' +
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
      'WHOIS record of a domain or IP over port 43. A domain is asked as its registered domain (the last two ' +
      'labels, three under a multi-label public suffix such as co.uk): registries hold no subdomains. The root ' +
      '(IANA) is asked first and its referral followed — ' +
      'IANA’s `refer:` to the registry or regional registry, a registry’s `Registrar WHOIS Server:`, ARIN’s ' +
      '`ReferralServer: whois://host[:port]` or `rwhois://…` — at most 3 servers in all, each within 5 seconds, ' +
      'each answer cut at 256 KB. A referral to a non-public address is not followed (nor one that fails): the ' +
      'answers so far stand. `raw` is the last, most specific answer (control characters but newline and tab ' +
      'removed); `parsed` holds the fields read from it (domains: registrar, created, expires, expires_in_days, ' +
      'updated, nameservers, status; IPs: cidr, net_name, organization, abuse_contact), completed from the ' +
      'registry’s answer before it. When no server beyond the root answers, RDAP is asked (rdap.org, which ' +
      'redirects to the registry; at most 3 redirects, https only): `raw` is then the RDAP JSON text and `parsed` ' +
      'the same fields read from it. 502 when neither a whois server nor RDAP answers. ' +
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
      'Connects to `host` on port 443 (or the port given as `host:port`, `[IPv6]:port`) with the host name as ' +
      'SNI, and reports the negotiated TLS version and cipher, whether the chain is valid for the host (trusted ' +
      'root, dates, name), and each certificate of the chain with its validity window. 502 when the host cannot be ' +
      'reached or the TLS handshake fails within 5 seconds. ' +
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
      'Finds and parses the SPF (`v=spf1`) TXT record of `domain` (RFC 7208) and reports warnings and errors: ' +
      'several records, syntax (unknown mechanisms, invalid ip4/ip6 networks and domains), DNS-querying terms ' +
      '(include, a, mx, ptr, exists, redirect) counted through nested includes and redirects against the limit ' +
      'of 10, void lookups over 2, include/redirect loops, more than 10 MX targets, deprecated `ptr`, `+all`. ' +
      'As no sender is known, every term before `all` is counted (the worst case); terms that depend on the ' +
      'sender (macros) are counted but not followed. A domain without a record answers 200 with `found: false`. ' +
      '502 when the domain’s own TXT question fails (no answer, SERVFAIL). ' +
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
      'Finds and parses the DMARC record at `_dmarc.<domain>` (RFC 7489) or, when there is none, at its ' +
      'organisational domain’s (the registrable domain, from a built-in list of multi-label public suffixes ' +
      'such as co.uk and com.au, else the last two labels): policy, subdomain policy and every tag, with ' +
      'warnings and errors (several records, a missing or invalid `p`, invalid sp, pct, adkim, aspf, rua/ruf ' +
      'URIs, fo, ri, rf, duplicate tags; unknown tags, `p=none`, `pct` below 100 and report destinations in ' +
      'other domains are warnings). A domain without a record answers 200 with `found: false`. 502 when the ' +
      'DNS question fails (no answer, SERVFAIL). ' +
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
      'Checks `ip` against 7 maintained DNS blocklists, asked in parallel (reversed octets for IPv4, nibbles for ' +
      'IPv6), and reports each result and the number listing it. A blocklist that does not answer in time, ' +
      'fails, or answers with a refusal code (such as Spamhaus’ 127.255.255.x) gives `listed: null` (unknown), ' +
      'never counted as listed. Private, loopback, documentation and other non-public addresses are refused ' +
      'with 400: blocklists list only public addresses. 502 when no blocklist could be asked at all. ' +
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
      'For an IP: the autonomous system announcing it, the announced prefix (the most specific when several ' +
      'are; the first origin AS when a prefix has several), its country, registry and allocation date, and the ' +
      'AS name; for an AS number (`AS13335` or `13335`): the AS name, country, registry and allocation date. ' +
      'From Team Cymru’s DNS interface; when it does not answer, from RDAP (there `prefix` is the registered ' +
      'network, and the AS of an IP is known only from ARIN). Fields not found are null; when nothing is known ' +
      '(an IP nobody announces, an AS number no registry knows) 404 `not_found`. A private, loopback, ' +
      'documentation or other non-public IP, and an AS number reserved for private use, documentation or ' +
      'AS_TRANS, are a 400. 502 when neither Team Cymru nor RDAP answers. ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: LookupAsnQuery,
    responses: { 200: ToolsAsnLookup, ...errors(400, 404, 429, 502) },
  },
  checkHttp2Support: {
    method: 'GET',
    path: '/tools/http2',
    summary: 'Check HTTP/2 support',
    description:
      'Connects to `host` on port 443 (or the port given as `host:port`, `[IPv6]:port`) and reports whether ' +
      'HTTP/1.1 and HTTP/2 are offered (ALPN), whether HTTP/3 is advertised (the `Alt-Svc` header of a `GET /` ' +
      'over the negotiated protocol), and the negotiated protocol and TLS version. A host that accepts the ' +
      'connection but not TLS answers 200 with everything false and `tls_version` null. 502 when the host cannot ' +
      'be reached within 5 seconds. ' +
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
      'Opens a TCP connection to `host` on `port`, or on ports 80 and 443 at once when no port is given, and ' +
      'reports whether each is open and the connect latency. A name is probed at its first IPv4 address (its first ' +
      'address when it has no IPv4 one), reported as `ip`. An unreachable host is not an error: a port that ' +
      'refuses the connection or does not accept it within 3 seconds answers `open: false` with null latency. A ' +
      'host that does not resolve is a 400; 502 when the server’s DNS resolver does not answer for it. ' +
      TARGETS +
      ' ' +
      PROBE_LIMIT,
    metadata: meta.public,
    query: PingHostQuery,
    responses: { 200: ToolsPing, ...errors(400, 429, 502) },
  },
  scanPorts: {
    method: 'GET',
    path: '/tools/ports',
    summary: 'Scan TCP ports',
    description:
      'Probes `host` (a name at its first IPv4 address, as /tools/ping) with a TCP connection to each of the given ' +
      'ports (at most 25, duplicates once, results in the order given; default: 19 common ports: 21, 22, 23, 25, ' +
      '53, 80, 110, 143, 443, 465, 587, 993, 995, 1433, 3306, 3389, 5432, 6379, 8080), 8 at a time, and reports ' +
      'each port’s usual service and category (`unknown` for both when the port has no well-known use) and ' +
      'whether it is open; latency is given for open ports only. An unreachable host is not an error: a port ' +
      'that refuses or does not accept within 2 seconds answers `open: false`. 26 or more ports, or a port ' +
      'outside 1 to 65535, is a 400; 502 when the server’s DNS resolver does not answer for the host. ' +
      TARGETS +
      ' ' +
      PROBE_LIMIT,
    metadata: meta.public,
    query: ScanPortsQuery,
    responses: { 200: ToolsPortScan, ...errors(400, 429, 502) },
  },
  traceRoute: {
    method: 'GET',
    path: '/tools/traceroute',
    summary: 'Trace the route to a host',
    description:
      'Traces the network path to `host` (a name at its first IPv4 address, as /tools/ping, reported as `ip`) with ' +
      'the server’s traceroute program: at most 20 hops, three probes per hop waiting 1 second each, the whole ' +
      'trace stopped after 15 seconds (the hops found by then are answered). Each hop gives the first address ' +
      'that answered it and the round-trip times of its three probes (null for a probe unanswered); unresponsive ' +
      'hops have null ip and times. 502 when the server’s DNS resolver does not answer for the host; 503 when ' +
      'the traceroute program is not available on the server (or cannot run). ' +
      TARGETS +
      ' ' +
      PROBE_LIMIT,
    metadata: meta.public,
    query: TraceRouteQuery,
    responses: { 200: ToolsTraceroute, ...errors(400, 429, 502, 503) },
  },
  getMyIp: {
    method: 'GET',
    path: '/tools/myip',
    summary: 'Get your IP address',
    description:
      'The caller’s IP address as the service sees it: the connection’s, or the client named by a proxy the ' +
      'server is configured to trust (TRUST_PROXY); an IPv4-mapped IPv6 address is shown as the IPv4 address. For ' +
      'a public address, what DNS knows of it: `hostname`, its reverse (PTR) name when that name resolves back to ' +
      'the address; `country` and `datacenter`, the country the address block is registered in and the name of ' +
      'the network (autonomous system) announcing it, from Team Cymru’s IP-to-ASN data. These are registration ' +
      'data, not geolocation; request headers are never believed for them. Each is omitted when unknown (always ' +
      'for private and other non-public addresses). ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    responses: { 200: ToolsMyIp, ...errors(429) },
  },
  inspectHttpHeaders: {
    method: 'GET',
    path: '/tools/headers',
    summary: 'Inspect HTTP headers',
    description:
      'Without `url`: the headers, method and protocol of the caller’s own request (credentials redacted). With ' +
      '`url` (http or https, any port): a `GET` whose status and response headers are reported (the body is not ' +
      'read), plus a checklist of security headers (HSTS, CSP, X-Frame-Options, X-Content-Type-Options, ' +
      'Referrer-Policy, Permissions-Policy). Redirects are followed, at most 5, each hop checked like the URL ' +
      'itself: a redirect to a refused address is a 400. Certificates are not verified (see /tools/ssl). 502 when ' +
      'the URL cannot be fetched within 5 seconds a hop (10 in all) or redirects more than 5 times. ' +
      TARGETS +
      ' ' +
      LOOKUP_LIMIT,
    metadata: meta.public,
    query: InspectHttpHeadersQuery,
    responses: { 200: ToolsHeadersResult, ...errors(400, 429, 502) },
  },
});
