/**
 * /tools/ssl and /tools/http2: a TLS handshake with the checked address of the target (never a second
 * resolution), the host name as SNI. The handshake never rejects a certificate, so a bad chain can still be
 * reported: its validity is judged here (the trust store: Node's roots plus TOOLS_EXTRA_CA_FILE; and the name).
 */
import http, { type IncomingHttpHeaders } from 'node:http';
import http2 from 'node:http2';
import tls, { type DetailedPeerCertificate, type SecureContext, type TLSSocket } from 'node:tls';
import type { z } from 'zod';
import type {
  CheckHttp2SupportQuery,
  CheckSslCertificateQuery,
  ToolsHttp2Check,
  ToolsSslCertificate,
  ToolsSslCheck,
} from '../../../contract/tools.contract';
import { upstreamFailed } from '../../errors';
import { formatIp, parseIp } from '../../ipam';
import { checkedTarget, type Tools } from './tools';

type Target = z.infer<typeof CheckSslCertificateQuery>['host'];
type Certificate = z.infer<typeof ToolsSslCertificate>;

/** Connect plus handshake, and the HTTP request of the http2 check, each within this. */
export const TLS_TIMEOUT_MS = 5_000;
/** The longest chain reported (a server may present any number of certificates). */
const MAX_CHAIN = 10;
const DAY_MS = 86_400_000;

export async function checkSslCertificate(
  tools: Tools,
  query: z.infer<typeof CheckSslCertificateQuery>,
): Promise<z.infer<typeof ToolsSslCheck>> {
  const target = await pinned(tools, query.host);
  const socket = await handshake(target, { secureContext: trustStore(tools.config.extraCa) }).catch(
    (error: unknown) => {
      throw error instanceof HandshakeFailure ? upstreamFailed(`host: ${error.message}`) : error;
    },
  );
  try {
    const leaf = socket.getPeerCertificate(true);
    // `authorized` is the chain against the trust store; Node adds the name check, done again here so the
    // verdict never depends on it (nor on a resumed session skipping it).
    const nameError = leaf.raw ? tls.checkServerIdentity(target.servername ?? target.address, leaf) : new Error();
    return {
      host: query.host.text,
      tls_version: socket.getProtocol() ?? 'unknown',
      cipher_suite: cipherName(socket.getCipher()),
      chain_valid: socket.authorized && nameError === undefined,
      certificates: chainOf(leaf).map((certificate) => describeCertificate(certificate, tools.now())),
    };
  } finally {
    closeGently(socket);
  }
}

export async function checkHttp2Support(
  tools: Tools,
  query: z.infer<typeof CheckHttp2SupportQuery>,
): Promise<z.infer<typeof ToolsHttp2Check>> {
  const target = await pinned(tools, query.host);
  let socket: TLSSocket;
  try {
    socket = await handshake(target, { ALPNProtocols: ['h2', 'http/1.1'] });
  } catch (error) {
    if (!(error instanceof HandshakeFailure)) throw error;
    if (error.stage === 'connect') throw upstreamFailed(`host: ${error.message}`);
    // Reachable, but no TLS: nothing is offered.
    const none = { http11: false, http2: false, http3_advertised: false, alpn_negotiated: null, tls_version: null };
    return { host: query.host.text, ...none };
  }
  const alpn = socket.alpnProtocol || null;
  const tlsVersion = socket.getProtocol();
  const altSvc = await altSvcOf(socket, alpn, target).catch(() => undefined);
  // A server without ALPN speaks HTTP/1.1; one that chose h2 is asked again offering only http/1.1.
  const http11 = alpn === 'h2' ? await acceptsHttp11(target) : true;
  return {
    host: query.host.text,
    http11,
    http2: alpn === 'h2',
    http3_advertised: altSvc !== undefined && advertisesHttp3(altSvc),
    alpn_negotiated: alpn,
    tls_version: tlsVersion,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Pure parts: names, certificates, Alt-Svc
// ---------------------------------------------------------------------------------------------------------

/** Remote text echoed in a response: no control characters, bounded. */
export const cleanText = (text: string, max = 512) =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point
  text.replace(/[\u0000-\u001f\u007f]/g, ' ').slice(0, max);

/** `CN=…, O=…` from Node's parsed name (a repeated attribute is an array: each value is listed). */
export function distinguishedName(name: object | undefined): string {
  if (!name) return '';
  const parts = Object.entries(name).flatMap(([key, value]: [string, unknown]) =>
    (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((v) => `${key}=${String(v)}`),
  );
  return cleanText(parts.join(', '));
}

/**
 * The DNS names and IP addresses of Node's `subjectaltname` text (`DNS:a, IP Address:1.2.3.4, …`; a value
 * with a comma or quote comes JSON-quoted), addresses in their usual short form. Other kinds are left out.
 */
export function parseSubjectAltNames(text: string | undefined): string[] {
  const names: string[] = [];
  for (const match of (text ?? '').matchAll(/(?:^|, )([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)/g)) {
    const [, kind, raw = ''] = match;
    let value = raw;
    if (raw.startsWith('"')) {
      try {
        value = JSON.parse(raw);
      } catch {
        continue;
      }
    }
    if (kind === 'DNS') names.push(cleanText(value, 253));
    else if (kind === 'IP Address') {
      const ip = parseIp(value);
      names.push(ip ? formatIp(ip) : cleanText(value, 64));
    }
  }
  return names;
}

/** The presented chain from the leaf, following each issuer until a self-signed one, a loop or the cap. */
function chainOf(leaf: DetailedPeerCertificate): DetailedPeerCertificate[] {
  const chain: DetailedPeerCertificate[] = [];
  const seen = new Set<string>();
  let current: DetailedPeerCertificate | undefined = leaf;
  while (current?.raw && !seen.has(current.fingerprint256) && chain.length < MAX_CHAIN) {
    chain.push(current);
    seen.add(current.fingerprint256);
    current = current.issuerCertificate;
  }
  return chain;
}

function describeCertificate(certificate: DetailedPeerCertificate, now: Date): Certificate {
  const notBefore = new Date(certificate.valid_from);
  const notAfter = new Date(certificate.valid_to);
  return {
    subject: distinguishedName(certificate.subject),
    issuer: distinguishedName(certificate.issuer),
    sans: parseSubjectAltNames(certificate.subjectaltname),
    not_before: notBefore.toISOString(),
    not_after: notAfter.toISOString(),
    days_remaining: Math.floor((notAfter.getTime() - now.getTime()) / DAY_MS),
    is_expired: now.getTime() > notAfter.getTime(),
  };
}

/** The IANA name of the cipher (`TLS_AES_256_GCM_SHA384`), else OpenSSL's. */
const cipherName = (cipher: tls.CipherNameAndProtocol) => cipher.standardName || cipher.name;

/** Whether an `Alt-Svc` value offers HTTP/3: an `h3` (or draft `h3-29`) protocol id among its alternatives. */
export function advertisesHttp3(altSvc: string): boolean {
  return altSvc.split(',').some((alternative) => /^\s*h3(?:-[0-9A-Za-z]+)?\s*=/i.test(alternative));
}

// ---------------------------------------------------------------------------------------------------------
// Network
// ---------------------------------------------------------------------------------------------------------

interface PinnedTarget {
  address: string;
  port: number;
  /** SNI: the host name; none for an IP literal. */
  servername: string | undefined;
  /** `Host`/`:authority` of the HTTP request. */
  authority: string;
}

/** The checked address to connect to (IPv4 first), and how to name the host over TLS and HTTP. */
async function pinned(tools: Tools, target: Target): Promise<PinnedTarget> {
  const addresses = await checkedTarget(tools, target.host, 'host');
  const address = addresses.find((a) => !a.includes(':')) ?? addresses[0];
  const literal = parseIp(target.host) !== null;
  const name = literal && target.host.includes(':') ? `[${target.host}]` : target.host;
  return {
    address,
    port: target.port,
    servername: literal ? undefined : target.host.replace(/\.$/, ''),
    authority: target.port === 443 ? name : `${name}:${target.port}`,
  };
}

/** Node's default roots plus the operator's extra anchors, built once; undefined: Node's defaults. */
const trustStores = new Map<string, SecureContext>();
function trustStore(extraCa: string | undefined): SecureContext | undefined {
  if (!extraCa) return undefined;
  let store = trustStores.get(extraCa);
  if (!store) {
    store = tls.createSecureContext({ ca: [...tls.rootCertificates, extraCa] });
    trustStores.set(extraCa, store);
  }
  return store;
}

/** Why a handshake did not complete: before the TCP connection (`connect`) or during TLS (`tls`). */
class HandshakeFailure extends Error {
  constructor(
    readonly stage: 'connect' | 'tls',
    message: string,
  ) {
    super(message);
  }
}

const CONNECT_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
};

/** A completed TLS handshake with the pinned address, never rejecting the certificate (judged by the caller). */
function handshake(
  target: PinnedTarget,
  options: { ALPNProtocols?: string[]; secureContext?: SecureContext },
  timeoutMs = TLS_TIMEOUT_MS,
): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    let connected = false;
    const socket = tls.connect({
      host: target.address,
      port: target.port,
      servername: target.servername,
      rejectUnauthorized: false,
      ...options,
    });
    const fail = (reason: string) => {
      clearTimeout(timer);
      socket.destroy();
      const where = connected ? 'TLS handshake failed' : `cannot connect to port ${target.port}`;
      reject(new HandshakeFailure(connected ? 'tls' : 'connect', `${where}: ${reason}`));
    };
    const timer = setTimeout(() => fail(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.once('connect', () => {
      connected = true;
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      const code = error.code ?? 'unknown error';
      fail(CONNECT_ERRORS[code] ?? code);
    });
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
  });
}

/** Ends the connection with a TLS close_notify, and drops it if the server does not close its side soon. */
function closeGently(socket: TLSSocket) {
  socket.end();
  setTimeout(() => socket.destroy(), 1_000).unref();
}

/** Whether a handshake offering only http/1.1 succeeds (a server without ALPN counts: it speaks HTTP/1.1). */
async function acceptsHttp11(target: PinnedTarget): Promise<boolean> {
  try {
    const socket = await handshake(target, { ALPNProtocols: ['http/1.1'] });
    closeGently(socket);
    return socket.alpnProtocol === 'http/1.1' || !socket.alpnProtocol;
  } catch {
    return false;
  }
}

/**
 * The `Alt-Svc` header of `GET /` sent over the socket already open, in the protocol ALPN chose; the body
 * is never read. Undefined when there is none; rejects when no response arrives in time.
 */
function altSvcOf(socket: TLSSocket, alpn: string | null, target: PinnedTarget): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const done = (headers: IncomingHttpHeaders | undefined, error?: Error) => {
      clearTimeout(timer);
      cleanup();
      if (error) reject(error);
      else resolve(headerText(headers?.['alt-svc']));
    };
    const timer = setTimeout(() => done(undefined, new Error('no HTTP response in time')), TLS_TIMEOUT_MS);
    let cleanup: () => void = () => socket.destroy();
    const requestHeaders = { 'user-agent': 'ipam-service-tools/1', accept: '*/*' };
    if (alpn === 'h2') {
      const session = http2.connect(`https://${target.authority}`, { createConnection: () => socket });
      cleanup = () => session.destroy();
      session.on('error', (error) => done(undefined, error));
      const stream = session.request({ ':method': 'GET', ':path': '/', ...requestHeaders });
      stream.on('response', (headers) => done(headers));
      stream.on('error', (error) => done(undefined, error));
      stream.end();
    } else {
      const request = http.request({
        createConnection: () => socket,
        method: 'GET',
        path: '/',
        headers: { host: target.authority, ...requestHeaders },
      });
      cleanup = () => {
        request.destroy();
        socket.destroy();
      };
      request.on('response', (response) => done(response.headers));
      request.on('error', (error) => done(undefined, error));
      request.end();
    }
  });
}

const headerText = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);
