/**
 * The one DNS client of the network tools, on dns-packet: a question to any server:port over UDP, again over
 * TCP when the answer is truncated, with the answer's records (TTLs and presentation text), rcode,
 * authoritative flag and response time. An answer is accepted only from the server asked, with the query's
 * id and question; anything else on the socket is ignored. No server answering in time is DnsUnreachable.
 */
import { randomInt } from 'node:crypto';
import dgram from 'node:dgram';
import { isIPv6, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import dnsPacket, { type Answer, type DecodedPacket, type Packet, type RecordType } from 'dns-packet';
import type { z } from 'zod';
import { DnsRcode } from '../../../contract/tools.contract';
import type { Ip } from '../../ipam';

export interface DnsServer {
  address: string;
  port: number;
}

/** The record types the tools ask for. */
export type QueryType = 'A' | 'AAAA' | 'MX' | 'TXT' | 'NS' | 'CNAME' | 'SOA' | 'PTR';

export interface DnsRecord {
  /** Owner name, without the trailing dot. */
  name: string;
  type: string;
  ttl: number;
  /**
   * Presentation text: names fully qualified with their trailing dot (`10 mail.example.com.` for MX, SOA as
   * its seven fields), a TXT record's character-strings joined as they are meant to be read (no quotes).
   */
  text: string;
  /** The record's data as decoded (MX preference and exchange, SOA fields …); names without a trailing dot. */
  data: unknown;
}

export interface DnsResponse {
  /** NOERROR, NXDOMAIN, SERVFAIL, REFUSED … */
  rcode: z.infer<typeof DnsRcode>;
  authoritative: boolean;
  answers: DnsRecord[];
  authorities: DnsRecord[];
  additionals: DnsRecord[];
  /** From sending the question to the whole answer, TCP retry included, in milliseconds (0.1 ms precision). */
  responseTimeMs: number;
}

export class DnsUnreachable extends Error {}

export const DNS_TIMEOUT_MS = 2500;
/** The EDNS buffer size offered: the DNS Flag Day 2020 figure, safe from fragmentation. */
const UDP_PAYLOAD_SIZE = 1232;

export interface QueryOptions {
  /** Ask the server to recurse (a resolver); false for a question to an authoritative server. Default true. */
  recursion?: boolean;
  timeoutMs?: number;
}

/** Asks `server` for `name`'s records of `type`. Throws DnsUnreachable when no valid answer arrives in time. */
export async function queryDns(
  server: DnsServer,
  name: string,
  type: QueryType,
  { recursion = true, timeoutMs = DNS_TIMEOUT_MS }: QueryOptions = {},
): Promise<DnsResponse> {
  const started = performance.now();
  const deadline = started + timeoutMs;
  const question = { type: type as RecordType, name: name.replace(/\.$/, '') || '.', class: 'IN' as const };
  const query: Packet = {
    type: 'query',
    id: randomInt(0x10000),
    flags: recursion ? dnsPacket.RECURSION_DESIRED : 0,
    questions: [question],
    additionals: [{ type: 'OPT', name: '.', udpPayloadSize: UDP_PAYLOAD_SIZE } as Answer],
  };
  let packet = await overUdp(server, query, deadline);
  if (packet.flag_tc) packet = await overTcp(server, query, deadline);
  return {
    rcode: rcodeOf(packet.flags ?? 0),
    authoritative: packet.flag_aa,
    answers: records(packet.answers),
    authorities: records(packet.authorities),
    additionals: records(packet.additionals),
    responseTimeMs: Math.round((performance.now() - started) * 10) / 10,
  };
}

/** The response code of a packet's flags (their low four bits): one of the sixteen names. */
function rcodeOf(flags: number): DnsResponse['rcode'] {
  const rcode = DnsRcode.options[flags & 0xf];
  if (rcode === undefined) throw new Error(`No name for the response code ${flags & 0xf}`);
  return rcode;
}

/** The answer to `query`, if it is one: a response with its id and the same question (names case-insensitive). */
function matches(query: Packet, packet: DecodedPacket): boolean {
  const [asked] = query.questions ?? [];
  const [answered] = packet.questions ?? [];
  return (
    packet.type === 'response' &&
    packet.id === query.id &&
    asked !== undefined &&
    answered !== undefined &&
    answered.type === asked.type &&
    answered.name.toLowerCase() === asked.name.toLowerCase()
  );
}

function decoded(buffer: Buffer): DecodedPacket | undefined {
  try {
    return dnsPacket.decode(buffer);
  } catch {
    return undefined;
  }
}

/**
 * One question and its answer over a socket `open` sets up: settled once, by the answer, an error or the
 * deadline, and the socket closed then (`open` returns how to close it).
 */
function exchange(
  server: DnsServer,
  deadline: number,
  open: (finish: (outcome: DecodedPacket | Error) => void, settled: () => boolean) => () => void,
): Promise<DecodedPacket> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (outcome: DecodedPacket | Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      close();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    };
    const timer = setTimeout(
      () => finish(new DnsUnreachable(`${label(server)} did not answer in time`)),
      remaining(deadline),
    );
    const close = open(finish, () => done);
  });
}

function overUdp(server: DnsServer, query: Packet, deadline: number): Promise<DecodedPacket> {
  return exchange(server, deadline, (finish, settled) => {
    // A connected socket: the kernel drops datagrams from anyone else, and a closed port (ICMP unreachable)
    // fails at once with ECONNREFUSED instead of waiting for the deadline.
    const socket = dgram.createSocket(isIPv6(server.address) ? 'udp6' : 'udp4');
    socket.on('error', (error) => finish(new DnsUnreachable(`${label(server)}: ${error.message}`)));
    socket.on('message', (message, from) => {
      if (from.port !== server.port || !sameAddress(from.address, server.address)) return;
      const packet = decoded(message);
      if (packet && matches(query, packet)) finish(packet);
    });
    socket.connect(server.port, server.address, () => {
      if (!settled()) socket.send(dnsPacket.encode(query));
    });
    return () => socket.close();
  });
}

function overTcp(server: DnsServer, query: Packet, deadline: number): Promise<DecodedPacket> {
  return exchange(server, deadline, (finish) => {
    const socket = new Socket();
    let buffered = Buffer.alloc(0);
    socket.on('error', (error) => finish(new DnsUnreachable(`${label(server)}: ${error.message}`)));
    socket.on('close', () => finish(new DnsUnreachable(`${label(server)} closed the connection`)));
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 2) return;
      const length = buffered.readUInt16BE(0);
      if (buffered.length < 2 + length) return;
      const packet = decoded(buffered.subarray(2, 2 + length));
      finish(
        packet && matches(query, packet) ? packet : new DnsUnreachable(`${label(server)} sent a malformed answer`),
      );
    });
    socket.connect(server.port, server.address, () => socket.write(dnsPacket.streamEncode(query)));
    return () => socket.destroy();
  });
}

const remaining = (deadline: number) => Math.max(1, deadline - performance.now());
const label = ({ address, port }: DnsServer) => (port === 53 ? address : `${address}:${port}`);
const sameAddress = (a: string, b: string) => a.replace(/^::ffff:/, '') === b.replace(/^::ffff:/, '');

function records(answers: Answer[] | undefined): DnsRecord[] {
  return (answers ?? [])
    .filter((answer) => answer.type !== 'OPT')
    .map((answer) => {
      const { name, type, ttl = 0, data } = answer as Answer & { ttl?: number; data: unknown };
      return { name, type, ttl, text: presentation(type, data), data };
    });
}

const fqdn = (name: string) => (name === '' || name.endsWith('.') ? name || '.' : `${name}.`);

/**
 * A record's data as text: what `dig +short` shows, but TXT strings joined rather than quoted. Remote data is
 * untrusted: control characters (in TXT strings or in labels) are written as `\DDD`, as in zone files.
 */
function presentation(type: string, data: unknown): string {
  return rawPresentation(type, data).replace(/\p{Cc}/gu, (c) => `\\${String(c.charCodeAt(0)).padStart(3, '0')}`);
}

function rawPresentation(type: string, data: unknown): string {
  switch (type) {
    case 'A':
    case 'AAAA':
      return String(data);
    case 'NS':
    case 'CNAME':
    case 'PTR':
    case 'DNAME':
      return fqdn(String(data));
    case 'MX': {
      const { preference, exchange } = data as { preference: number; exchange: string };
      return `${preference} ${fqdn(exchange)}`;
    }
    case 'SOA': {
      const soa = data as {
        mname: string;
        rname: string;
        serial: number;
        refresh: number;
        retry: number;
        expire: number;
        minimum: number;
      };
      return `${fqdn(soa.mname)} ${fqdn(soa.rname)} ${soa.serial} ${soa.refresh} ${soa.retry} ${soa.expire} ${soa.minimum}`;
    }
    case 'TXT':
      return txtStrings(data).join('');
    default:
      return Buffer.isBuffer(data) ? `\\# ${data.length} ${data.toString('hex')}` : JSON.stringify(data);
  }
}

/** A TXT record's character-strings, as UTF-8 text. */
export function txtStrings(data: unknown): string[] {
  const parts = Array.isArray(data) ? data : [data];
  return parts.map((part) => (Buffer.isBuffer(part) ? part.toString('utf8') : String(part)));
}

/** The reverse-lookup name of an IP: `d.c.b.a.in-addr.arpa`, or the 32 nibbles under `ip6.arpa`. */
export function arpaName(ip: Ip): string {
  const width = ip.version === 4 ? 4 : 32;
  const step = ip.version === 4 ? 8n : 4n;
  const mask = (1n << step) - 1n;
  const parts = Array.from({ length: width }, (_, i) => (ip.value >> (step * BigInt(i))) & mask);
  return ip.version === 4
    ? `${parts.join('.')}.in-addr.arpa`
    : `${parts.map((n) => n.toString(16)).join('.')}.ip6.arpa`;
}
