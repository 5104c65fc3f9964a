/**
 * Async iterators over the paginated lists. Each asks for one page at a time with `limit`/`offset` and
 * stops where the list says it ends: the `X-Total-Count` header (addresses), the body's `total`
 * (activity), or a short page (webhook deliveries, which carry no total). A list changing while it is
 * walked can make an item appear twice or not at all, as with any offset paging.
 */
import type { ActivityEntry, Address, ListActivityParams, WebhookDelivery } from './generated/endpoints.schemas.js';
import type { HttpResponse, RequestOptions } from './http.js';

/** A generated operation bound to a client and to `throwOnError`: resolves only with a success answer. */
type Page<T> = (offset: number, limit: number, options?: RequestOptions) => Promise<HttpResponse<T>>;

async function* pages<T, I>(
  fetchPage: Page<T>,
  items: (body: T) => I[],
  isLast: (answer: HttpResponse<T>, seen: number, pageItems: number, limit: number) => boolean,
  limit: number,
  offset: number,
  options?: RequestOptions,
): AsyncGenerator<I, void, undefined> {
  for (let seen = offset; ; ) {
    const answer = await fetchPage(seen, limit, options);
    const list = items(answer.data);
    yield* list;
    seen += list.length;
    if (list.length === 0 || isLast(answer, seen, list.length, limit)) return;
  }
}

export interface PageParams {
  /** Items per request (each operation has its own maximum, and the default is that maximum). */
  limit?: number;
  /** Where to start. */
  offset?: number;
}

/** Stops at `X-Total-Count`, or at a short page when a proxy dropped the header. */
const byTotalCountHeader = (answer: HttpResponse, seen: number, size: number, limit: number) => {
  const total = Number.parseInt(answer.headers.get('x-total-count') ?? '', 10);
  return Number.isNaN(total) ? size < limit : seen >= total;
};

export function iterateAddresses(
  list: Page<Address[]>,
  params: PageParams = {},
  options?: RequestOptions,
): AsyncGenerator<Address, void, undefined> {
  return pages(list, (body) => body, byTotalCountHeader, params.limit ?? 1000, params.offset ?? 0, options);
}

export function iterateActivity(
  list: Page<{ entries: ActivityEntry[]; total: number }>,
  params: Pick<ListActivityParams, 'limit' | 'offset'> = {},
  options?: RequestOptions,
): AsyncGenerator<ActivityEntry, void, undefined> {
  const isLast = (answer: HttpResponse<{ total: number }>, seen: number) => seen >= answer.data.total;
  return pages(list, (body) => body.entries, isLast, params.limit ?? 500, params.offset ?? 0, options);
}

export function iterateDeliveries(
  list: Page<WebhookDelivery[]>,
  params: PageParams = {},
  options?: RequestOptions,
): AsyncGenerator<WebhookDelivery, void, undefined> {
  const isShort = (_: unknown, __: number, size: number, limit: number) => size < limit;
  return pages(list, (body) => body, isShort, params.limit ?? 100, params.offset ?? 0, options);
}
