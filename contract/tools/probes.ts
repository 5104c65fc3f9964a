/** Responses of the probing tools: HTTP/2, ping, ports, traceroute, my IP, headers. */
import { extendApi } from '@anatine/zod-openapi';
import { z } from 'zod';
import { FreeForm, Timestamp } from '../common/schemas';

export const ToolsHttp2Check = extendApi(
  z
    .object({
      host: z.string().describe('Host checked, as given (with the port when one was given), e.g. example.com'),
      http11: z
        .boolean()
        .describe(
          'HTTP/1.1 is offered: chosen by ALPN when h2 and http/1.1 were offered, or accepted in a second handshake ' +
            'offering only http/1.1 (a server without ALPN speaks HTTP/1.1)',
        ),
      http2: z.boolean().describe('HTTP/2 is offered: the server chose h2 by ALPN'),
      http3_advertised: z
        .boolean()
        .describe('The `Alt-Svc` header of the response to `GET /` advertises HTTP/3 (h3 or a draft h3-NN)'),
      alpn_negotiated: z
        .string()
        .nullable()
        .describe('Protocol chosen by ALPN when h2 and http/1.1 are offered, e.g. h2; null when none'),
      tls_version: z
        .string()
        .nullable()
        .describe(
          'Negotiated TLS version; null when the TLS handshake failed (the host accepted the connection but not ' +
            'TLS: every other field is then false or null)',
        ),
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
      port: z.number().int().min(1).max(65535).describe('TCP port probed, e.g. 443'),
      open: z.boolean().describe('A TCP connection was accepted within 3 seconds'),
      latency_ms: z
        .number()
        .nonnegative()
        .nullable()
        .describe('TCP connect time in milliseconds (0.1 ms precision); null when not open'),
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
      host: z.string().describe('Host probed, e.g. example.com'),
      ip: z
        .string()
        .describe(
          'The address probed: the host when it is an IP address, else the first IPv4 address its name resolves to ' +
            '(its first address when it has no IPv4 one)',
        ),
      results: z.array(ToolsPingResult).describe('One result per port probed: the port given, or 80 then 443'),
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
      port: z.number().int().min(1).max(65535).describe('TCP port probed, e.g. 22'),
      service: z
        .string()
        .describe('Usual service on the port, e.g. https; `unknown` when the port has no well-known use'),
      category: z
        .string()
        .describe(
          'Group of the service: web, mail, database, remote, file, dns, directory or messaging; `unknown` with an ' +
            'unknown service',
        ),
      open: z.boolean().describe('Whether the port accepted a connection within 2 seconds'),
      latency_ms: z
        .number()
        .nonnegative()
        .optional()
        .describe('TCP connect time in milliseconds (0.1 ms precision); omitted for closed ports'),
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
      host: z.string().describe('Host scanned, e.g. example.com'),
      open_count: z.number().int().nonnegative().describe('Number of open ports found'),
      total: z.number().int().nonnegative().describe('Number of ports scanned'),
      results: z.array(ToolsPortResult).describe('One result per port scanned, in the order asked'),
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
      ip: z
        .string()
        .nullable()
        .describe(
          'First address that answered the hop’s probes (a balanced route may answer from several); null for an ' +
            'unresponsive hop',
        ),
      rtt1_ms: rtt.describe('Round-trip time of the first probe in milliseconds; null when unanswered'),
      rtt2_ms: rtt.describe('Round-trip time of the second probe in milliseconds; null when unanswered'),
      rtt3_ms: rtt.describe('Round-trip time of the third probe in milliseconds; null when unanswered'),
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
      host: z.string().describe('Host traced, e.g. example.com'),
      ip: z
        .string()
        .describe(
          'The address traced: the host when it is an IP address, else the first IPv4 address its name resolves to ' +
            '(its first address when it has no IPv4 one)',
        ),
      hops: z.array(ToolsTracerouteHop).describe('Hops on the route, nearest first, at most 20'),
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
      ip: z.string().describe('The caller’s IP address as seen by the service (through a trusted proxy)'),
      country: z
        .string()
        .optional()
        .describe(
          'ISO 3166-1 alpha-2 code of the country the address block is registered in (Team Cymru’s IP-to-ASN data; ' +
            'not geolocation); omitted when unknown',
        ),
      datacenter: z
        .string()
        .optional()
        .describe(
          'Name of the network (autonomous system) announcing the address, e.g. a hosting provider’s (Team ' +
            'Cymru’s IP-to-ASN data); omitted when unknown',
        ),
      hostname: z
        .string()
        .optional()
        .describe('Reverse DNS (PTR) name of the address that resolves back to it; omitted when there is none'),
    })
    .strict(),
  {
    title: 'ToolsMyIp',
    description: 'The caller’s IP address',
    example: {
      ip: '5.9.10.11',
      country: 'DE',
      datacenter: 'HETZNER-AS, DE',
      hostname: 'static.11.10.9.5.clients.your-server.de',
    },
  },
);

export const ToolsRequestHeaders = extendApi(
  z
    .object({
      headers: FreeForm.describe(
        'Headers of the caller’s request as the service received them (a proxy in front may add some), ' +
          'lower-case name → value; the values of Authorization, Proxy-Authorization and Cookie are replaced by ' +
          '`[redacted]`',
      ),
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
      present: z.boolean().describe('Whether the header is present in the response'),
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
      'x_frame_options, x_content_type_options, referrer_policy, permissions_policy. HSTS counts only over https ' +
      '(browsers ignore it over plain http): for an http URL `hsts` is reported absent',
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
      url: z.string().describe('The URL whose response is reported: the one given, or where its redirects led'),
      status: z.number().int().min(100).max(599).describe('HTTP status of that response'),
      headers: FreeForm.describe(
        'Headers of that response, lower-case name → value (a string; `set-cookie` is a list of strings). At most ' +
          '100 headers, each value cut at 1024 characters, control characters removed',
      ),
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
  example: {
    headers: { host: 'ipam.example.com', 'user-agent': 'curl/8.5.0', accept: '*/*' },
    method: 'GET',
    proto: 'HTTP/1.1',
  },
});
