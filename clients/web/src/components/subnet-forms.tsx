/**
 * The forms that write a subnet's fields: creating one (references by id, chosen from lists) and editing one
 * (VLAN by number and VRF by name, as PATCH takes them; only what changed is sent). A 400 names fields: each
 * message shows next to its field, the rest in a notice by the button.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type ChangeEvent, type FormEvent, useState } from 'react';
import { api } from '../api';
import { ErrorNotice, problemOf } from './errors';
import { CheckboxField, FormActions, SelectField, TextField } from './form';

type CreateAnswer = Awaited<ReturnType<typeof api.subnets.create>>;
type CreateBody = Parameters<typeof api.subnets.create>[0];
type UpdateBody = Parameters<typeof api.subnets.update>[1];
export type SubnetDetail = Awaited<ReturnType<typeof api.subnets.get>>;

/** A created subnet with the ranges of other VRFs it overlaps (none when the answer had no warnings). */
export type CreatedSubnet = Pick<Extract<CreateAnswer, { warnings: unknown }>, 'subnet' | 'warnings'>;

/**
 * The field messages of a 400, and the error to show as a notice: any error but a 400 whose every message
 * sits next to one of the form's `fields`.
 */
export function formErrors(error: unknown, fields: readonly string[]) {
  const messages = problemOf(error).fields;
  const names = Object.keys(messages);
  const placed = names.length > 0 && names.every((name) => fields.includes(name));
  return { messages, notice: error && !placed ? error : null };
}

/** String and boolean form values with an onChange maker per field. */
export function useValues<T extends Record<string, string | boolean>>(initial: T) {
  const [values, setValues] = useState(initial);
  const bind = (name: keyof T & string) => {
    const onChange = (event: ChangeEvent<HTMLInputElement | HTMLSelectElement>) => {
      const target = event.target;
      const value = target instanceof HTMLInputElement && target.type === 'checkbox' ? target.checked : target.value;
      setValues((current) => ({ ...current, [name]: value }));
    };
    return typeof initial[name] === 'boolean'
      ? { name, checked: values[name] as boolean, onChange }
      : { name, value: values[name] as string, onChange };
  };
  return { values, bind, reset: () => setValues(initial) };
}

/** The folders, VRFs, VLANs and locations a subnet can be given, as options of a select ('' is none). */
function useChoices() {
  const folders = useQuery({ queryKey: ['folders'], queryFn: () => api.folders.list() });
  const vrfs = useQuery({ queryKey: ['vrfs'], queryFn: () => api.vrfs.list() });
  const vlans = useQuery({ queryKey: ['vlans'], queryFn: () => api.vlans.list() });
  const locations = useQuery({ queryKey: ['locations'], queryFn: () => api.locations.list() });
  const options = (none: string, items: { value: string; label: string }[] = []) => [
    { value: '', label: none },
    ...items,
  ];
  return {
    error: folders.error ?? vrfs.error ?? vlans.error ?? locations.error,
    folders: options(
      'No folder',
      folders.data?.map((f) => ({ value: f.id, label: f.name })),
    ),
    vrfs: options(
      'Global space (no VRF)',
      vrfs.data?.map((v) => ({ value: v.id, label: v.name })),
    ),
    vlans: options(
      'No VLAN',
      vlans.data?.map((v) => ({ value: v.id, label: `${v.vlan_number}${v.name ? ` ${v.name}` : ''}` })),
    ),
    locations: options(
      'No location',
      locations.data?.map((l) => ({ value: l.id, label: l.name })),
    ),
  };
}

const CREATE_FIELDS = [
  'network',
  'name',
  'vrf_id',
  'folder_id',
  'vlan_id',
  'location_id',
  'gateway',
  'is_pool',
  'tracked',
] as const;

export function CreateSubnetForm({
  folderId,
  onCreated,
  onCancel,
}: {
  /** The folder preselected (the one the tree is filtered by). */
  folderId: string;
  onCreated(created: CreatedSubnet): void;
  onCancel(): void;
}) {
  const choices = useChoices();
  const queryClient = useQueryClient();
  const { values, bind } = useValues({
    network: '',
    name: '',
    vrf_id: '',
    folder_id: folderId,
    vlan_id: '',
    location_id: '',
    gateway: '',
    is_pool: false,
    tracked: true,
  });
  const create = useMutation({
    mutationFn: (body: CreateBody) => api.subnets.create(body),
    onSuccess: (answer) => {
      void queryClient.invalidateQueries({ queryKey: ['subnets'] });
      onCreated('warnings' in answer ? answer : { subnet: answer, warnings: [] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { is_pool, tracked, ...text } = values;
    // Empty text is left out: the API's defaults (no name, no VRF, no gateway …) apply.
    const given = Object.fromEntries(Object.entries(text).filter(([, value]) => value.trim() !== ''));
    create.mutate({ ...given, network: values.network.trim(), is_pool, tracked });
  };
  const { messages, notice } = formErrors(create.error, CREATE_FIELDS);
  return (
    <form onSubmit={submit} noValidate>
      <div className="grid two">
        <TextField
          label="Network"
          hint="A CIDR block, e.g. 10.0.1.0/24 or 2001:db8::/48"
          required
          autoComplete="off"
          error={messages.network}
          {...bind('network')}
        />
        <TextField label="Name" error={messages.name} {...bind('name')} />
        <SelectField label="VRF" options={choices.vrfs} error={messages.vrf_id} {...bind('vrf_id')} />
        <SelectField label="Folder" options={choices.folders} error={messages.folder_id} {...bind('folder_id')} />
        <SelectField label="VLAN" options={choices.vlans} error={messages.vlan_id} {...bind('vlan_id')} />
        <SelectField
          label="Location"
          options={choices.locations}
          error={messages.location_id}
          {...bind('location_id')}
        />
        <TextField
          label="Gateway"
          hint="An address inside the network, e.g. 10.0.1.1"
          autoComplete="off"
          error={messages.gateway}
          {...bind('gateway')}
        />
      </div>
      <CheckboxField label="Pool: every address is usable, network and broadcast included" {...bind('is_pool')} />
      <CheckboxField label="Tracked: counts in the utilisation of the subnets around it" {...bind('tracked')} />
      <ErrorNotice error={choices.error} />
      <ErrorNotice error={notice} />
      <FormActions label="Create subnet" pending={create.isPending} onCancel={onCancel} />
    </form>
  );
}

const EDIT_FIELDS = [
  'name',
  'description',
  'vrf',
  'vlan',
  'folder_id',
  'location_id',
  'gateway',
  'dns_primary',
  'dns_secondary',
  'is_pool',
  'tracked',
  'scan_enabled',
] as const;

/** The form's values of a subnet as it is. */
const editValues = (subnet: SubnetDetail) => ({
  name: subnet.name,
  description: subnet.description,
  vrf: subnet.vrf_name ?? '',
  vlan: subnet.vlan_number?.toString() ?? '',
  folder_id: subnet.folder_id ?? '',
  location_id: subnet.location_id ?? '',
  gateway: subnet.gateway ?? '',
  dns_primary: subnet.dns_primary ?? '',
  dns_secondary: subnet.dns_secondary ?? '',
  is_pool: subnet.is_pool,
  tracked: subnet.tracked,
  scan_enabled: subnet.scan_enabled,
});

/** The PATCH body of what changed: emptied ids and addresses are null (cleared), VLAN and VRF '' (cleared). */
function changes(before: ReturnType<typeof editValues>, after: ReturnType<typeof editValues>): UpdateBody {
  const body: Record<string, string | boolean | null> = {};
  for (const key of Object.keys(after) as (keyof typeof after)[]) {
    const value = after[key];
    if (value === before[key]) continue;
    const nullable = key.endsWith('_id') || key === 'gateway' || key.startsWith('dns_');
    body[key] = typeof value === 'string' ? (nullable && value.trim() === '' ? null : value.trim()) : value;
  }
  return body;
}

export function EditSubnetForm({ subnet, onDone }: { subnet: SubnetDetail; onDone(): void }) {
  const choices = useChoices();
  const queryClient = useQueryClient();
  const initial = editValues(subnet);
  const { values, bind } = useValues(initial);
  const update = useMutation({
    mutationFn: (body: UpdateBody) => api.subnets.update(subnet.id, body),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['subnets'] });
      void queryClient.invalidateQueries({ queryKey: ['subnet'] });
      onDone();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body = changes(initial, values);
    if (Object.keys(body).length === 0) onDone();
    else update.mutate(body);
  };
  const { messages, notice } = formErrors(update.error, EDIT_FIELDS);
  return (
    <form onSubmit={submit} noValidate>
      <div className="grid two">
        <TextField label="Name" error={messages.name} {...bind('name')} />
        <TextField label="Description" error={messages.description} {...bind('description')} />
        <TextField
          label="VRF name"
          hint="Created when missing; empty moves the subnet to the global space"
          autoComplete="off"
          error={messages.vrf}
          {...bind('vrf')}
        />
        <TextField
          label="VLAN number"
          hint="1 to 4094, created when missing; empty clears it"
          inputMode="numeric"
          autoComplete="off"
          error={messages.vlan}
          {...bind('vlan')}
        />
        <SelectField label="Folder" options={choices.folders} error={messages.folder_id} {...bind('folder_id')} />
        <SelectField
          label="Location"
          options={choices.locations}
          error={messages.location_id}
          {...bind('location_id')}
        />
        <TextField label="Gateway" autoComplete="off" error={messages.gateway} {...bind('gateway')} />
        <TextField label="Primary DNS" autoComplete="off" error={messages.dns_primary} {...bind('dns_primary')} />
        <TextField label="Secondary DNS" autoComplete="off" error={messages.dns_secondary} {...bind('dns_secondary')} />
      </div>
      <CheckboxField label="Pool: every address is usable, network and broadcast included" {...bind('is_pool')} />
      <CheckboxField label="Tracked: counts in the utilisation of the subnets around it" {...bind('tracked')} />
      <CheckboxField label="Included in reachability scans" {...bind('scan_enabled')} />
      <ErrorNotice error={choices.error} />
      <ErrorNotice error={notice} />
      <FormActions label="Save subnet" pending={update.isPending} onCancel={onDone} />
    </form>
  );
}
