/** The search box of the top bar: it opens the search page with what was typed (`/search?q=…`). */
import { type FormEvent, useId } from 'react';
import { navigate, useLocation } from '../router';
import './search-box.css';

/** Opens the search page for `q`: the query is in the URL, so a search can be shared and reloaded. */
export const searchFor = (q: string) => navigate(`/search?${new URLSearchParams({ q })}`);

/** What a form's `q` control holds as it is submitted. */
export function submittedQuery(event: FormEvent<HTMLFormElement>) {
  event.preventDefault();
  return String(new FormData(event.currentTarget).get('q') ?? '');
}

export function SearchBox() {
  const id = useId();
  const location = useLocation();
  const current = location.pathname === '/search' ? (location.searchParams.get('q') ?? '') : '';
  return (
    <search className="search-box">
      <form onSubmit={(e) => searchFor(submittedQuery(e))}>
        <label htmlFor={id} className="sr-only">
          Search subnets and addresses
        </label>
        {/* Keyed by the URL's query: it shows the search the page shows. */}
        <input id={id} key={current} type="search" name="q" defaultValue={current} placeholder="IP, CIDR, name…" />
        <button type="submit">Search</button>
      </form>
    </search>
  );
}
