/**
 * Prometheus metrics (prom-client) at GET /metrics: requests by method, route template and status, their
 * latency by route template, the webhook queue's depth (read from the database at each scrape) and the
 * default process metrics (CPU, memory, event-loop lag, GC, handles). Each app has a registry of its own.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { HttpError } from '../errors';
import type { RequestObserver } from './logging';

export interface MetricsOptions {
  /** Delivery attempts waiting in the webhook outbox (app.ts passes the webhooks module's function). */
  queueDepth: () => Promise<number>;
  /** METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`. */
  token?: string;
  /** How long a scrape waits for the queue depth before reporting it as unknown (NaN). */
  queueDepthTimeoutMs?: number;
  /** In a cluster's worker (server/cluster.ts): a scrape answers the figures of every worker, added up. */
  cluster?: ClusterMetrics;
}

/** How a cluster's worker takes part in GET /metrics. */
export interface ClusterMetrics {
  /** Gives the worker's own registry, whose figures the primary collects from it. */
  attach(registry: Registry): void;
  /** The exposition of every worker's figures added up (asked of the primary). */
  exposition(): Promise<string>;
}

export interface Metrics extends RequestObserver {
  registry: Registry;
  /** Counts a credential lookup that reached the database, and whether it found a caller. */
  countCredentialLookup(found: boolean): void;
  /** GET /metrics. */
  handler: RequestHandler;
}

/** Latency buckets in seconds, from the hot paths' single milliseconds to imports of several seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(options: MetricsOptions): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status (499: the client closed the connection first)',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to the end of its response, by route template',
    labelNames: ['route'] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  const credentialLookups = new Counter({
    name: 'credential_lookups_total',
    help:
      'API keys and sessions looked up in the database (not answered from the cache), by result: found, or ' +
      'unknown (a repeated unknown credential is answered from the cache, without a lookup)',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const timeoutMs = options.queueDepthTimeoutMs ?? 2000;
  new Gauge({
    name: 'webhook_queue_depth',
    help:
      'Webhook delivery attempts not yet made or finished (outbox rows in state pending, retries included); ' +
      'the same figure for every process sharing the database; NaN when the database did not answer',
    registers: [registry],
    // Every worker of a cluster reads the same figure: added up across them, the largest is kept, not their sum.
    aggregator: 'max',
    async collect() {
      try {
        this.set(await withTimeout(options.queueDepth(), timeoutMs));
      } catch {
        this.set(Number.NaN);
      }
    },
  });

  options.cluster?.attach(registry);
  const expected = options.token ? digest(options.token) : null;
  const authorized = (header: string | undefined) => {
    if (!expected) return true;
    const token = /^Bearer (.+)$/i.exec(header ?? '')?.[1];
    return token !== undefined && timingSafeEqual(digest(token.trim()), expected);
  };

  return {
    registry,
    countCredentialLookup: (found) => credentialLookups.inc({ result: found ? 'found' : 'unknown' }),
    observe(method, route, status, seconds) {
      requests.inc({ method, route, status });
      duration.observe({ route }, seconds);
    },
    handler: async (req, res, next) => {
      try {
        if (!authorized(req.headers.authorization))
          throw new HttpError(401, 'unauthenticated', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', {
            'WWW-Authenticate': 'Bearer',
          });
        const body = options.cluster ? await options.cluster.exposition() : await registry.metrics();
        res.set('Content-Type', registry.contentType).set('Cache-Control', 'no-store').end(body);
      } catch (error) {
        next(error);
      }
    },
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
