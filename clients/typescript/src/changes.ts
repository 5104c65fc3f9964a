/**
 * Following the change feed (`GET /changes`): every change of the organisation in commit order, page after page,
 * then polling for those to come. Each change carries its `cursor`: keep the last one handled, and a later
 * `follow({ after })` resumes right after it, missing nothing and repeating nothing.
 */
import type { Change, ChangePage } from './generated/endpoints.schemas.js';
import type { HttpResponse, RequestOptions } from './http.js';

export interface FollowParams {
  /**
   * Resume after this cursor (a change's `cursor`, or a page's `next_cursor`); `'now'`: only changes committed from
   * now on. Without it the feed starts at the oldest change kept.
   */
  after?: string;
  /** Changes per request, 1 to 1000 (default 1000). */
  limit?: number;
  /** Milliseconds to wait before asking again once every committed change has been yielded (default 1000). */
  pollInterval?: number;
  /** Return once every change committed so far has been yielded, instead of waiting for more. */
  untilCaughtUp?: boolean;
  /** Ends the iteration: checked before each request, and it cuts a wait short. */
  signal?: AbortSignal;
}

/** The page of changes after `after`, throwing on an error answer (a 410 `CursorExpiredError` for one too old). */
export type ChangesPage = (
  after: string | undefined,
  limit: number,
  options?: RequestOptions,
) => Promise<HttpResponse<ChangePage>>;

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

export async function* followChanges(
  fetchPage: ChangesPage,
  params: FollowParams = {},
  options?: RequestOptions,
): AsyncGenerator<Change, void, undefined> {
  const { limit = 1000, pollInterval = 1000, untilCaughtUp = false, signal } = params;
  let after = params.after;
  while (!signal?.aborted) {
    const { data: page } = await fetchPage(after, limit, options);
    yield* page.changes;
    after = page.next_cursor;
    if (page.has_more) continue;
    if (untilCaughtUp) return;
    await pause(pollInterval, signal);
  }
}
