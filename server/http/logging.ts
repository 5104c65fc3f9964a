/**
 * Structured JSON logs (pino): one line per request when it ends, and the errors of the error handler.
 *
 * A request's line carries its id, method, route template (`/api/v1/subnets/:id`, never the URL with its
 * ids and query string), status, duration and the organisation when authenticated; nothing of its
 * headers, cookies, credentials or query. The same observation feeds the Prometheus metrics.
 */
import type { Request, RequestHandler, Response } from 'express';
import pino, { type DestinationStream, type Logger } from 'pino';
import type { LogLevel } from '../config';

export type { Logger };

/**
 * A logger writing JSON lines to `stream` (main.ts: stdout through pino's asynchronous destination; tests:
 * a stream of their own). Errors go through `serializeError`, which leaves out SQL statements' parameters.
 */
export function createLogger(level: LogLevel, stream: DestinationStream): Logger {
  return pino(
    // pino's own line: level as a number (30 info, 40 warn, 50 error), time in epoch milliseconds (an ISO
    // string would cost a Date formatting per line), pid and hostname.
    { level, serializers: { err: serializeError } },
    stream,
  );
}

/**
 * Standard output through a buffer written asynchronously, so logging never blocks a request: written once
 * it holds 4 KB (a write per line would cost a system call per request on the hot paths) and at least
 * every second, and flushed when the process exits (main.ts flushes it before exiting itself).
 */
export const stdoutDestination = () => pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 1000 });

/**
 * An error as logged: type, message, SQLSTATE or errno code, stack and causes. drizzle puts the failed
 * statement's parameters into its message ("params: …"); they are user data and are cut out.
 */
export function serializeError(error: unknown, depth = 0): unknown {
  if (!(error instanceof Error)) return error === undefined ? undefined : { message: String(error) };
  const out: Record<string, unknown> = { type: error.constructor?.name ?? 'Error', message: scrub(error.message) };
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' || typeof code === 'number') out.code = code;
  if (error.stack) out.stack = scrub(error.stack);
  if (error.cause !== undefined && depth < 3) out.cause = serializeError(error.cause, depth + 1);
  return out;
}
const scrub = (text: string) => text.replace(/\nparams: [^\n]*/g, '');

/** The route as matched, for logs and metric labels: a template, so that ids never multiply the series. */
function routeOf(req: Request): string {
  const route = req.route as { path?: unknown } | undefined;
  if (route && typeof route.path === 'string') return req.baseUrl + route.path;
  // Mounted middleware that answered (Swagger UI's files under /docs), or no route at all (404, preflight).
  return req.baseUrl || 'unmatched';
}

/** What the metrics take of each finished request. */
export interface RequestObserver {
  observe(method: string, route: string, status: number, seconds: number): void;
}

const STARTED = Symbol('requestStarted');
type Timed = Request & { [STARTED]?: number };

/**
 * Times each request and, when its response ends (or its connection closes first), writes its log line
 * and hands it to the metrics. Per request: one timestamp, one listener (a shared function, no closure),
 * one log call (skipped entirely when the level is above info).
 */
export function observeRequests(logger: Logger | null, metrics: RequestObserver): RequestHandler {
  const logRequests = logger?.isLevelEnabled('info') === true;

  function onClose(this: Response) {
    const req = this.req as Timed;
    const started = req[STARTED];
    if (started === undefined) return;
    req[STARTED] = undefined;
    const durationMs = performance.now() - started;
    const route = routeOf(req);
    // A response whose connection closed before it was finished: the client went away.
    const status = this.writableFinished ? this.statusCode : 499;
    metrics.observe(req.method, route, status, durationMs / 1000);
    if (logRequests)
      logger?.info(
        {
          reqId: this.getHeader('x-request-id'),
          method: req.method,
          route,
          status,
          durationMs: Math.round(durationMs * 100) / 100,
          orgId: req.auth?.orgId,
        },
        'request',
      );
  }

  return (req, res, next) => {
    (req as Timed)[STARTED] = performance.now();
    res.on('close', onClose);
    next();
  };
}
