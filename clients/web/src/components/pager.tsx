/**
 * Paging by limit and offset, kept in the URL's query like every page state worth sharing: a reload or a
 * shared link shows the same page.
 */
import { useId } from 'react';
import { navigate, useLocation } from '../router';
import './pager.css';

type QueryChanges = Record<string, string | number | null | undefined>;

/** The URL's query, and a setter of some of its parameters (empty, null or undefined removes one). */
export function useQueryParams(): [URLSearchParams, (changes: QueryChanges) => void] {
  const location = useLocation();
  const params = location.searchParams;
  const update = (changes: QueryChanges) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(changes)) {
      if (value === undefined || value === null || value === '') next.delete(name);
      else next.set(name, String(value));
    }
    const query = next.toString();
    navigate(`${location.pathname}${query ? `?${query}` : ''}`, { replace: true });
  };
  return [params, update];
}

export interface PageState {
  offset: number;
  limit: number;
}

/** `offset` and `limit` of the URL (a limit not among `limits` is the first of them). */
export function usePaging(limits: readonly [number, ...number[]]): PageState & { setPage(page: PageState): void } {
  const [params, update] = useQueryParams();
  const asked = Number(params.get('limit'));
  const limit = limits.includes(asked) ? asked : limits[0];
  const offset = Math.max(0, Math.floor(Number(params.get('offset')) || 0));
  return {
    offset,
    limit,
    setPage: (page) => update({ offset: page.offset || null, limit: page.limit === limits[0] ? null : page.limit }),
  };
}

/**
 * Previous and next page, the rows shown (and of how many, when `total` is known: without it, a short page
 * is the last), and the page size.
 */
export function Pager({
  label,
  offset,
  limit,
  shown,
  total,
  limits,
  onChange,
}: PageState & {
  /** What is paged, e.g. "Deliveries": names the navigation region. */
  label: string;
  /** Rows on this page. */
  shown: number;
  total?: number;
  limits: readonly number[];
  onChange(page: PageState): void;
}) {
  const id = useId();
  const last = total === undefined ? shown < limit : offset + shown >= total;
  const range = shown === 0 ? 'No rows' : `Rows ${offset + 1}–${offset + shown}`;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <p aria-live="polite">
        {range}
        {total !== undefined && ` of ${total.toLocaleString()}`}
      </p>
      <div className="pager-controls">
        <label htmlFor={id}>Per page</label>
        <select id={id} value={limit} onChange={(event) => onChange({ offset: 0, limit: Number(event.target.value) })}>
          {limits.map((size) => (
            <option key={size} value={size}>
              {size}
            </option>
          ))}
        </select>
        <button
          type="button"
          disabled={offset === 0}
          onClick={() => onChange({ offset: Math.max(0, offset - limit), limit })}
        >
          Previous page
        </button>
        <button type="button" disabled={last} onClick={() => onChange({ offset: offset + limit, limit })}>
          Next page
        </button>
      </div>
    </nav>
  );
}
