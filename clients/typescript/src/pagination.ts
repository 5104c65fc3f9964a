/**
 * Async iterators over the paginated lists. The first page is asked for by `offset` (0 unless given), each
 * later one by the cursor the page before carried (`Next-Cursor`), until a page carries none. Cursor pages
 * start right after the last item seen, so an item that exists throughout the walk is yielded exactly once,
 * whatever others insert or delete meanwhile.
 */

import type { Subnet } from './counts.js';
import type { ActivityEntry, Address, ListActivityParams, WebhookDelivery } from './generated/endpoints.schemas.js';
import type { HttpResponse, RequestOptions } from './http.js';

/** Where a page starts: the first by offset (or at the start, for a list without offsets), the others by cursor. */
export type PagePosition = { offset: number } | { cursor: string } | Record<never, never>;

/** A generated operation bound to a client and to `throwOnError`: resolves only with a success answer. */
type Page<T> = (position: PagePosition, limit: number, options?: RequestOptions) => Promise<HttpResponse<T>>;

async function* pages<T, I>(
  fetchPage: Page<T>,
  items: (body: T) => I[],
  limit: number,
  offset: number | undefined,
  options?: RequestOptions,
): AsyncGenerator<I, void, undefined> {
  let position: PagePosition = offset === undefined ? {} : { offset };
  for (;;) {
    const answer = await fetchPage(position, limit, options);
    yield* items(answer.data);
    const cursor = answer.headers.get('next-cursor');
    if (!cursor) return;
    position = { cursor };
  }
}

export interface PageParams {
  /** Items per request (each operation has its own maximum, and the default is that maximum). */
  limit?: number;
  /** Where the first page starts. */
  offset?: number;
}

export function iterateAddresses(
  list: Page<Address[]>,
  params: PageParams = {},
  options?: RequestOptions,
): AsyncGenerator<Address, void, undefined> {
  return pages(list, (body) => body, params.limit ?? 1000, params.offset ?? 0, options);
}

export function iterateActivity(
  list: Page<{ entries: ActivityEntry[]; total: number }>,
  params: Pick<ListActivityParams, 'limit' | 'offset'> = {},
  options?: RequestOptions,
): AsyncGenerator<ActivityEntry, void, undefined> {
  return pages(list, (body) => body.entries, params.limit ?? 500, params.offset ?? 0, options);
}

export function iterateDeliveries(
  list: Page<WebhookDelivery[]>,
  params: PageParams = {},
  options?: RequestOptions,
): AsyncGenerator<WebhookDelivery, void, undefined> {
  return pages(list, (body) => body, params.limit ?? 100, params.offset ?? 0, options);
}

/** Every subnet (of one folder when given), in the list's order, `limit` (default 1000) per request. */
export function iterateSubnets(
  list: Page<Subnet[]>,
  params: Pick<PageParams, 'limit'> = {},
  options?: RequestOptions,
): AsyncGenerator<Subnet, void, undefined> {
  return pages(list, (body) => body, params.limit ?? 1000, undefined, options);
}
