import { randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

/** Configuration from the environment; every variable is documented in the README and docs/operations.md. */
export interface Config {
  port: number;
  host: string;
  /** PGlite data directory, used when no DATABASE_URL is set. */
  dataDir: string;
  databaseUrl?: string;
  /** Connections each process keeps to a PostgreSQL server (DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /**
   * Server processes (WEB_CONCURRENCY, 1–1024) serving one port as a cluster (server/cluster.ts); unset: one per
   * core on a PostgreSQL server. The embedded database runs 1 whatever this says (`workerCount`).
   */
  webConcurrency?: number;
  /**
   * Express "trust proxy" setting, for the client IP and https detection behind a proxy: false (trust no
   * proxy), a hop count, or a comma-separated list of proxy addresses, CIDRs and Express's names
   * (loopback, linklocal, uniquelocal). Never `true`: see parseTrustProxy.
   */
  trustProxy: false | number | string;
  /** Where browsers land after sign-in (`/login?error=…` on a failed one). */
  appUrl: string;
  /** This API's own public base URL, for links in emails and OAuth callbacks. */
  publicUrl: string;
  /** `smtp://user:pass@host:port`; unset writes sign-in links to the server log instead. */
  smtpUrl?: string;
  mailFrom: string;
  /** Google sign-in (OpenID Connect); the issuer is configurable so tests run a local provider. */
  google: { issuer: string; clientId?: string; clientSecret?: string };
  /**
   * CIDRs outbound requests (webhooks, tools) may reach although the shared block list refuses them
   * (loopback, private ranges …); set at startup only, never from a request. Tests list their receivers.
   */
  outboundAllowCidrs: string[];
  /** pino level of the JSON logs (LOG_LEVEL). */
  logLevel: LogLevel;
  /** When set, GET /metrics needs `Authorization: Bearer <token>` (METRICS_TOKEN); unset, it is open. */
  metricsToken?: string;
  /** Exact origins allowed cross-origin requests (CORS_ORIGINS); empty: no CORS headers at all. */
  corsOrigins: string[];
  /** How long a shutdown waits for requests in flight before it gives up (SHUTDOWN_TIMEOUT_MS). */
  shutdownTimeoutMs: number;
  /** How often the process that runs the periodic jobs releases the holds that ended (HOLD_RELEASE_INTERVAL_MS). */
  holdReleaseIntervalMs: number;
  /** Stripe (STRIPE_*) and the checkout cooldown (CHECKOUT_COOLDOWN_SECONDS); no key: billing answers 503. */
  billing: BillingConfig;
  /** The network tools' resolvers, whois root, trust anchors and traceroute program (TOOLS_*). */
  tools: ToolsConfig;
  /** Heavy requests (exports, imports, search, listings) a process runs at once (HEAVY_MAX_CONCURRENT). */
  heavyMaxConcurrent: number;
  /** Failed authentications one client address may make in a minute before 429 (AUTH_FAILURES_PER_MINUTE). */
  authFailuresPerMinute: number;
  /**
   * The server's key for secrets kept at rest (SECRETS_KEY, 32 bytes as 64 hex digits or base64); unset, see
   * `serverSecretsKey`.
   */
  secretsKey?: Buffer;
}

/** A DNS resolver the tools query: its address, port (53) and, for the propagation check, where it is. */
export interface ResolverConfig {
  label: string;
  address: string;
  port: number;
  location?: string;
}

/** The network tools' part of the configuration (README: the TOOLS_* variables); startup only. */
export interface ToolsConfig {
  /** The 3 resolvers of /tools/dns (TOOLS_DNS_RESOLVERS). */
  dnsResolvers: ResolverConfig[];
  /** The 8 resolvers of /tools/dns-propagation (TOOLS_PROPAGATION_RESOLVERS). */
  propagationResolvers: ResolverConfig[];
  /** The resolver of the server's own lookups (TOOLS_RECURSIVE_RESOLVER); unset: the system's. */
  recursiveResolver?: { address: string; port: number };
  /** The first whois server (TOOLS_WHOIS_ROOT). */
  whoisRoot: { host: string; port: number };
  /**
   * Base URL of the RDAP service whois and ASN lookups fall back to (TOOLS_RDAP_URL, https://rdap.org unless
   * set), without a trailing slash; left out (a test's own tools settings), there is no RDAP fallback.
   */
  rdapUrl?: string;
  /** Extra trust anchors for /tools/ssl, PEM, read at startup from TOOLS_EXTRA_CA_FILE. */
  extraCa?: string;
  /** The traceroute program (TOOLS_TRACEROUTE_BIN). */
  tracerouteBin: string;
  /** Tool requests a process runs at once (TOOLS_MAX_CONCURRENT); more wait their turn. */
  maxConcurrentRuns: number;
}

export const DEFAULT_DNS_RESOLVERS: ResolverConfig[] = [
  { label: 'Google', address: '8.8.8.8', port: 53, location: 'United States' },
  { label: 'Cloudflare', address: '1.1.1.1', port: 53, location: 'Worldwide (anycast)' },
  { label: 'Quad9', address: '9.9.9.9', port: 53, location: 'Switzerland' },
];

export const DEFAULT_PROPAGATION_RESOLVERS: ResolverConfig[] = [
  { label: 'Google', address: '8.8.8.8', port: 53, location: 'Mountain View, United States' },
  { label: 'Cloudflare', address: '1.1.1.1', port: 53, location: 'San Francisco, United States' },
  { label: 'Quad9', address: '9.9.9.9', port: 53, location: 'Zurich, Switzerland' },
  { label: 'OpenDNS', address: '208.67.222.222', port: 53, location: 'San Francisco, United States' },
  { label: 'AdGuard', address: '94.140.14.14', port: 53, location: 'Limassol, Cyprus' },
  { label: 'Yandex', address: '77.88.8.8', port: 53, location: 'Moscow, Russia' },
  { label: 'CleanBrowsing', address: '185.228.168.9', port: 53, location: 'Los Angeles, United States' },
  { label: 'DNS.SB', address: '185.222.222.222', port: 53, location: 'Frankfurt, Germany' },
];

/** `host[:port]` (`[v6]:port` for IPv6) of a variable, with its default port. */
function parseHostPort(name: string, value: string, defaultPort: number): { host: string; port: number } {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(value.trim());
  const host = match?.[1] ?? match?.[2];
  const port = match?.[3] === undefined ? defaultPort : Number(match[3]);
  if (host === undefined || port < 1 || port > 65535) throw new Error(`${name} must be host[:port], not ${value}`);
  return { host, port };
}

/** rdap.org redirects each question to the registry that holds the answer (IANA's RDAP bootstrap). */
export const DEFAULT_RDAP_URL = 'https://rdap.org';

/** TOOLS_RDAP_URL: an http(s) base URL without credentials, query or fragment; the trailing slash dropped. */
export function parseRdapUrl(value: string): string {
  let url: URL | null;
  try {
    url = new URL(value.trim());
  } catch {
    url = null;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash)
    throw new Error(`TOOLS_RDAP_URL must be an http(s) base URL such as https://rdap.org, not ${value}`);
  return url.href.replace(/\/+$/, '');
}

/** A JSON array of `{label, address, port?, location?}` (TOOLS_DNS_RESOLVERS, TOOLS_PROPAGATION_RESOLVERS). */
function parseResolvers(name: string, value: string | undefined, fallback: ResolverConfig[]): ResolverConfig[] {
  if (!value) return fallback;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new Error(`${name} must be a JSON array of {label, address, port?, location?}`);
  }
  if (!Array.isArray(parsed) || parsed.length === 0) throw new Error(`${name} must be a non-empty JSON array`);
  return parsed.map((entry, i) => {
    const { label, address, port = 53, location } = (entry ?? {}) as Record<string, unknown>;
    const valid =
      typeof label === 'string' &&
      label !== '' &&
      typeof address === 'string' &&
      isIP(address) !== 0 &&
      Number.isInteger(port) &&
      (port as number) >= 1 &&
      (port as number) <= 65535 &&
      (location === undefined || typeof location === 'string');
    if (!valid) throw new Error(`${name}[${i}] must be {label, address (an IP), port? (1-65535), location?}`);
    return { label, address, port: port as number, ...(location ? { location: location as string } : {}) };
  });
}

/** Billing's part of the configuration: the STRIPE_* variables and CHECKOUT_COOLDOWN_SECONDS. */
export interface BillingConfig {
  stripeSecretKey?: string;
  stripeWebhookSecret?: string;
  /** The Stripe price of each paid plan a checkout sells. */
  prices: { pro?: string; teams?: string };
  /** Another Stripe API origin: tests point it at a server on loopback that speaks Stripe's wire format. */
  stripeApiBase?: string;
  checkoutCooldownSeconds: number;
}

/** How long after an organisation is created before it may check out (CHECKOUT_COOLDOWN_SECONDS). */
export const DEFAULT_CHECKOUT_COOLDOWN_SECONDS = 600;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** What the HTTP app defaults when its caller leaves it out (see AppConfig). */
type AppDefaulted = 'logLevel' | 'corsOrigins' | 'heavyMaxConcurrent' | 'authFailuresPerMinute' | 'secretsKey';

/**
 * The part of the configuration the HTTP app needs (listening, storage and shutdown are main.ts's
 * concern); the log level, the CORS origins and the fairness bounds default to info, none and the defaults
 * below.
 */
export type AppConfig = Omit<
  Config,
  | 'port'
  | 'host'
  | 'dataDir'
  | 'databaseUrl'
  | 'databasePoolSize'
  | 'shutdownTimeoutMs'
  | 'holdReleaseIntervalMs'
  | AppDefaulted
> &
  Partial<Pick<Config, AppDefaulted>>;

/** Enough connections for commits to wait on the disk together while others run (see docs/performance.md). */
export const DEFAULT_POOL_SIZE = 10;
/** Tool requests run at once per process: each opens a few sockets and lasts seconds at most. */
export const DEFAULT_TOOLS_MAX_CONCURRENT = 32;
/** How long a shutdown lets requests in flight finish (SHUTDOWN_TIMEOUT_MS). */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
/** How often ended holds are released (HOLD_RELEASE_INTERVAL_MS): an address is released within this of its end. */
export const DEFAULT_HOLD_RELEASE_INTERVAL_MS = 5_000;
/**
 * Heavy requests a process runs at once: a few per core keep the database busy while the light requests
 * still find the event loop and free connections (the pool holds 10 by default).
 */
export const DEFAULT_HEAVY_MAX_CONCURRENT = 6;
/** Failed authentications a client address may make per minute: a person mistyping or a stale key, not a scan. */
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 30;

/** A whole-number variable within [min, max], `fallback` when unset or empty. */
function wholeNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  [min, max]: [number, number],
  unit = '',
): number {
  const value = Number(env[name] || fallback);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`${name} must be a whole number ${unit}from ${min} to ${max}, not ${env[name]}`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, not ${env.PORT}`);
  const poolSize = wholeNumber(env, 'DATABASE_POOL_SIZE', DEFAULT_POOL_SIZE, [1, 1000]);
  const logLevel = (env.LOG_LEVEL || 'info').trim().toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not ${env.LOG_LEVEL}`);
  const shutdownTimeoutMs = wholeNumber(
    env,
    'SHUTDOWN_TIMEOUT_MS',
    DEFAULT_SHUTDOWN_TIMEOUT_MS,
    [1, 3_600_000],
    'of milliseconds ',
  );
  const cooldown = wholeNumber(
    env,
    'CHECKOUT_COOLDOWN_SECONDS',
    DEFAULT_CHECKOUT_COOLDOWN_SECONDS,
    [0, 31_536_000],
    'of seconds ',
  );
  if (env.STRIPE_API_BASE && !/^https?:\/\/[^/]+\/?$/.test(env.STRIPE_API_BASE))
    throw new Error(`STRIPE_API_BASE must be an origin such as http://127.0.0.1:12111, not ${env.STRIPE_API_BASE}`);
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, '');
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir: env.DATA_DIR ?? './data',
    databaseUrl: env.DATABASE_URL || undefined,
    databasePoolSize: poolSize,
    webConcurrency: env.WEB_CONCURRENCY?.trim() ? wholeNumber(env, 'WEB_CONCURRENCY', 1, [1, 1024]) : undefined,
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    appUrl: (env.APP_URL || publicUrl).replace(/\/$/, ''),
    publicUrl,
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || 'IPAM Service <no-reply@localhost>',
    outboundAllowCidrs: (env.OUTBOUND_ALLOW_CIDRS ?? '')
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean),
    google: {
      issuer: env.GOOGLE_ISSUER || 'https://accounts.google.com',
      clientId: env.GOOGLE_CLIENT_ID || undefined,
      clientSecret: env.GOOGLE_CLIENT_SECRET || undefined,
    },
    logLevel: logLevel as LogLevel,
    metricsToken: env.METRICS_TOKEN || undefined,
    corsOrigins: parseCorsOrigins(env.CORS_ORIGINS),
    shutdownTimeoutMs,
    holdReleaseIntervalMs: wholeNumber(
      env,
      'HOLD_RELEASE_INTERVAL_MS',
      DEFAULT_HOLD_RELEASE_INTERVAL_MS,
      [10, 3_600_000],
      'of milliseconds ',
    ),
    heavyMaxConcurrent: wholeNumber(env, 'HEAVY_MAX_CONCURRENT', DEFAULT_HEAVY_MAX_CONCURRENT, [1, 1000]),
    authFailuresPerMinute: wholeNumber(
      env,
      'AUTH_FAILURES_PER_MINUTE',
      DEFAULT_AUTH_FAILURES_PER_MINUTE,
      [1, 1_000_000],
    ),
    secretsKey: env.SECRETS_KEY ? parseSecretsKey(env.SECRETS_KEY) : undefined,
    tools: {
      dnsResolvers: parseResolvers('TOOLS_DNS_RESOLVERS', env.TOOLS_DNS_RESOLVERS, DEFAULT_DNS_RESOLVERS),
      propagationResolvers: parseResolvers(
        'TOOLS_PROPAGATION_RESOLVERS',
        env.TOOLS_PROPAGATION_RESOLVERS,
        DEFAULT_PROPAGATION_RESOLVERS,
      ),
      recursiveResolver: env.TOOLS_RECURSIVE_RESOLVER
        ? (({ host, port }) => ({ address: host, port }))(
            parseHostPort('TOOLS_RECURSIVE_RESOLVER', env.TOOLS_RECURSIVE_RESOLVER, 53),
          )
        : undefined,
      whoisRoot: parseHostPort('TOOLS_WHOIS_ROOT', env.TOOLS_WHOIS_ROOT || 'whois.iana.org', 43),
      rdapUrl: parseRdapUrl(env.TOOLS_RDAP_URL || DEFAULT_RDAP_URL),
      extraCa: env.TOOLS_EXTRA_CA_FILE ? readExtraCa(env.TOOLS_EXTRA_CA_FILE) : undefined,
      tracerouteBin: env.TOOLS_TRACEROUTE_BIN || 'traceroute',
      maxConcurrentRuns: wholeNumber(env, 'TOOLS_MAX_CONCURRENT', DEFAULT_TOOLS_MAX_CONCURRENT, [1, 10_000]),
    },
    billing: {
      stripeSecretKey: env.STRIPE_SECRET_KEY || undefined,
      stripeWebhookSecret: env.STRIPE_WEBHOOK_SECRET || undefined,
      prices: { pro: env.STRIPE_PRICE_PRO || undefined, teams: env.STRIPE_PRICE_TEAMS || undefined },
      stripeApiBase: env.STRIPE_API_BASE || undefined,
      checkoutCooldownSeconds: cooldown,
    },
  };
}

/** SECRETS_KEY: 32 bytes, as 64 hex digits or in base64. */
function parseSecretsKey(value: string): Buffer {
  const text = value.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(text) && key.toString('base64') !== text.replace(/=*$/, '=')))
    throw new Error('SECRETS_KEY must be 32 random bytes as 64 hex digits or in base64 (openssl rand -hex 32)');
  return key;
}

/**
 * The key secrets at rest are sealed with: SECRETS_KEY when set; else, on the embedded database, a key file
 * beside its data (`secrets.key`, made at the first start, readable by the owner only); else a key of this
 * process alone, which `ephemeral` says (a secret sealed by another process or before a restart cannot be
 * opened: the operator should set SECRETS_KEY, the same for every process).
 */
export function serverSecretsKey(config: Pick<Config, 'secretsKey' | 'databaseUrl' | 'dataDir'>): {
  key: Buffer;
  ephemeral: boolean;
} {
  if (config.secretsKey) return { key: config.secretsKey, ephemeral: false };
  if (config.databaseUrl) return { key: randomBytes(32), ephemeral: true };
  const file = join(config.dataDir, 'secrets.key');
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  }
  return { key: parseSecretsKey(readFileSync(file, 'utf8')), ephemeral: false };
}

/** TOOLS_EXTRA_CA_FILE's certificates, read once at startup so a missing or broken file stops the start. */
function readExtraCa(path: string): string {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`TOOLS_EXTRA_CA_FILE cannot be read: ${(error as Error).message}`);
  }
  try {
    const blocks = pem.match(/-----BEGIN CERTIFICATE-----[^-]*-----END CERTIFICATE-----/g);
    if (!blocks) throw new Error('no PEM certificate in it');
    for (const block of blocks) new X509Certificate(block);
  } catch (error) {
    throw new Error(`TOOLS_EXTRA_CA_FILE must hold PEM certificates (${path}): ${(error as Error).message}`);
  }
  return pem;
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY as Express takes it: unset or `false` trusts no proxy; a whole number trusts that many hops
 * (the client is the address that many entries from the right of X-Forwarded-For); otherwise a
 * comma-separated list of proxy addresses, CIDRs (address/prefix length) and Express's names loopback,
 * linklocal and uniquelocal. `true` is refused: it would take the left-most X-Forwarded-For entry, which
 * any client writes itself, as the client address, and that address keys the per-IP rate limits.
 */
function parseTrustProxy(value: string | undefined): false | number | string {
  const trimmed = value?.trim() ?? '';
  if (trimmed === '' || trimmed.toLowerCase() === 'false') return false;
  if (trimmed.toLowerCase() === 'true')
    throw new Error(
      "TRUST_PROXY=true is refused: it would trust any client's X-Forwarded-For header, so every client could " +
        'choose the address the per-IP rate limits count it under. Set the number of proxies in front of the ' +
        'service (TRUST_PROXY=1) or their addresses (TRUST_PROXY=10.0.0.0/8,loopback).',
    );
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    if (hops > 100) throw new Error(`TRUST_PROXY must be a hop count up to 100 or a list of addresses, not ${value}`);
    return hops;
  }
  const entries = trimmed
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return false;
  for (const entry of entries) {
    if (!PROXY_NAMES.has(entry) && !isAddressOrCidr(entry))
      throw new Error(
        `TRUST_PROXY entry "${entry}" is neither an IP address, a CIDR (address/prefix length) nor one of ` +
          'loopback, linklocal, uniquelocal; TRUST_PROXY is a hop count or a comma-separated list of those',
      );
  }
  return entries.join(',');
}

function isAddressOrCidr(entry: string): boolean {
  const [address = '', prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/**
 * CORS_ORIGINS: comma-separated exact origins (scheme://host[:port]), normalised as browsers send them
 * (lower-case host, no default port, no trailing slash); `*`, paths and queries are refused.
 */
function parseCorsOrigins(value: string | undefined): string[] {
  const origins = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return origins.map((entry) => {
    let url: URL | null = null;
    try {
      url = new URL(entry);
    } catch {
      url = null;
    }
    if (
      !url ||
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      url.pathname !== '/' ||
      url.search ||
      url.hash ||
      url.username ||
      url.password
    ) {
      throw new Error(
        `CORS_ORIGINS entry "${entry}" is not an exact origin such as https://app.example.com or http://localhost:5173`,
      );
    }
    return url.origin;
  });
}
