/**
 * The free space of a subnet: free blocks of a chosen size and the first free address for anyone who reads;
 * for editors, allocating the next free addresses and the next free child subnets.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api } from '../api';
import { Link } from '../router';
import { ErrorNotice } from './errors';
import { TextField } from './form';
import { formErrors, type SubnetDetail, useValues } from './subnet-forms';

export const bitsOf = (network: string) => (network.includes(':') ? 128 : 32);
export const prefixOf = (network: string) => Number(network.split('/')[1]);
/** A prefix two bits longer than the subnet's (four blocks), or the longest there is. */
const suggestedPrefix = (network: string) => String(Math.min(bitsOf(network), prefixOf(network) + 2));

const BLOCKS_SHOWN = 10;

export function SpaceTools({ subnet, canEdit }: { subnet: SubnetDetail; canEdit: boolean }) {
  return (
    <section className="card" aria-labelledby="space-title">
      <h2 id="space-title">Free space</h2>
      <div className="tools">
        <FreeBlocks subnet={subnet} />
        <FirstFree subnet={subnet} />
        {canEdit && <AllocateAddresses subnet={subnet} />}
        {canEdit && <AllocateSubnets subnet={subnet} />}
      </div>
    </section>
  );
}

/** Asking again after any write to the subnet: its queries share the subnet's key, which writes invalidate. */
function FreeBlocks({ subnet }: { subnet: SubnetDetail }) {
  const [prefix, setPrefix] = useState(suggestedPrefix(subnet.network));
  const [asked, setAsked] = useState<number | null>(null);
  const blocks = useQuery({
    queryKey: ['subnet', subnet.id, 'free-blocks', asked],
    queryFn: () => api.subnets.freeBlocks(subnet.id, { prefix: asked ?? 0, limit: BLOCKS_SHOWN }),
    enabled: asked !== null,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAsked(Number(prefix));
  };
  const { messages, notice } = formErrors(blocks.error, ['prefix']);
  const data = blocks.data;
  return (
    <form onSubmit={submit} noValidate aria-labelledby="blocks-title">
      <h3 id="blocks-title">Free blocks</h3>
      <div className="form-row">
        <TextField
          label="Prefix length"
          type="number"
          min={prefixOf(subnet.network) + 1}
          max={bitsOf(subnet.network)}
          value={prefix}
          error={messages.prefix}
          onChange={(event) => setPrefix(event.target.value)}
        />
        <button type="submit">Find free blocks</button>
      </div>
      <ErrorNotice error={notice} />
      {data && (
        <div role="status" className="tool-result">
          <p>
            {data.total === 0
              ? `No free /${data.prefix} block in ${data.network}.`
              : `${data.total.toLocaleString()}${data.capped ? ' or more' : ''} free /${data.prefix} block${data.total === 1 ? '' : 's'}${data.total > data.blocks.length ? `; the first ${data.blocks.length}` : ''}:`}
          </p>
          {data.blocks.length > 0 && (
            <ul className="blocks">
              {data.blocks.map((block) => (
                <li key={block}>
                  <code>{block}</code>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </form>
  );
}

function FirstFree({ subnet }: { subnet: SubnetDetail }) {
  const [asked, setAsked] = useState(false);
  const first = useQuery({
    queryKey: ['subnet', subnet.id, 'first-free'],
    queryFn: () => api.subnets.firstFree(subnet.id),
    enabled: asked,
  });
  return (
    <div>
      <h3 id="first-free-title">First free address</h3>
      <button type="button" onClick={() => (asked ? first.refetch() : setAsked(true))}>
        Find the first free address
      </button>
      <ErrorNotice error={first.error} />
      {first.data && (
        <p role="status" className="tool-result">
          {first.data.ip === null ? (
            (first.data.message ?? `${subnet.network} is full.`)
          ) : (
            <>
              The first free address is <code>{first.data.ip}</code>.
            </>
          )}
        </p>
      )}
    </div>
  );
}

/** What an allocation changes: the subnet's figures, addresses and children, and the tree. */
function useAllocation<T, V>(allocate: (variables: V) => Promise<T>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: allocate,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['subnet'] });
      void queryClient.invalidateQueries({ queryKey: ['subnets'] });
    },
  });
}

function AllocateAddresses({ subnet }: { subnet: SubnetDetail }) {
  const { values, bind } = useValues({ count: '1' });
  const allocate = useAllocation((count: number) => api.subnets.allocateAddress(subnet.id, { count }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    allocate.mutate(Number(values.count));
  };
  const { messages, notice } = formErrors(allocate.error, ['count']);
  const ips = allocate.data?.map((address) => address.ip);
  return (
    <form onSubmit={submit} noValidate aria-labelledby="allocate-addresses-title">
      <h3 id="allocate-addresses-title">Allocate addresses</h3>
      <div className="form-row">
        <TextField
          label="How many addresses"
          hint="1 to 500, the lowest free ones"
          type="number"
          min={1}
          max={500}
          error={messages.count}
          {...bind('count')}
        />
        <button type="submit" className="primary" disabled={allocate.isPending}>
          Allocate addresses
        </button>
      </div>
      <ErrorNotice error={notice} />
      {ips && (
        <p role="status" className="tool-result">
          Allocated {ips.length === 1 ? 'the address' : `${ips.length} addresses`}: <code>{ips.join(', ')}</code>
        </p>
      )}
    </form>
  );
}

function AllocateSubnets({ subnet }: { subnet: SubnetDetail }) {
  const { values, bind } = useValues({ prefix_length: suggestedPrefix(subnet.network), count: '1', name: '' });
  const allocate = useAllocation((body: Parameters<typeof api.subnets.allocateSubnet>[1]) =>
    api.subnets.allocateSubnet(subnet.id, body),
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    allocate.mutate({
      prefix_length: Number(values.prefix_length),
      count: Number(values.count),
      ...(values.name.trim() ? { name: values.name.trim() } : {}),
    });
  };
  const { messages, notice } = formErrors(allocate.error, ['prefix_length', 'count', 'name']);
  return (
    <form className="wide" onSubmit={submit} noValidate aria-labelledby="allocate-subnets-title">
      <h3 id="allocate-subnets-title">Allocate child subnets</h3>
      <div className="form-row">
        <TextField
          label="Prefix length of the new subnets"
          type="number"
          min={prefixOf(subnet.network) + 1}
          max={bitsOf(subnet.network)}
          error={messages.prefix_length}
          {...bind('prefix_length')}
        />
        <TextField
          label="How many subnets"
          hint="1 to 64"
          type="number"
          min={1}
          max={64}
          error={messages.count}
          {...bind('count')}
        />
        <TextField label="Name of the new subnets" error={messages.name} {...bind('name')} />
        <button type="submit" className="primary" disabled={allocate.isPending}>
          Allocate subnets
        </button>
      </div>
      <ErrorNotice error={notice} />
      {allocate.data && (
        <div role="status" className="tool-result">
          <p>Allocated {allocate.data.length === 1 ? 'the subnet' : `${allocate.data.length} subnets`}:</p>
          <ul className="blocks">
            {allocate.data.map((child) => (
              <li key={child.id}>
                <Link to={`/subnets/${child.id}`}>{child.network}</Link>
              </li>
            ))}
          </ul>
        </div>
      )}
    </form>
  );
}
