import { RequestValidationError } from '@ts-rest/express';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { ApiError } from '../../contract/common/errors';
import { badRequest, describeZod, HttpError, isDatabaseUnavailable, sqlState, unavailable } from '../errors';

/** 400 naming the field: path params, then query, then body. */
export const validationErrorHandler = (error: RequestValidationError): HttpError => {
  const parts = [
    error.pathParams && describeZod('path', error.pathParams),
    error.query && describeZod('query', error.query),
    error.headers && describeZod('headers', error.headers),
    error.body && describeZod('body', error.body),
  ].filter(Boolean);
  return badRequest(parts.join('; '));
};

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new HttpError(404, 'not_found', `No route for ${req.method} ${req.path}`));
};

/** Seconds a client is asked to wait before retrying while the database is unreachable. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** The request as error logs name it: no query string (it may carry a token), and the request id. */
const describe = (req: Request, res: Response) =>
  `${req.method} ${req.path} (request ${String(res.getHeader('x-request-id') ?? '-')})`;

/**
 * The one place errors become responses: `{error, code}` JSON, never a stack trace or HTML. Unexpected
 * errors are logged (`log`) and answer 500; a database that is unreachable or went away answers 503
 * `unavailable` with Retry-After and is reported to `warn` (an outage, not a bug).
 */
export function errorHandler(
  log: (message: string, error: unknown) => void,
  warn: (message: string, error: unknown) => void = log,
): ErrorRequestHandler {
  return (error, req, res, _next) => {
    let httpError: HttpError;
    if (error instanceof HttpError) httpError = error;
    else if (error instanceof RequestValidationError) httpError = validationErrorHandler(error);
    else if (error?.type === 'entity.parse.failed') httpError = badRequest(`Malformed JSON body: ${error.message}`);
    else if (error?.type === 'entity.too.large')
      httpError = new HttpError(413, 'payload_too_large', `Request body exceeds the limit of ${error.limit} bytes`);
    else if (error?.type === 'encoding.unsupported' || error?.type === 'charset.unsupported')
      httpError = new HttpError(415, 'unsupported_media_type', error.message);
    else if (error?.type === 'stream.not.readable' && (req.destroyed || req.socket.destroyed))
      // The client went away before its body was read (its connection is gone): no one hears the answer.
      httpError = badRequest('The request ended before its body was read');
    else if (error?.status >= 400 && error?.status < 500 && error?.expose)
      httpError = new HttpError(error.status, 'bad_request', error.message);
    else if (sqlState(error) === '22P02' || sqlState(error) === '22023')
      httpError = badRequest('Invalid value in request');
    else if (sqlState(error) === '22021' || sqlState(error) === '22P05')
      httpError = badRequest('Text must not contain NUL characters or invalid byte sequences');
    else if (isDatabaseUnavailable(error)) {
      warn(`database unavailable on ${describe(req, res)}`, error);
      httpError = unavailable('The database is unavailable; retry in a few seconds', UNAVAILABLE_RETRY_AFTER_SECONDS);
    } else {
      log(`unhandled error on ${describe(req, res)}`, error);
      httpError = new HttpError(500, 'internal', 'Internal server error');
    }
    if (res.headersSent) return;
    res
      .set(httpError.headers)
      .status(httpError.status)
      .json({ error: httpError.message, code: httpError.code } satisfies ApiError);
  };
}
