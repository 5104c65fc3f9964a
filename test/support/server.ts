import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../server/app';
import type { AppConfig } from '../../server/config';
import { type Database, openDatabase } from '../../server/db/connection';
import { memoryCounters, postgresCounters } from '../../server/http/rate-limit';
import { createMailer, type Mailer } from '../../server/mail/mailer';
import * as identity from '../../server/modules/identity/identity.service';
import type { LimitName, Plan } from '../../server/modules/plans/limits';
import type { Role } from '../../server/principal';
import { ApiClient } from './client';

export interface TestOrg {
  email: string;
  userId: string;
  orgId: string;
  /** Read and write key. */
  key: string;
  session: string;
  /** Client using the read/write key. */
  api: ApiClient;
  /** Client using the session cookie with the CSRF header. */
  web: ApiClient;
  keyWith(permissions: ('read' | 'write')[]): Promise<string>;
  /** Another user in the same organisation, with a role. */
  member(role: Role): Promise<{ key: string; session: string; api: ApiClient; web: ApiClient }>;
}

export interface TestServer {
  url: string;
  database: Database;
  anonymous: ApiClient;
  newOrg(options?: { plan?: Plan; role?: Role; limits?: Partial<Record<LimitName, number | null>> }): Promise<TestOrg>;
  close(): Promise<void>;
}

/**
 * The real app on a real database, listening on loopback: PGlite in memory by default, the PostgreSQL
 * server named by TEST_DATABASE_URL otherwise (PGlite in `dataDir` when given). Tests stay independent by each making its own organisation.
 */
/** The configuration tests run with; a test overrides what it exercises (SMTP, Google issuer …). */
export function testConfig(overrides: Partial<AppConfig> = {}): AppConfig {
  return {
    // Tests choose their client address with X-Forwarded-For (per-IP limits); see clientIp() in client.ts.
    trustProxy: 'loopback',
    // Many tests send bad credentials from 127.0.0.1 on purpose; test/api/trust.test.ts tests the real limit.
    authFailuresPerMinute: 1_000_000,
    appUrl: 'http://app.test',
    publicUrl: 'http://127.0.0.1',
    mailFrom: 'IPAM Test <no-reply@example.test>',
    google: { issuer: 'http://127.0.0.1:9/unconfigured' },
    outboundAllowCidrs: [],
    billing: { prices: {}, checkoutCooldownSeconds: 600 },
    // Tests never query public resolvers: a tools test points these at its own servers on loopback.
    tools: {
      dnsResolvers: [],
      propagationResolvers: [],
      // A closed port: the server's own DNS questions fail at once (502) unless a test starts a resolver.
      recursiveResolver: { address: '127.0.0.1', port: 9 },
      whoisRoot: { host: '127.0.0.1', port: 9 },
      rdapUrl: 'http://127.0.0.1:9',
      tracerouteBin: 'traceroute',
      maxConcurrentRuns: 32,
    },
    ...overrides,
  };
}

export interface TestServerOptions {
  dataDir?: string;
  config?: Partial<AppConfig>;
  /** Replaces the mailer (default: SMTP to config.smtpUrl when given, else dropped). */
  mailer?: Mailer;
  /** A controllable clock. */
  now?: () => Date;
  /** A controllable resolver (tests never resolve real names). */
  resolveHost?: (host: string) => Promise<string[]>;
  /**
   * The server's own URL as its public URL and APP_URL (the console's browser tests: sign-in links and
   * redirects lead back to this server).
   */
  selfUrls?: boolean;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const url = process.env.TEST_DATABASE_URL;
  const database = await openDatabase(
    url ? { databaseUrl: url, maxConnections: 5 } : { dataDir: options.dataDir ?? null },
  );
  const errors: unknown[] = [];
  // Listening first, so the configuration may name the server's own address.
  const server = createServer();
  // Idle keep-alive sockets are closed by the client, never by the server: both run on this process's event
  // loop, which PGlite blocks for seconds, and a server timer closing a socket the client has just chosen to
  // reuse fails that request with ECONNRESET (seen once under load in CI, a fuzz POST).
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const self = options.selfUrls ? { publicUrl: baseUrl, appUrl: baseUrl } : {};
  const config = testConfig({ ...self, ...options.config });
  const app = createApp(config, {
    db: database.db,
    counters: url ? postgresCounters(database.db) : memoryCounters(),
    mailer: options.mailer ?? createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom }, () => {}),
    now: options.now,
    resolveHost: options.resolveHost,
    log: (m, e) => errors.push([m, e]),
    warn: () => {},
  });
  server.on('request', app);
  const db = database.db;

  async function credentialsFor(user: { id: string; orgId: string }) {
    const { key } = await identity.createApiKey(db, user, 'test');
    const session = await identity.createSession(db, user.id);
    return { key, session, api: new ApiClient(baseUrl, { key }), web: new ApiClient(baseUrl, { session }) };
  }

  return {
    url: baseUrl,
    database,
    anonymous: new ApiClient(baseUrl),
    async newOrg(options = {}) {
      const email = `user-${uniqueSuffix()}@example.test`;
      const user = await identity.ensureUser(db, email, { plan: options.plan ?? 'pro', role: options.role });
      if (options.limits) await identity.setLimits(db, email, options.limits);
      const credentials = await credentialsFor(user);
      return {
        email,
        userId: user.id,
        orgId: user.orgId,
        ...credentials,
        keyWith: async (permissions) => (await identity.createApiKey(db, user, 'scoped', permissions)).key,
        member: async (role) => {
          const { insertUser } = await import('../../server/modules/identity/identity.repo');
          const other = await insertUser(db, {
            orgId: user.orgId,
            email: `member-${uniqueSuffix()}@example.test`,
            name: '',
            role,
          });
          return credentialsFor(other);
        },
      };
    },
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      // A socket a test left with a request half sent (an answered slow upload) would hold close() open
      // forever, since idle sockets are never timed out here: cut what is left after a grace second.
      const cut = setTimeout(() => server.closeAllConnections(), 1_000);
      await closed;
      clearTimeout(cut);
      await database.close();
      if (errors.length > 0) throw new Error(`The server logged unhandled errors: ${JSON.stringify(errors, null, 1)}`);
    },
  };
}

/** 48 random bits: unique among a run's organisations, and short enough to read in the console's screenshots. */
const uniqueSuffix = () => randomBytes(6).toString('hex');
