import type { AppConfig } from './config';
import type { Db } from './db/connection';
import type { RateLimiter } from './http/rate-limit';
import type { Mailer } from './mail/mailer';

/** What routers and services may use besides the request: built once by createApp. */
export interface ServerContext {
  db: Db;
  config: AppConfig;
  mailer: Mailer;
  limiter: RateLimiter;
  now: () => Date;
  /** Resolves a host name to its addresses (injectable, so tests can change what a name resolves to). */
  resolveHost: (host: string) => Promise<string[]>;
  /** Operational warnings (an unreachable identity provider …), unlike errors that become a 500. */
  warn: (message: string) => void;
}
