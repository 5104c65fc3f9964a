/**
 * The error handler's answer to a body that could not be read because its client went away (body-parser's
 * `stream.not.readable`, a race no HTTP test can order): a 400 and nothing logged; the same error on a
 * connection still open is a bug of the server, logged and a 500.
 */
import { describe, expect, it } from 'vitest';
import { errorHandler } from '../../server/http/errors';

const unreadable = Object.assign(new Error('stream is not readable'), { type: 'stream.not.readable', status: 500 });

function handle(destroyed: boolean) {
  const logged: string[] = [];
  const answer: { status?: number; body?: unknown } = {};
  const req = { method: 'POST', path: '/api/v1/import/subnets', destroyed, socket: { destroyed } };
  const res = {
    headersSent: false,
    getHeader: () => 'request-1',
    set: () => res,
    status: (status: number) => Object.assign(answer, { status }) && res,
    json: (body: unknown) => Object.assign(answer, { body }) && res,
  };
  // Only the fields the handler reads.
  errorHandler((message) => logged.push(message))(unreadable, req as never, res as never, () => {});
  return { logged, answer };
}

describe('a body the client did not finish sending', () => {
  it('answers 400 and logs nothing when the connection is gone', () => {
    const { logged, answer } = handle(true);
    expect(answer.status).toBe(400);
    expect(logged).toEqual([]);
  });

  it('is an unhandled error (logged, 500) while the connection is open', () => {
    const { logged, answer } = handle(false);
    expect(answer.status).toBe(500);
    expect(logged).toHaveLength(1);
  });
});
