/**
 * The address records of a subnet: a page of them (its offset and size in the URL, the total from
 * X-Total-Count), and for editors adding, editing and deleting one.
 */
import { type UseQueryResult, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { AddressStatus } from '../../../typescript/src/index';
import { api } from '../api';
import { Confirm } from './confirm';
import { ErrorNotice } from './errors';
import { FormActions, SelectField, TextField } from './form';
import { Pager, type PageState, usePaging } from './pager';
import { formErrors, type SubnetDetail, useValues } from './subnet-forms';
import { Dialog, Loaded, Table } from './ui';

type Address = Awaited<ReturnType<typeof api.addresses.list>>[number];
type CreateBody = Parameters<typeof api.addresses.create>[1];
type UpdateBody = Parameters<typeof api.addresses.update>[1];

const PAGE_SIZES = [50, 100, 250] as const;
const STATUS_OPTIONS = Object.values(AddressStatus).map((status) => ({ value: status, label: status }));
const FIELDS = ['ip', 'hostname', 'mac_address', 'status', 'owner', 'description'] as const;

/** The subnet's address records on the page the URL names, with their total (X-Total-Count). */
export function useAddressPage(id: string) {
  const paging = usePaging(PAGE_SIZES);
  const query = useQuery({
    queryKey: ['subnet', id, 'addresses', paging.offset, paging.limit],
    queryFn: async () => {
      const page = await api.addresses.list(id, { limit: paging.limit, offset: paging.offset });
      return { items: [...page], total: Number(page.lastResponse.headers.get('x-total-count') ?? page.length) };
    },
  });
  return { paging, query };
}

export function AddressesSection({
  subnet,
  canEdit,
  paging,
  query,
}: {
  subnet: SubnetDetail;
  canEdit: boolean;
  paging: PageState & { setPage(page: PageState): void };
  query: UseQueryResult<{ items: Address[]; total: number }>;
}) {
  const [editing, setEditing] = useState<Address | null>(null);
  const [deleting, setDeleting] = useState<Address | null>(null);
  // After a page change the heading takes the focus (and the view), where the new rows begin.
  const heading = useRef<HTMLHeadingElement>(null);
  const paged = useRef(false);
  const { offset, limit } = paging;
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the page changes
  useEffect(() => {
    if (paged.current) heading.current?.focus();
  }, [offset, limit]);
  const total = query.data?.total;
  return (
    <section className="card" aria-labelledby="addresses-title">
      <h2 id="addresses-title" ref={heading} tabIndex={-1}>
        Addresses{total !== undefined && ` (${total.toLocaleString()})`}
      </h2>
      <Loaded query={query}>
        {({ items, total }) =>
          items.length === 0 && offset === 0 ? (
            <p className="muted">No address is recorded in {subnet.network} yet.</p>
          ) : (
            <>
              <Table
                caption={`Addresses of ${subnet.network}`}
                headings={[
                  'IP address',
                  'Hostname',
                  'MAC address',
                  'Status',
                  'Owner',
                  'Description',
                  canEdit && 'Actions',
                ]}
              >
                {items.map((address) => (
                  <tr key={address.id}>
                    <td>
                      <code>{address.ip}</code>
                    </td>
                    <td>{address.hostname}</td>
                    <td>
                      <code>{address.mac_address}</code>
                    </td>
                    <td>{address.status}</td>
                    <td>{address.owner}</td>
                    <td>{address.description}</td>
                    {canEdit && (
                      <td className="row-actions">
                        <button type="button" onClick={() => setEditing(address)}>
                          Edit<span className="sr-only"> address {address.ip}</span>
                        </button>
                        <button type="button" onClick={() => setDeleting(address)}>
                          Delete<span className="sr-only"> address {address.ip}</span>
                        </button>
                      </td>
                    )}
                  </tr>
                ))}
              </Table>
              <Pager
                label="Addresses"
                offset={offset}
                limit={limit}
                shown={items.length}
                total={total}
                limits={PAGE_SIZES}
                onChange={(page) => {
                  paged.current = true;
                  paging.setPage(page);
                }}
              />
            </>
          )
        }
      </Loaded>
      {canEdit && (
        <>
          <AddAddressForm subnet={subnet} />
          <Dialog open={editing !== null} title={`Edit ${editing?.ip ?? 'address'}`} onClose={() => setEditing(null)}>
            {editing && <EditAddressForm address={editing} onDone={() => setEditing(null)} />}
          </Dialog>
          <Dialog
            open={deleting !== null}
            title={`Delete ${deleting?.ip ?? 'address'}?`}
            onClose={() => setDeleting(null)}
          >
            {deleting && (
              <Confirm
                action={`Delete address ${deleting.ip}`}
                run={() => api.addresses.delete(deleting.id)}
                invalidate={ADDRESS_QUERIES}
                onClose={() => setDeleting(null)}
              >
                <p>
                  The record of {deleting.ip}
                  {deleting.hostname && ` (${deleting.hostname})`} is deleted and the address is free again.
                </p>
              </Confirm>
            )}
          </Dialog>
        </>
      )}
    </section>
  );
}

/** What an address write changes: the subnet's page and usage, and the tree's figures. */
const ADDRESS_QUERIES = [['subnet'], ['subnets']];

/** An address write that refreshes what it changes (without waiting for it) and then calls `onDone`. */
function useAddressWrite<T, V>(write: (variables: V) => Promise<T>, onDone?: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: write,
    onSuccess: () => {
      for (const queryKey of ADDRESS_QUERIES) void queryClient.invalidateQueries({ queryKey });
      onDone?.();
    },
  });
}

const blank = { ip: '', hostname: '', mac_address: '', status: 'assigned', owner: '', description: '' };

function AddAddressForm({ subnet }: { subnet: SubnetDetail }) {
  const [added, setAdded] = useState<string | null>(null);
  const { values, bind, reset } = useValues(blank);
  const create = useAddressWrite((body: CreateBody) => api.addresses.create(subnet.id, body));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value.trim() !== ''));
    create.mutate(
      { ...given, ip: values.ip.trim(), status: values.status as CreateBody['status'] },
      {
        onSuccess: (address) => {
          setAdded(address.ip);
          reset();
        },
      },
    );
  };
  const { messages, notice } = formErrors(create.error, FIELDS);
  return (
    <form className="add-address" onSubmit={submit} noValidate aria-labelledby="add-address-title">
      <h3 id="add-address-title">Add an address</h3>
      <div className="form-row">
        <TextField label="IP address" required autoComplete="off" error={messages.ip} {...bind('ip')} />
        <TextField label="Hostname" autoComplete="off" error={messages.hostname} {...bind('hostname')} />
        <TextField label="MAC address" autoComplete="off" error={messages.mac_address} {...bind('mac_address')} />
        <SelectField label="Status" options={STATUS_OPTIONS} error={messages.status} {...bind('status')} />
        <TextField label="Owner" error={messages.owner} {...bind('owner')} />
        <TextField label="Description" error={messages.description} {...bind('description')} />
      </div>
      <ErrorNotice error={notice} />
      {added && !create.error && (
        <p className="notice success" role="status">
          Added {added}.
        </p>
      )}
      <FormActions label="Add address" pending={create.isPending} />
    </form>
  );
}

function EditAddressForm({ address, onDone }: { address: Address; onDone(): void }) {
  const initial = {
    hostname: address.hostname,
    mac_address: address.mac_address,
    status: address.status as string,
    owner: address.owner,
    description: address.description,
  };
  const { values, bind } = useValues(initial);
  const update = useAddressWrite((body: UpdateBody) => api.addresses.update(address.id, body), onDone);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = Object.fromEntries(
      Object.entries(values).filter(([name, value]) => value !== initial[name as keyof typeof initial]),
    );
    if (Object.keys(body).length === 0) onDone();
    else update.mutate(body);
  };
  const { messages, notice } = formErrors(update.error, FIELDS);
  return (
    <form onSubmit={submit} noValidate>
      <TextField label="Hostname" autoComplete="off" error={messages.hostname} {...bind('hostname')} />
      <TextField label="MAC address" autoComplete="off" error={messages.mac_address} {...bind('mac_address')} />
      <SelectField label="Status" options={STATUS_OPTIONS} error={messages.status} {...bind('status')} />
      <TextField label="Owner" error={messages.owner} {...bind('owner')} />
      <TextField label="Description" error={messages.description} {...bind('description')} />
      <ErrorNotice error={notice} />
      <FormActions label={`Save address ${address.ip}`} pending={update.isPending} onCancel={onDone} />
    </form>
  );
}
