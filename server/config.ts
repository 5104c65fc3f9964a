/** Configuration from the environment; every variable is documented in the README. */
export interface Config {
  port: number;
  host: string;
  /** PGlite data directory, used when no DATABASE_URL is set. */
  dataDir: string;
  databaseUrl?: string;
  /** Express "trust proxy" setting, for the client IP and https detection behind a proxy. */
  trustProxy: boolean | number | string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number, not ${env.PORT}`);
  const trust = env.TRUST_PROXY;
  return {
    port,
    host: env.HOST ?? '0.0.0.0',
    dataDir: env.DATA_DIR ?? './data',
    databaseUrl: env.DATABASE_URL || undefined,
    trustProxy:
      trust === undefined || trust === ''
        ? false
        : trust === 'true'
          ? true
          : /^\d+$/.test(trust)
            ? Number(trust)
            : trust,
  };
}
