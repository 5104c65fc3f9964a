/**
 * The activity log (`/developers/activity`): every change of the organisation, newest first, filtered by
 * action, resource type, user and time (the filters and the page are the URL's query, so a filtered view
 * can be shared), each entry's changes as old → new, and the same entries as a CSV download.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { getExportActivityUrl } from '../../../typescript/src/generated/endpoints';
import { api } from '../api';
import { SelectField, TextField } from '../components/form';
import { Pager, usePaging, useQueryParams } from '../components/pager';
import { Time } from '../components/time';
import { Loaded, Page } from '../components/ui';
import { useSession } from '../session';
import './developers.css';

type Entry = Awaited<ReturnType<typeof api.activity.list>>['entries'][number];

const LIMITS = [50, 100, 200] as const;
const FILTERS = ['action', 'resource_type', 'user_id', 'since', 'until'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

/** An instant (RFC 3339) as the value of a `datetime-local` input, in the reader's time zone. */
function localInput(at: string | undefined): string {
  const time = at ? Date.parse(at) : Number.NaN;
  if (Number.isNaN(time)) return '';
  const local = new Date(time - new Date(time).getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** A `datetime-local` value as an instant; `until` takes the whole minute it names (the API's bound is inclusive). */
function instant(value: string, end: boolean): string | null {
  const time = Date.parse(value);
  if (!value || Number.isNaN(time)) return null;
  return new Date(time + (end ? 59_999 : 0)).toISOString();
}

export function ActivityPage() {
  const { user } = useSession();
  const [params, setParams] = useQueryParams();
  const page = usePaging(LIMITS);
  const filters: Filters = Object.fromEntries(
    FILTERS.flatMap((name) => (params.get(name) ? [[name, params.get(name) as string]] : [])),
  );
  const filterValues = useQuery({ queryKey: ['activity-filters'], queryFn: () => api.activity.filters() });
  const list = useQuery({
    queryKey: ['activity', filters, page.offset, page.limit],
    queryFn: () => api.activity.list({ ...filters, limit: page.limit, offset: page.offset }),
  });
  // The people to filter by: everyone the log has shown so far (its `users`), and the reader.
  const [users, setUsers] = useState<Record<string, string>>({ [user.id]: user.email });
  useEffect(() => {
    if (list.data) setUsers((known) => ({ ...known, ...list.data.users }));
  }, [list.data]);
  // A new filter starts again at the first page.
  const filter = (name: keyof Filters, value: string | null) => setParams({ [name]: value, offset: null });

  const choices = (values: string[] | undefined, chosen: string | undefined, all: string) => [
    { value: '', label: all },
    ...[...new Set([...(values ?? []), ...(chosen ? [chosen] : [])])].map((value) => ({ value, label: value })),
  ];
  const people = Object.entries(users).sort(([, a], [, b]) => a.localeCompare(b));
  if (filters.user_id && !users[filters.user_id]) people.push([filters.user_id, filters.user_id]);

  return (
    <Page
      title="Activity"
      actions={
        <a className="button" href={getExportActivityUrl(filters)} download>
          Download CSV
        </a>
      }
    >
      <p>
        Every change made in the organisation, by people and API keys, newest first. The CSV download holds the entries
        of the filters below (at most the 10,000 newest).
      </p>
      <form className="card" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
        <div className="filters">
          <SelectField
            label="Action"
            value={filters.action ?? ''}
            onChange={(event) => filter('action', event.target.value)}
            options={choices(filterValues.data?.actions, filters.action, 'All actions')}
          />
          <SelectField
            label="Resource type"
            value={filters.resource_type ?? ''}
            onChange={(event) => filter('resource_type', event.target.value)}
            options={choices(filterValues.data?.resource_types, filters.resource_type, 'All resource types')}
          />
          <SelectField
            label="User"
            value={filters.user_id ?? ''}
            onChange={(event) => filter('user_id', event.target.value)}
            options={[{ value: '', label: 'All users' }, ...people.map(([value, label]) => ({ value, label }))]}
          />
          <TextField
            label="Since"
            type="datetime-local"
            value={localInput(filters.since)}
            onChange={(event) => filter('since', instant(event.target.value, false))}
          />
          <TextField
            label="Until"
            type="datetime-local"
            value={localInput(filters.until)}
            onChange={(event) => filter('until', instant(event.target.value, true))}
          />
        </div>
        <div className="form-actions">
          <button
            type="button"
            disabled={Object.keys(filters).length === 0}
            onClick={() => setParams(Object.fromEntries([...FILTERS, 'offset'].map((name) => [name, null])))}
          >
            Clear filters
          </button>
        </div>
      </form>
      <Loaded query={list}>
        {(data) => (
          <>
            {data.entries.length === 0 ? (
              <p>No activity {Object.keys(filters).length > 0 ? 'matches these filters' : 'yet'}.</p>
            ) : (
              <EntriesTable entries={data.entries} users={data.users} />
            )}
            <Pager
              label="Activity"
              {...page}
              shown={data.entries.length}
              total={data.total}
              limits={LIMITS}
              onChange={page.setPage}
            />
          </>
        )}
      </Loaded>
    </Page>
  );
}

function EntriesTable({ entries, users }: { entries: Entry[]; users: Record<string, string> }) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">User</th>
            <th scope="col">Action</th>
            <th scope="col">Resource</th>
            <th scope="col">Changes</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td className="nowrap">
                <Time at={entry.created_at} />
              </td>
              <td>{entry.user_id ? (users[entry.user_id] ?? entry.user_id) : <span className="muted">system</span>}</td>
              <td>{entry.action}</td>
              <td>
                {entry.resource_type}
                {entry.resource_id && (
                  <>
                    {' '}
                    <code className="small">{entry.resource_id}</code>
                  </>
                )}
              </td>
              <td>
                <Changes changes={entry.changes} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** `{field: [old, new]}` as "field: old → new"; anything else as its JSON. */
function Changes({ changes }: { changes: Record<string, unknown> }) {
  const fields = Object.entries(changes);
  if (fields.length === 0) return <span className="muted">none recorded</span>;
  return (
    <ul className="changes">
      {fields.map(([field, change]) => (
        <li key={field}>
          <span className="field-name">{field}</span>:{' '}
          {Array.isArray(change) && change.length === 2 ? (
            <>
              <Value value={change[0]} /> <span aria-hidden="true">→</span> <span className="sr-only">to</span>{' '}
              <Value value={change[1]} />
            </>
          ) : (
            <Value value={change} />
          )}
        </li>
      ))}
    </ul>
  );
}

function Value({ value }: { value: unknown }) {
  if (value === null || value === undefined) return <span className="muted">none</span>;
  const text =
    typeof value === 'string'
      ? value
      : JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  return <code>{text}</code>;
}
