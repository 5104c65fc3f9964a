import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { createExpressEndpoints } from '@ts-rest/express';
import express, { type Express } from 'express';
import type { DestinationStream } from 'pino';
import swaggerUi from 'swagger-ui-express';
import { contract } from '../contract';
import { buildOpenApiDocument } from '../openapi/document';
import { type AppConfig, DEFAULT_AUTH_FAILURES_PER_MINUTE, DEFAULT_HEAVY_MAX_CONCURRENT } from './config';
import type { ServerContext } from './context';
import type { Db } from './db/connection';
import { authenticate } from './http/auth';
import { jsonBody } from './http/body';
import { consoleRoutes } from './http/console';
import { dryRuns } from './http/dry-run';
import { errorHandler, notFoundHandler, validationErrorHandler } from './http/errors';
import { healthz, readyz } from './http/health';
import { heavyWork } from './http/heavy-work';
import { idempotency } from './http/idempotency';
import { exactJson } from './http/json';
import { createLogger, observeRequests } from './http/logging';
import { type ClusterMetrics, createMetrics } from './http/metrics';
import { type CounterStore, rateLimiter } from './http/rate-limit';
import { rateLimits } from './http/rate-limit-middleware';
import { requestId } from './http/request-id';
import { methodNotAllowed, wellFormedPath } from './http/routing';
import { corsAllowList, docsSecurityHeaders, securityHeaders } from './http/security';
import { staticJson } from './http/static-json';
import type { Mailer } from './mail/mailer';
import { idempotencyKeys } from './modules/idempotency/idempotency.service';
import { principalLookup } from './modules/identity/principals';
import { apiWriteAllowed, userRateLimit } from './modules/plans/limits';
import { resolverOfHosts } from './modules/tools/tools';
import { webhookQueueDepth } from './modules/webhooks/events/runtime';
import { asDryRun } from './modules/writes/writes';
import { buildRouter } from './routes';

export interface AppDeps {
  db: Db;
  /** Shared request counters: PostgreSQL when several processes share the database, else memory. */
  counters: CounterStore;
  mailer: Mailer;
  /** The time; tests move it to cross expiries and rate-limit windows without sleeping. */
  now?: () => Date;
  /**
   * Where the JSON logs go (main.ts: standard output, written asynchronously; tests: a stream they read).
   * Without one there is no request log, and errors go to `log` or the console.
   */
  logStream?: DestinationStream;
  /** Unexpected errors (500); default: the JSON log, else the console. */
  log?: (message: string, error?: unknown) => void;
  /** Operational warnings (a database outage's 503s …); default: the JSON log, else the console. */
  warn?: (message: string) => void;
  resolveHost?: (host: string) => Promise<string[]>;
  /** Where the built web console is (default: clients/web/dist); not built there, the server serves none. */
  consoleDir?: string;
  /** In a cluster's worker: GET /metrics answers every worker's figures (server/cluster.ts). */
  clusterMetrics?: ClusterMetrics;
}

/** Builds the whole HTTP app from configuration and dependencies; it does not listen. */
export function createApp(config: AppConfig, deps: AppDeps): Express {
  const logger = deps.logStream ? createLogger(config.logLevel ?? 'info', deps.logStream) : null;
  const log =
    deps.log ??
    (logger
      ? (message: string, error?: unknown) => logger.error({ err: error }, message)
      : (message: string, error?: unknown) => console.error(message, error));
  const warnOf = deps.warn;
  const warnError = warnOf
    ? (message: string, error: unknown) => warnOf(`${message}: ${error instanceof Error ? error.message : error}`)
    : logger
      ? (message: string, error: unknown) => logger.warn({ err: error }, message)
      : (message: string, error: unknown) => console.warn(message, error);
  const app = express();
  app.disable('x-powered-by');
  // Every JSON answer, counts past 2^53 written exactly (server/json.ts).
  app.response.json = exactJson;
  // No ETag hashed over every API answer (a page of addresses is 30 KB); /openapi.json sets its own.
  app.set('etag', false);
  app.set('trust proxy', config.trustProxy);
  // Flat queries only (the contract has no nested ones): Node's parser, several times cheaper than qs.
  app.set('query parser', 'simple');

  // Probes and the metrics scrape come first: outside /api/v1 and the contract, unauthenticated, not rate
  // limited, and neither logged nor counted (an orchestrator calls them every few seconds).
  const metrics = createMetrics({
    queueDepth: () => webhookQueueDepth(deps.db),
    token: config.metricsToken,
    cluster: deps.clusterMetrics,
  });
  app.get('/healthz', healthz);
  app.get('/readyz', readyz(deps.db));
  app.get('/metrics', metrics.handler);

  app.use(observeRequests(logger, metrics));
  app.use(requestId);
  const crossOrigin = corsAllowList(config.corsOrigins ?? []);
  if (crossOrigin) app.use(crossOrigin);
  app.use(securityHeaders());
  app.use(wellFormedPath);

  const document = buildOpenApiDocument();
  app.get('/openapi.json', staticJson(document));
  app.use(
    '/docs',
    docsSecurityHeaders(),
    swaggerUi.serve,
    swaggerUi.setup(undefined, { swaggerOptions: { url: '/openapi.json' } }),
  );
  const web = consoleRoutes(deps.consoleDir);
  // Without a built console, `/` says where things are (and how to build the console).
  if (!web)
    app.get('/', (_req, res) =>
      res.json({ name: document.info.title, docs: '/docs', openapi: '/openapi.json', console: 'npm run build:web' }),
    );

  const now = deps.now ?? (() => new Date());
  const context: ServerContext = {
    db: deps.db,
    config,
    mailer: deps.mailer,
    limiter: rateLimiter(deps.counters, now),
    now,
    warn: deps.warn ?? (logger ? (message) => logger.warn(message) : (message) => console.warn(message)),
    resolveHost: deps.resolveHost ?? resolverOfHosts(config.tools, resolveWithSystem),
  };
  const heavy = heavyWork(config.heavyMaxConcurrent ?? DEFAULT_HEAVY_MAX_CONCURRENT);
  createExpressEndpoints(contract, buildRouter(context), app, {
    logInitialization: false,
    jsonQuery: false,
    responseValidation: false,
    // Plain Express middleware (they read req.tsRestRoute, never typed params or bodies): the cast is only
    // their request type; the router itself is checked against the contract.
    globalMiddleware: [
      authenticate(
        {
          ...principalLookup(deps.db, { onDatabaseLookup: metrics.countCredentialLookup }),
          apiWriteAllowed,
        },
        config.authFailuresPerMinute ?? DEFAULT_AUTH_FAILURES_PER_MINUTE,
        () => now().getTime(),
      ),
      rateLimits(context.limiter, userRateLimit),
      // Heavy work counts per caller before the body is read (slow uploads too) and takes a process slot once
      // it is in; both before an idempotent claim, so a 429 for too many at once never becomes a stored answer.
      heavy.perCaller,
      jsonBody,
      heavy.slot,
      idempotency(idempotencyKeys(deps.db, config.secretsKey ?? randomBytes(32)), now, log),
      dryRuns(asDryRun),
    ] as never[],
    requestValidationErrorHandler: (error, _req, _res, next) => next(validationErrorHandler(error)),
  });

  app.use(methodNotAllowed);
  if (web) app.use(web);
  app.use(notFoundHandler);
  app.use(errorHandler(log, warnError));
  return app;
}

/** Every address the system resolver gives for a host. */
async function resolveWithSystem(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);
}
