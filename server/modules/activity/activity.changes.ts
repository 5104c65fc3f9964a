/**
 * What an activity entry records (its action, the kind of object, the object) and what it says changed:
 * `{field: [old, new]}` with the API's (snake_case) field names.
 * Each resource lists the fields a client can see and set; derived values (hierarchy parent, counts,
 * names of related objects, timestamps) are left out, so an entry records what the caller changed.
 */
import type { addresses, folders, locations, subnets, vlans, vrfs } from '../../db/schema';
import { tagsRecorded } from '../shared/tags';

export type Changes = Record<string, [unknown, unknown]>;

/** The actions an activity entry may have (docs/decisions.md, Activity). */
export type ActivityAction =
  | 'create'
  | 'update'
  | 'delete'
  | 'split'
  | 'import'
  | 'batch_create'
  | 'batch_update'
  | 'batch_delete'
  | 'rotate_secret'
  | 'revoke'
  | 'invite'
  | 'role_change'
  | 'remove_member'
  | 'release';

/** What an action did to its object, as the change feed says it: created, changed or removed it. */
export type Operation = 'create' | 'update' | 'delete';

const OPERATION: Record<Exclude<ActivityAction, 'import'>, Operation> = {
  create: 'create',
  batch_create: 'create',
  invite: 'create',
  update: 'update',
  batch_update: 'update',
  rotate_secret: 'update',
  role_change: 'update',
  delete: 'delete',
  batch_delete: 'delete',
  split: 'delete',
  revoke: 'delete',
  remove_member: 'delete',
  release: 'delete',
};

/** The operation of an entry: an imported object is created when it held no value before, else updated. */
export function operationOf(action: string, changes: Changes): Operation {
  if (action === 'import') {
    return Object.values(changes).every((pair) => pair?.[0] === null) ? 'create' : 'update';
  }
  return OPERATION[action as Exclude<ActivityAction, 'import'>] ?? 'update';
}

/** IPAM resources, and the kinds of object the team, key, webhook and organisation routes change. */
export type ResourceType =
  | 'folder'
  | 'subnet'
  | 'address'
  | 'vlan'
  | 'vrf'
  | 'location'
  | 'range'
  | 'tag'
  | 'custom_field'
  | 'api_key'
  | 'webhook'
  | 'member'
  | 'invitation'
  | 'organization';

/** An activity entry to write: what was done to which object, and what changed. */
export interface ActivityRecord {
  action: ActivityAction;
  resourceType: ResourceType;
  resourceId: string | null;
  changes: Changes;
}
/** An object's fields by their API (snake_case) names, as its entries record them. */
export type Fields = Record<string, unknown>;

export const folderFields = (r: typeof folders.$inferSelect): Fields => ({
  name: r.name,
  description: r.description,
  sort_order: r.sortOrder,
  tags: tagsRecorded(r.tags),
});

export const vlanFields = (r: typeof vlans.$inferSelect): Fields => ({
  vlan_number: r.vlanNumber,
  name: r.name,
  description: r.description,
  location_id: r.locationId,
  tags: tagsRecorded(r.tags),
});

export const vrfFields = (r: typeof vrfs.$inferSelect): Fields => ({
  name: r.name,
  rd: r.rd,
  description: r.description,
  tags: tagsRecorded(r.tags),
});

export const locationFields = (r: typeof locations.$inferSelect): Fields => ({
  name: r.name,
  address: r.address,
  tags: tagsRecorded(r.tags),
});

/** A subnet's own values: a row, or those a create is about to insert. */
type SubnetValues = Omit<
  typeof subnets.$inferSelect,
  'id' | 'orgId' | 'parentId' | 'spaceId' | 'createdAt' | 'updatedAt'
>;

export const subnetFields = (r: SubnetValues): Fields => ({
  network: r.network,
  name: r.name,
  description: r.description,
  folder_id: r.folderId,
  vlan_id: r.vlanId,
  vrf_id: r.vrfId,
  location_id: r.locationId,
  is_pool: r.isPool,
  gateway: r.gateway,
  dns_primary: r.dnsPrimary,
  dns_secondary: r.dnsSecondary,
  scan_enabled: r.scanEnabled,
  tracked: r.tracked,
  tags: tagsRecorded(r.tags),
  custom_fields: r.customFields,
});

type AddressValues = Pick<
  typeof addresses.$inferSelect,
  'subnetId' | 'ip' | 'hostname' | 'macAddress' | 'description' | 'status' | 'owner' | 'ptrRecord' | 'customFields'
> &
  Partial<Pick<typeof addresses.$inferSelect, 'expiresAt' | 'tags'>>;

export const addressFields = (r: AddressValues): Fields => ({
  subnet_id: r.subnetId,
  ip: r.ip,
  hostname: r.hostname,
  mac_address: r.macAddress,
  description: r.description,
  status: r.status,
  owner: r.owner,
  ptr_record: r.ptrRecord,
  tags: tagsRecorded(r.tags),
  custom_fields: r.customFields,
  expires_at: r.expiresAt?.toISOString() ?? null,
});

/** A field holds a value: not null and not the empty string (which the API uses for "unset"). */
const isSet = (value: unknown) => value !== null && value !== undefined && value !== '';

/** A created object: `[null, value]` for each field that holds a value. */
export function created(fields: Fields): Changes {
  return Object.fromEntries(Object.entries(fields).flatMap(([k, v]) => (isSet(v) ? [[k, [null, v]]] : [])));
}

/** A deleted object: `[value, null]` for each field that held a value. */
export function deleted(fields: Fields): Changes {
  return Object.fromEntries(Object.entries(fields).flatMap(([k, v]) => (isSet(v) ? [[k, [v, null]]] : [])));
}

/** An updated object: `[old, new]` for each field whose value actually changed (empty when none did). */
export function updated(before: Fields, after: Fields): Changes {
  const changes: Changes = {};
  for (const key of Object.keys(after)) {
    const old = before[key] ?? null;
    const now = after[key] ?? null;
    if (JSON.stringify(old) !== JSON.stringify(now)) changes[key] = [old, now];
  }
  return changes;
}

export const isEmpty = (changes: Changes) => Object.keys(changes).length === 0;
