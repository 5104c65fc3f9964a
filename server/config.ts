/** Configuration from the environment; every variable is documented in the README. */
export interface Config {
  port: number;
  host: string;
  /** PGlite data directory, used when no DATABASE_URL is set. */
  dataDir: string;
  databaseUrl?: string;
  /** Connections each process keeps to a PostgreSQL server (DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  /** Express "trust proxy" setting, for the client IP and https detection behind a proxy. */
  trustProxy: boolean | number | string;
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
}

/** The part of the configuration the HTTP app needs (listening and storage are main.ts's concern). */
export type AppConfig = Omit<Config, 'port' | 'host' | 'dataDir' | 'databaseUrl' | 'databasePoolSize'>;

/** Enough connections for commits to wait on the disk together while others run (see docs/performance.md). */
export const DEFAULT_POOL_SIZE = 10;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, not ${env.PORT}`);
  const poolSize = Number(env.DATABASE_POOL_SIZE || DEFAULT_POOL_SIZE);
  if (!Number.isInteger(poolSize) || poolSize < 1 || poolSize > 1000)
    throw new Error(`DATABASE_POOL_SIZE must be a whole number from 1 to 1000, not ${env.DATABASE_POOL_SIZE}`);
  const trust = env.TRUST_PROXY;
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/$/, '');
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir: env.DATA_DIR ?? './data',
    databaseUrl: env.DATABASE_URL || undefined,
    databasePoolSize: poolSize,
    trustProxy:
      trust === undefined || trust === ''
        ? false
        : trust === 'true'
          ? true
          : /^\d+$/.test(trust)
            ? Number(trust)
            : trust,
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
  };
}
