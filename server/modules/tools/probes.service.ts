/**
 * TCP probes: ping (connect time to one or two ports) and port scans. Every connection goes to the address
 * `checkedTarget` answered, as an IP literal, so nothing is resolved a second time between check and connect.
 */
import { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { z } from 'zod';
import type {
  PingHostQuery,
  ScanPortsQuery,
  ToolsPing,
  ToolsPortResult,
  ToolsPortScan,
} from '../../../contract/tools.contract';
import { parseIp } from '../../ipam';
import { checkedTarget, type Tools } from './tools';

/** How long a port may take to accept a connection before it counts as not open. */
export const PING_TIMEOUT_MS = 3000;
export const SCAN_TIMEOUT_MS = 2000;
/** Connections a scan keeps open at once (25 silent ports: 4 rounds of 2 s at most). */
export const SCAN_CONCURRENCY = 8;
const PING_DEFAULT_PORTS = [80, 443];

/** Port → usual service and its group. The first 19 entries are the ports a scan probes by default. */
const SERVICES: [number, string, string][] = [
  [21, 'ftp', 'file'],
  [22, 'ssh', 'remote'],
  [23, 'telnet', 'remote'],
  [25, 'smtp', 'mail'],
  [53, 'dns', 'dns'],
  [80, 'http', 'web'],
  [110, 'pop3', 'mail'],
  [143, 'imap', 'mail'],
  [443, 'https', 'web'],
  [465, 'smtps', 'mail'],
  [587, 'submission', 'mail'],
  [993, 'imaps', 'mail'],
  [995, 'pop3s', 'mail'],
  [1433, 'mssql', 'database'],
  [3306, 'mysql', 'database'],
  [3389, 'rdp', 'remote'],
  [5432, 'postgresql', 'database'],
  [6379, 'redis', 'database'],
  [8080, 'http-alt', 'web'],
  // Named when asked for, not scanned by default.
  [20, 'ftp-data', 'file'],
  [139, 'netbios-ssn', 'file'],
  [389, 'ldap', 'directory'],
  [445, 'smb', 'file'],
  [636, 'ldaps', 'directory'],
  [873, 'rsync', 'file'],
  [1521, 'oracle', 'database'],
  [1883, 'mqtt', 'messaging'],
  [2049, 'nfs', 'file'],
  [5672, 'amqp', 'messaging'],
  [5900, 'vnc', 'remote'],
  [6443, 'kubernetes-api', 'web'],
  [8000, 'http-alt', 'web'],
  [8443, 'https-alt', 'web'],
  [9200, 'elasticsearch', 'database'],
  [11211, 'memcached', 'database'],
  [27017, 'mongodb', 'database'],
];
export const DEFAULT_SCAN_PORTS = SERVICES.slice(0, 19).map(([port]) => port);
const SERVICE_OF = new Map(SERVICES.map(([port, service, category]) => [port, { service, category }]));

/** The usual service of a port and its group; `unknown` for both when the port has no well-known use. */
function serviceOf(port: number): { service: string; category: string } {
  return SERVICE_OF.get(port) ?? { service: 'unknown', category: 'unknown' };
}

/**
 * The address a probe goes to among the (all checked) addresses of a host: the first IPv4 one, else the
 * first. IPv4 first because a server's IPv6 route is the one more often missing, which would make a
 * reachable host look closed.
 */
export function probeAddress(addresses: [string, ...string[]]): string {
  return addresses.find((address) => parseIp(address)?.version === 4) ?? addresses[0];
}

/** TCP connect time to `ip`:`port` in milliseconds (0.1 ms precision), or null when refused or timed out. */
function connectTime(ip: string, port: number, timeoutMs: number): Promise<number | null> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const started = performance.now();
    const timer = setTimeout(() => finish(null), timeoutMs);
    const finish = (latency: number | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(latency);
    };
    socket.once('connect', () => finish(Math.round((performance.now() - started) * 10) / 10));
    socket.once('error', () => finish(null));
    socket.connect({ host: ip, port });
  });
}

/** `work` over every item, at most `limit` at once, the answers in the items' order. */
export async function mapBounded<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  // One iterator for all workers: each takes the next item left.
  const queue = items.entries();
  const worker = async () => {
    for (const [index, item] of queue) results[index] = await work(item);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export async function pingHost(tools: Tools, query: z.infer<typeof PingHostQuery>): Promise<z.infer<typeof ToolsPing>> {
  const ip = probeAddress(await checkedTarget(tools, query.host, 'host'));
  const ports = query.port === undefined ? PING_DEFAULT_PORTS : [query.port];
  const results = await Promise.all(
    ports.map(async (port) => {
      const latency = await connectTime(ip, port, PING_TIMEOUT_MS);
      return { port, open: latency !== null, latency_ms: latency };
    }),
  );
  return { host: query.host, ip, results, checked_at: tools.now().toISOString() };
}

export async function scanPorts(
  tools: Tools,
  query: z.infer<typeof ScanPortsQuery>,
): Promise<z.infer<typeof ToolsPortScan>> {
  const ip = probeAddress(await checkedTarget(tools, query.host, 'host'));
  // The query schema has already deduplicated the list and capped it at 25.
  const ports = query.ports ?? DEFAULT_SCAN_PORTS;
  const results = await mapBounded(ports, SCAN_CONCURRENCY, async (port): Promise<z.infer<typeof ToolsPortResult>> => {
    const latency = await connectTime(ip, port, SCAN_TIMEOUT_MS);
    const result = { port, ...serviceOf(port), open: latency !== null };
    return latency === null ? result : { ...result, latency_ms: latency };
  });
  return { host: query.host, open_count: results.filter((r) => r.open).length, total: results.length, results };
}
