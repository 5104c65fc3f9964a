/**
 * Errors a request can end in, for every layer: services throw them, the HTTP layer renders them as
 * `{error, code}` with their status. No framework imports, so modules depend on no HTTP code.
 */

import type { ZodError } from 'zod';
import type { ErrorCode } from '../contract/common/errors';

/**
 * An error the client caused or may act on; rendered as `{error, code}` with its status. `code` is one of the
 * contract's `ErrorCode`s: a new code is added there (with its description) before anything can throw it.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, code: ErrorCode = 'validation') => new HttpError(400, code, message);
export const unauthenticated = (message: string) => new HttpError(401, 'unauthenticated', message);
export const forbidden = (message: string, code: ErrorCode = 'forbidden') => new HttpError(403, code, message);
export const notFound = (resource: string) => new HttpError(404, 'not_found', `${resource} not found`);
export const duplicate = (message: string) => new HttpError(400, 'duplicate', message);
export const inUse = (message: string) => new HttpError(400, 'in_use', message);
export const exhausted = (message: string) => new HttpError(409, 'exhausted', message);

/** The first issues of a failed zod parse, each as `field: problem` (`where` names a problem of the whole value). */
export function describeZod(where: string, error: ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || where}: ${issue.message}`)
    .join('; ');
}

/** 502 `upstream_failed`: a server a network tool asked (DNS, whois, the target) did not answer usefully. */
export const upstreamFailed = (message: string) => new HttpError(502, 'upstream_failed', message);

/** SQLSTATE of a driver error; drizzle wraps the driver's error in `cause`. */
export function sqlState(error: unknown): string | undefined {
  const e = error as { code?: unknown; cause?: { code?: unknown } };
  const code = e?.cause?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}
export const isUniqueViolation = (error: unknown) => sqlState(error) === '23505';
export const isForeignKeyViolation = (error: unknown) => sqlState(error) === '23503';
/** A pipeline's `ipam_require` guard refused (migrations/0012): the write before it wrote nothing. */
export const isRequirementFailed = (error: unknown) => sqlState(error) === 'P0001';

/**
 * Why a guard refused: the JSON its `ipam_require` failure carries, of the shape its statement documents
 * (`Refusal`); `{ rule: 'unknown' }` when the message is not such JSON.
 */
export function refusalOf<Refusal>(error: unknown): Refusal | { rule: 'unknown' } {
  const message = error instanceof Error ? error.message : '';
  try {
    return JSON.parse(message) as Refusal;
  } catch {
    return { rule: 'unknown' };
  }
}

/** 503 `unavailable` with Retry-After: a dependency (the database …) is down for now; the client may retry. */
export const unavailable = (message: string, retryAfterSeconds = 5) =>
  new HttpError(503, 'unavailable', message, { 'Retry-After': String(retryAfterSeconds) });

/** SQLSTATEs of a lost or refused connection: class 08, and an administrator's or a crash's shutdown (57P01–57P03). */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03']);
/** Socket errors of a database that does not answer. */
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-postgres's errors (no code) for a connection that ended or never came up. */
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect)/;

/**
 * Whether an error means the database is unreachable or went away (refused or lost connections, a server
 * shutting down or starting up), rather than a fault of the request or of the code: such a request may
 * succeed when retried once the database is back. Looks through drizzle's `cause` and AggregateErrors.
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 4) return false;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string') {
    if (e.code.length === 5 && (e.code.startsWith('08') || UNAVAILABLE_STATES.has(e.code))) return true;
    if (UNAVAILABLE_ERRNOS.has(e.code)) return true;
  }
  if (typeof e.message === 'string' && UNAVAILABLE_MESSAGES.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(e.cause, depth + 1);
}
