import type { Response } from 'express';

/**
 * The headers of a page with a successor (`requestUrl`: the request's `originalUrl`): `Next-Cursor` (its cursor) and `Link` (`rel="next"`: this request's
 * path and query with that cursor instead of an offset). Neither on the last page.
 */
export function nextPageHeaders(requestUrl: string, res: Response, cursor: string | null) {
  if (cursor === null) return;
  const url = new URL(requestUrl, 'http://localhost');
  url.searchParams.delete('offset');
  url.searchParams.set('cursor', cursor);
  res.set({ 'Next-Cursor': cursor, Link: `<${url.pathname}${url.search}>; rel="next"` });
}
