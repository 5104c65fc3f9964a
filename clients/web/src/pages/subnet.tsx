/**
 * One subnet: its fields and usage, its children, its addresses (paged, the page in the URL), the free space
 * in it, and for editors allocation, editing, splitting and deleting, each saying what it will do first.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { Confirm } from '../components/confirm';
import { ErrorNotice } from '../components/errors';
import { FormActions, SelectField } from '../components/form';
import { AddressesSection, useAddressPage } from '../components/subnet-addresses';
import { EditSubnetForm, type SubnetDetail } from '../components/subnet-forms';
import { bitsOf, prefixOf, SpaceTools } from '../components/subnet-tools';
import { percent } from '../components/subnet-tree';
import { Dialog, Fact, Loaded, Page, UsageBar } from '../components/ui';
import { Link, navigate } from '../router';
import { useCan } from '../session';
import './subnets.css';

type SplitParts = Awaited<ReturnType<typeof api.subnets.split>>;

export function SubnetPage({ id }: Record<string, string>) {
  // After a split the subnet is gone: the page shows its parts instead of asking for it again.
  const [split, setSplit] = useState<{ network: string; parts: SplitParts } | null>(null);
  if (split) return <SplitDone {...split} />;
  if (id === undefined) throw new Error('The subnet page is routed as /subnets/:id, so it is given an id');
  return <SubnetView id={id} onSplit={(network, parts) => setSplit({ network, parts })} />;
}

function SubnetView({ id, onSplit }: { id: string; onSplit(network: string, parts: SplitParts): void }) {
  const canEdit = useCan('editor');
  const subnet = useQuery({ queryKey: ['subnet', id], queryFn: () => api.subnets.get(id) });
  const usage = useQuery({ queryKey: ['subnet', id, 'usage'], queryFn: () => api.subnets.usage(id) });
  const addresses = useAddressPage(id);
  const [dialog, setDialog] = useState<'edit' | 'split' | 'delete' | null>(null);
  const close = () => setDialog(null);
  const data = subnet.data;
  const ownAddresses = addresses.query.data?.total;

  return (
    <Page
      title={data ? data.network : 'Subnet'}
      actions={
        canEdit &&
        data && (
          <>
            <button type="button" onClick={() => setDialog('edit')}>
              Edit<span className="sr-only"> subnet {data.network}</span>
            </button>
            <button type="button" onClick={() => setDialog('split')}>
              Split<span className="sr-only"> subnet {data.network}</span>
            </button>
            <button type="button" className="danger" onClick={() => setDialog('delete')}>
              Delete<span className="sr-only"> subnet {data.network}</span>
            </button>
          </>
        )
      }
    >
      <Loaded query={subnet}>
        {(detail) => (
          <>
            <Breadcrumbs subnet={detail} />
            {(detail.name || detail.description) && (
              <p className="subnet-lead">
                {detail.name && <strong>{detail.name}</strong>}
                {detail.name && detail.description && ' · '}
                {detail.description}
              </p>
            )}
            <div className="grid two">
              <Details subnet={detail} />
              <section className="card" aria-labelledby="usage-title">
                <h2 id="usage-title">Usage</h2>
                <Loaded query={usage}>
                  {(u) => (
                    <>
                      <UsageBar label="Addresses used" used={u.used} total={u.total} />
                      <p className="muted small">
                        {percent.format(u.utilization)} used, counting the addresses of this subnet and of the tracked
                        subnets inside it, of its usable addresses.
                        {!detail.tracked && ' Not tracked: its addresses do not count in the subnets around it.'}
                      </p>
                    </>
                  )}
                </Loaded>
              </section>
            </div>
            <Children subnet={detail} />
            <SpaceTools subnet={detail} canEdit={canEdit} />
            <AddressesSection subnet={detail} canEdit={canEdit} {...addresses} />
            {canEdit && (
              <>
                <Dialog open={dialog === 'edit'} title={`Edit ${detail.network}`} onClose={close}>
                  <EditSubnetForm subnet={detail} onDone={close} />
                </Dialog>
                <Dialog open={dialog === 'split'} title={`Split ${detail.network}`} onClose={close}>
                  <SplitForm subnet={detail} ownAddresses={ownAddresses} onCancel={close} onSplit={onSplit} />
                </Dialog>
                <Dialog open={dialog === 'delete'} title={`Delete ${detail.network}?`} onClose={close}>
                  <DeleteForm subnet={detail} ownAddresses={ownAddresses} used={usage.data?.used} onCancel={close} />
                </Dialog>
              </>
            )}
          </>
        )}
      </Loaded>
    </Page>
  );
}

/** Where the subnet sits: the tree, its parent (by network once known), itself. */
function Breadcrumbs({ subnet }: { subnet: SubnetDetail }) {
  const parentId = subnet.parent_id;
  const parent = useQuery({
    queryKey: ['subnet', parentId],
    queryFn: () => api.subnets.get(parentId ?? ''),
    enabled: parentId !== undefined,
  });
  return (
    <nav aria-label="Breadcrumb" className="breadcrumbs">
      <ol>
        <li>
          <Link to="/subnets">Subnets</Link>
        </li>
        {parentId && (
          <li>
            <Link to={`/subnets/${parentId}`}>{parent.data?.network ?? 'Parent subnet'}</Link>
          </li>
        )}
        <li aria-current="page">{subnet.network}</li>
      </ol>
    </nav>
  );
}

function Details({ subnet }: { subnet: SubnetDetail }) {
  const rows: [string, string][] = [
    ['VRF', subnet.vrf_name ?? 'Global space'],
    ['VLAN', subnet.vlan_number?.toString() ?? 'None'],
    ['Folder', subnet.folder_name ?? 'None'],
    ['Location', subnet.location_name ?? 'None'],
    ['Gateway', subnet.gateway ?? 'None'],
    ['DNS servers', [subnet.dns_primary, subnet.dns_secondary].filter(Boolean).join(', ') || 'None'],
    ['Pool', subnet.is_pool ? 'Yes: network and broadcast usable' : 'No'],
    ['Tracked', subnet.tracked ? 'Yes' : 'No: a container'],
    ['Scans', subnet.scan_enabled ? 'Included' : 'Not included'],
  ];
  return (
    <section className="card" aria-labelledby="details-title">
      <h2 id="details-title">Details</h2>
      <dl className="details">
        {rows.map(([term, value]) => (
          <Fact key={term} term={term}>
            {value}
          </Fact>
        ))}
      </dl>
    </section>
  );
}

function Children({ subnet }: { subnet: SubnetDetail }) {
  return (
    <section className="card" aria-labelledby="children-title">
      <h2 id="children-title">Child subnets ({subnet.children.length.toLocaleString()})</h2>
      {subnet.children.length === 0 ? (
        <p className="muted">None: no subnet is nested in {subnet.network}.</p>
      ) : (
        <ul className="children">
          {subnet.children.map((child) => (
            <li key={child.id}>
              <Link to={`/subnets/${child.id}`}>{child.network}</Link>
              {child.name && <span className="muted"> {child.name}</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Splitting: the parts a subnet can be split into (2 to 1024, no longer than a host), and what happens. */
function SplitForm({
  subnet,
  ownAddresses,
  onCancel,
  onSplit,
}: {
  subnet: SubnetDetail;
  ownAddresses: number | undefined;
  onCancel(): void;
  onSplit(network: string, parts: SplitParts): void;
}) {
  const queryClient = useQueryClient();
  const room = bitsOf(subnet.network) - prefixOf(subnet.network);
  const choices = Array.from({ length: Math.min(10, room) }, (_, i) => 2 ** (i + 1));
  const [parts, setParts] = useState(String(Math.min(4, choices.at(-1) ?? 2)));
  const split = useMutation({
    mutationFn: () => api.subnets.split(subnet.id, { parts: Number(parts) }),
    onSuccess: (answer) => {
      onSplit(subnet.network, answer);
      void queryClient.invalidateQueries({ queryKey: ['subnets'] });
      queryClient.removeQueries({ queryKey: ['subnet', subnet.id] });
    },
  });
  if (choices.length === 0)
    return (
      <>
        <p>{subnet.network} is a single address: it cannot be split.</p>
        <button type="button" onClick={onCancel}>
          Close
        </button>
      </>
    );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    split.mutate();
  };
  const partPrefix = prefixOf(subnet.network) + Math.log2(Number(parts));
  return (
    <form onSubmit={submit}>
      <SelectField
        label="Parts"
        options={choices.map((n) => ({
          value: String(n),
          label: `${n} subnets of /${prefixOf(subnet.network) + Math.log2(n)}`,
        }))}
        value={parts}
        onChange={(event) => setParts(event.target.value)}
      />
      <div className="notice warn">
        <strong>What happens</strong>
        <ul>
          <li>
            {subnet.network} is replaced by {parts} subnets of /{partPrefix}, which keep its folder, parent, name, VRF
            and pool flag; its description, VLAN, location, gateway and DNS servers are not kept.
          </li>
          <li>
            <strong>
              {subnet.network} is deleted, and with it its own{' '}
              {ownAddresses === undefined ? '' : `${ownAddresses.toLocaleString()} `}address records
            </strong>{' '}
            (they are not moved into the parts).
          </li>
          {subnet.children.length > 0 && (
            <li>
              Its {subnet.children.length.toLocaleString()} child subnets stay, each nested under the part that holds
              it.
            </li>
          )}
        </ul>
      </div>
      <ErrorNotice error={split.error} />
      <FormActions
        label={`Split ${subnet.network} into ${parts}`}
        pending={split.isPending}
        onCancel={onCancel}
        danger
      />
    </form>
  );
}

function SplitDone({ network, parts }: { network: string; parts: SplitParts }) {
  return (
    <Page title={`${network} was split`}>
      <div className="notice success" role="status">
        <p>
          {network} is now {parts.length} subnets; it and its own addresses were deleted.
        </p>
      </div>
      <section className="card" aria-labelledby="parts-title">
        <h2 id="parts-title">The parts</h2>
        <ul className="children">
          {parts.map((part) => (
            <li key={part.id}>
              <Link to={`/subnets/${part.id}`}>{part.network}</Link>
            </li>
          ))}
        </ul>
      </section>
      <p>
        <Link to="/subnets">Back to the subnet tree</Link>
      </p>
    </Page>
  );
}

/** `n thing` or `n things`, the number written for the reader. */
const plural = (n: number, thing: string) => `${n.toLocaleString()} ${thing}${n === 1 ? '' : 's'}`;

/** Deleting, after saying what goes with it: the child subnets and every address, and the server's count of both. */
function DeleteForm({
  subnet,
  ownAddresses,
  used,
  onCancel,
}: {
  subnet: SubnetDetail;
  ownAddresses: number | undefined;
  used: number | undefined;
  onCancel(): void;
}) {
  const queryClient = useQueryClient();
  const deleted = () => {
    navigate(`/subnets?deleted=${encodeURIComponent(subnet.network)}`);
    void queryClient.invalidateQueries({ queryKey: ['subnets'] });
    queryClient.removeQueries({ queryKey: ['subnet', subnet.id] });
  };
  // A dry run: what the delete would remove, counted by the server (untracked subnets' addresses too).
  const deletion = useQuery({
    queryKey: ['subnet', subnet.id, 'deletion'],
    queryFn: () => api.subnets.delete(subnet.id, { dry_run: 'true' }),
    retry: false,
  });
  const total = deletion.data && 'subnet_count' in deletion.data ? deletion.data : undefined;
  const children = subnet.children.length;
  const own =
    ownAddresses === undefined
      ? 'its own address records'
      : `its ${ownAddresses.toLocaleString()} own address record${ownAddresses === 1 ? '' : 's'}`;
  return (
    <Confirm
      action={`Delete subnet ${subnet.network}`}
      run={() => api.subnets.delete(subnet.id)}
      onClose={onCancel}
      onDone={deleted}
    >
      <p>This cannot be undone. Deleted with {subnet.network}:</p>
      <ul className="cascade">
        <li>{own};</li>
        {children > 0 ? (
          <li>
            its {children.toLocaleString()} child subnet{children === 1 ? '' : 's'} (
            {subnet.children
              .slice(0, 5)
              .map((c) => c.network)
              .join(', ')}
            {children > 5 ? ' …' : ''}), every subnet inside {children === 1 ? 'it' : 'them'}, and all their addresses
            {used !== undefined && ownAddresses !== undefined && used > ownAddresses
              ? `: ${used.toLocaleString()} addresses in all, counting the tracked subnets inside it`
              : ''}
            .
          </li>
        ) : (
          <li>no child subnets: it has none.</li>
        )}
      </ul>
      {total ? (
        <p>
          In all, this deletes {plural(total.subnet_count, 'subnet')} and{' '}
          {plural(total.address_count, 'address record')}.
        </p>
      ) : null}
    </Confirm>
  );
}
