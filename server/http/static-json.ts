import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { RequestHandler } from 'express';

/**
 * Serves a JSON value that never changes while the process runs (the OpenAPI document): serialised and
 * gzipped once, with a strong ETag so a client that has it gets 304 and no body.
 */
export function staticJson(value: unknown): RequestHandler {
  const body = Buffer.from(JSON.stringify(value));
  const gzipped = gzipSync(body);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return (req, res) => {
    res.set({ ETag: etag, 'Cache-Control': 'no-cache', Vary: 'Accept-Encoding' });
    if (req.headers['if-none-match']?.split(/\s*,\s*/).includes(etag)) {
      res.status(304).end();
      return;
    }
    res.type('application/json');
    if (/\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) res.set('Content-Encoding', 'gzip').send(gzipped);
    else res.send(body);
  };
}
