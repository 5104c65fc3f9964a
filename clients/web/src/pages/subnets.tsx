/**
 * The subnet tree: a section per address space (the global space, then each VRF), filtered by folder and by
 * text (both in the URL), and for editors the form to create a subnet.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { api } from '../api';
import { ErrorNotice } from '../components/errors';
import { useQueryParams } from '../components/pager';
import { type CreatedSubnet, CreateSubnetForm } from '../components/subnet-forms';
import { matchesText, type SubnetItem, SubnetTree } from '../components/subnet-tree';
import { Dialog, Loaded, Page } from '../components/ui';
import { Link } from '../router';
import { useCan } from '../session';
import './subnets.css';

interface Space {
  key: string;
  title: string;
  subnets: SubnetItem[];
}

/** The subnets by space: the global space first, then the VRFs by name. */
function spacesOf(subnets: SubnetItem[]): Space[] {
  const spaces = new Map<string, Space>();
  for (const subnet of subnets) {
    const key = subnet.vrf_id ?? '';
    let space = spaces.get(key);
    if (!space) {
      space = { key, title: subnet.vrf_id ? `VRF ${subnet.vrf_name ?? ''}` : 'Global space', subnets: [] };
      spaces.set(key, space);
    }
    space.subnets.push(subnet);
  }
  return [...spaces.values()].sort((a, b) => (a.key === '' ? -1 : b.key === '' ? 1 : a.title.localeCompare(b.title)));
}

const count = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

export function SubnetsPage(_props: Record<string, string>) {
  const canEdit = useCan('editor');
  const [params, update] = useQueryParams();
  const folderId = params.get('folder_id') ?? '';
  const text = params.get('q') ?? '';
  const deleted = params.get('deleted');
  const filter = text.trim().toLowerCase();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedSubnet | null>(null);

  const list = useQuery({
    queryKey: ['subnets', folderId],
    queryFn: () => api.subnets.list(folderId ? { folder_id: folderId } : undefined),
  });
  const folders = useQuery({ queryKey: ['folders'], queryFn: () => api.folders.list() });
  const spaces = useMemo(() => spacesOf(list.data ?? []), [list.data]);

  return (
    <Page
      title="Subnets"
      actions={
        canEdit && (
          <button type="button" className="primary" onClick={() => setCreating(true)}>
            New subnet
          </button>
        )
      }
    >
      {deleted && (
        <div className="notice success" role="status">
          <p>Deleted {deleted} and everything inside it.</p>
        </div>
      )}
      {created && <CreatedNotice created={created} />}
      <div className="form-row subnet-filters">
        <div className="field">
          <label htmlFor="subnet-filter">Filter by network or name</label>
          <input
            id="subnet-filter"
            type="search"
            value={text}
            placeholder="e.g. 10.20. or servers"
            onChange={(event) => update({ q: event.target.value, deleted: null })}
          />
        </div>
        <div className="field">
          <label htmlFor="subnet-folder">Folder</label>
          <select
            id="subnet-folder"
            value={folderId}
            onChange={(event) => update({ folder_id: event.target.value, deleted: null })}
          >
            <option value="">All folders</option>
            {folders.data?.map((folder) => (
              <option key={folder.id} value={folder.id}>
                {folder.name}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorNotice error={folders.error} />
      <Loaded query={list}>
        {(subnets) =>
          subnets.length === 0 ? (
            <p className="card">
              {folderId ? 'No subnets in this folder.' : 'No subnets yet.'}
              {canEdit && ' Create one with New subnet: smaller ones nest inside it by themselves.'}
            </p>
          ) : (
            <Spaces spaces={spaces} filter={filter} reveal={created?.subnet.id} />
          )
        }
      </Loaded>
      {canEdit && (
        <Dialog open={creating} title="New subnet" onClose={() => setCreating(false)}>
          <CreateSubnetForm
            folderId={folderId}
            onCancel={() => setCreating(false)}
            onCreated={(answer) => {
              setCreated(answer);
              setCreating(false);
            }}
          />
        </Dialog>
      )}
      <p className="muted small">
        Keyboard: arrow keys move through the tree, right and left open and close a subnet, Enter opens its page.{' '}
        <Link to="/search">Search</Link> finds addresses and hosts too.
      </p>
    </Page>
  );
}

function Spaces({ spaces, filter, reveal }: { spaces: Space[]; filter: string; reveal?: string }) {
  const matching = (space: Space) => (filter ? space.subnets.filter((s) => matchesText(s, filter)).length : null);
  const counted = spaces.map((space) => ({ space, matches: matching(space) }));
  if (counted.every(({ matches }) => matches === 0)) return <p className="card">No subnet matches “{filter}”.</p>;
  return (
    <>
      {counted
        .filter(({ matches }) => matches !== 0)
        .map(({ space, matches }) => (
          <section key={space.key} className="subnet-space" aria-labelledby={`space-${space.key || 'global'}`}>
            <h2 id={`space-${space.key || 'global'}`}>
              {space.title}{' '}
              <span className="muted small">
                {matches === null
                  ? count(space.subnets.length, 'subnet')
                  : `${matches.toLocaleString()} of ${count(space.subnets.length, 'subnet')} match`}
              </span>
            </h2>
            <SubnetTree
              label={`Subnets of the ${space.key ? space.title : 'global space'}`}
              subnets={space.subnets}
              filter={filter}
              reveal={reveal}
            />
          </section>
        ))}
    </>
  );
}

/** What a create answered: the subnet, and the ranges of other VRFs it overlaps (it was created all the same). */
function CreatedNotice({ created }: { created: CreatedSubnet }) {
  const { subnet, warnings } = created;
  return (
    <>
      <div className="notice success" role="status">
        <p>
          Created <Link to={`/subnets/${subnet.id}`}>{subnet.network}</Link>
          {subnet.name && ` (${subnet.name})`}.
        </p>
      </div>
      {warnings.length > 0 && (
        <div className="notice warn" role="alert">
          <strong>{subnet.network} overlaps ranges in other VRFs</strong>
          <p>It was created in the global space all the same. The overlapping subnets:</p>
          <ul>
            {warnings.map((warning) => (
              <li key={warning.id}>
                <Link to={`/subnets/${warning.id}`}>{warning.network}</Link>
                {warning.name && ` ${warning.name}`} in VRF {warning.vrf_name}
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}
