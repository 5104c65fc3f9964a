/**
 * Bulk import of subnets, addresses and IP ranges. Each row is checked on its own (a bad row is an `error` result, the
 * others still import); the rows left are created by the subnets, addresses and ranges modules in one transaction,
 * by the rules of their single creates. Folders, VLANs, VRFs, locations and tags named by rows are created once each.
 */
import type { z } from 'zod';
import {
  type ImportAddressesResponse,
  ImportAddressRow,
  ImportRangeRow,
  type ImportRangesResponse,
  ImportSubnetRow,
  type ImportSubnetsResponse,
} from '../../../contract/import-export.contract';
import type { Db } from '../../db/connection';
import { describeZod, HttpError } from '../../errors';
import { formatCidr, parseCidr } from '../../ipam';
import type { Principal } from '../../principal';
import { importAddresses as createAddresses, type ImportedAddress } from '../addresses/addresses.service';
import { importRules } from '../custom-fields/custom-fields.service';
import { ensureFolder } from '../folders/folders.service';
import { ensureLocation } from '../locations/locations.service';
import { importRanges as createRanges, type ImportedRange } from '../ranges/ranges.service';
import { isRowOutcome, orRowError, type RowOutcome } from '../shared/results';
import { homesByNetwork, type NamedHome } from '../subnets/spaces';
import { importSubnets as createSubnets, parseNetwork, subnetValues } from '../subnets/subnets.service';
import { ensureTag } from '../tags/tags.service';
import { ensureVlan } from '../vlans/vlans.service';
import { ensureVrf } from '../vrfs/vrfs.service';
import { commitTransaction } from '../writes/writes';

type SubnetRow = z.infer<typeof ImportSubnetRow>;
type AddressRow = z.infer<typeof ImportAddressRow>;
type SubnetValues = ReturnType<typeof subnetValues>;

export async function importSubnets(
  db: Db,
  caller: Principal,
  rows: unknown[],
): Promise<z.infer<typeof ImportSubnetsResponse>> {
  // Each row with the network its result names: as checked, else as given.
  const checked = rows.map((raw) => {
    const given = textField(raw, 'network');
    const row = parseRow(ImportSubnetRow, raw);
    if (isRowOutcome(row)) return { network: given, item: row };
    const noReferences = { folderId: null, vlanId: null, vrfId: null, locationId: null };
    const values = orRowError(() => subnetValues(row, noReferences));
    return isRowOutcome(values) ? { network: given, item: values } : { network: values.network, item: { row, values } };
  });
  return commitTransaction(db, async (tx) => {
    const named = namedObjects(tx, caller);
    const customFields = await importRules(tx, caller.orgId, 'subnet');
    const ready: Ready<SubnetValues>[] = [];
    for (const { network, item } of checked) {
      const typed = isRowOutcome(item) ? item : withCustomFields(item, customFields);
      ready.push({ label: network, item: isRowOutcome(typed) ? typed : await withReferences(typed, named) });
    }
    const outcomes = await createRemaining(ready, (values) => createSubnets(tx, caller, values));
    return {
      results: outcomes.map(({ label: network, outcome }, i) => ({ ...resultOf(outcome, i), network })),
      summary: summarise(outcomes.map(({ outcome }) => outcome)),
    };
  });
}

export async function importAddresses(
  db: Db,
  caller: Principal,
  rows: unknown[],
): Promise<z.infer<typeof ImportAddressesResponse>> {
  // Each row with the ip its result names, as given.
  const checked = rows.map((raw) => {
    const ip = textField(raw, 'ip');
    const row = parseRow(ImportAddressRow, raw);
    if (isRowOutcome(row)) return { ip, item: row };
    const network = orRowError(() => formatCidr(parseNetwork(row.subnet, 'subnet')));
    return { ip, item: isRowOutcome(network) ? network : { row, network } };
  });
  return commitTransaction(db, async (tx) => {
    const named = namedObjects(tx, caller);
    const networks = [...new Set(checked.flatMap(({ item }) => (isRowOutcome(item) ? [] : [item.network])))];
    const homes = await homesByNetwork(tx, caller.orgId, networks);
    const customFields = await importRules(tx, caller.orgId, 'address');
    /** A checked row's address to create, or its error: its custom fields, its subnet, then its tags. */
    const addressOf = async ({ row, network }: { row: AddressRow; network: string }) => {
      const { subnet: _, vrf, ...input } = row;
      const fields = orRowError(() => customFields(input.custom_fields));
      if (isRowOutcome(fields)) return fields;
      const home = homeNamed(homes, network, vrf);
      if (isRowOutcome(home)) return home;
      return (await withTags(input.tags, named)) ?? { home, input: { ...input, custom_fields: fields } };
    };
    const ready: Ready<ImportedAddress>[] = [];
    for (const { ip, item } of checked) {
      ready.push({ label: ip, item: isRowOutcome(item) ? item : await addressOf(item) });
    }
    const outcomes = await createRemaining(ready, (items) => createAddresses(tx, caller, items));
    return {
      results: outcomes.map(({ label: ip, outcome }, i) => ({ ...resultOf(outcome, i), ip })),
      summary: summarise(outcomes.map(({ outcome }) => outcome)),
    };
  });
}

export async function importRanges(
  db: Db,
  caller: Principal,
  rows: unknown[],
): Promise<z.infer<typeof ImportRangesResponse>> {
  // Each row with the first address its result names, as given.
  const checked = rows.map((raw) => {
    const start = textField(raw, 'start');
    const row = parseRow(ImportRangeRow, raw);
    if (isRowOutcome(row)) return { start, item: row };
    const network = orRowError(() => formatCidr(parseNetwork(row.subnet, 'subnet')));
    return { start, item: isRowOutcome(network) ? network : { row, network } };
  });
  return commitTransaction(db, async (tx) => {
    const networks = [...new Set(checked.flatMap(({ item }) => (isRowOutcome(item) ? [] : [item.network])))];
    const homes = await homesByNetwork(tx, caller.orgId, networks);
    const ready = checked.map(({ start, item }): Ready<ImportedRange> => {
      if (isRowOutcome(item)) return { label: start, item };
      const { subnet: _, vrf, ...input } = item.row;
      const home = homeNamed(homes, item.network, vrf);
      return { label: start, item: isRowOutcome(home) ? home : { subnetId: home.id, input } };
    });
    const outcomes = await createRemaining(ready, (items) => createRanges(tx, caller, items));
    return {
      results: outcomes.map(({ label: start, outcome }, i) => ({ ...resultOf(outcome, i), start })),
      summary: summarise(outcomes.map(({ outcome }) => outcome)),
    };
  });
}

/** A row of an import: what its result names (`label`), and its outcome or what is left to create. */
interface Ready<T> {
  label: string;
  item: RowOutcome | T;
}

/**
 * Creates the rows not decided yet (in order) and answers every row's label and outcome, in order; `create`
 * answers one outcome per item it is given.
 */
async function createRemaining<T>(ready: Ready<T>[], create: (items: T[]) => Promise<RowOutcome[]>) {
  const created = (await create(ready.flatMap(({ item }) => (isRowOutcome(item) ? [] : [item])))).values();
  return ready.map(({ label, item }) => {
    if (isRowOutcome(item)) return { label, outcome: item };
    const next = created.next();
    if (next.done) throw new Error('Expected an outcome for every row created, but the creation answered fewer');
    return { label, outcome: next.value };
  });
}

/** A row checked against its schema, or its error outcome naming the field. */
function parseRow<T extends z.ZodTypeAny>(schema: T, raw: unknown): z.infer<T> | RowOutcome {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) return { status: 'error', error: describeZod('row', parsed.error) };
  const field = unstorableField(parsed.data);
  return field === undefined
    ? parsed.data
    : { status: 'error', error: `${field}: must not contain NUL characters (nor unpaired surrogates in JSON)` };
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The field of a row holding text PostgreSQL cannot store: NUL anywhere, or an unpaired surrogate in the JSON
 * of `custom_fields` (other text stores it as U+FFFD). The rows of an import are written in one transaction,
 * so such a row must be an `error` result rather than fail them all (a single create answers 400 for it).
 */
function unstorableField(row: Record<string, unknown>): string | undefined {
  const bad = (value: unknown, json: boolean): boolean => {
    if (typeof value === 'string') return value.includes('\u0000') || (json && LONE_SURROGATE.test(value));
    if (typeof value !== 'object' || value === null) return false;
    return Object.entries(value).some(([key, inner]) => bad(key, json) || bad(inner, json));
  };
  return Object.keys(row).find((key) => bad(row[key], key === 'custom_fields'));
}

/** A field of a row as given, for its result ('' when it is not text). */
function textField(raw: unknown, field: string): string {
  const value = typeof raw === 'object' && raw !== null ? (raw as Record<string, unknown>)[field] : undefined;
  return typeof value === 'string' ? value.trim() : '';
}

/** One result per row: its position from 1, its status, the id created (else null) and why not. */
const resultOf = (outcome: RowOutcome, i: number) =>
  outcome.status === 'created'
    ? { row: i + 1, status: outcome.status, id: outcome.id }
    : { row: i + 1, status: outcome.status, id: null, error: outcome.error };

function summarise(outcomes: RowOutcome[]) {
  const count = (status: RowOutcome['status']) => outcomes.filter((o) => o.status === status).length;
  return { created: count('created'), skipped: count('skipped'), errors: count('error') };
}

/** The tags a row names, found or created; the error of the first that cannot be created, if any. */
async function withTags(names: string[] | undefined, named: ReturnType<typeof namedObjects>) {
  for (const name of names ?? []) {
    const id = await named.tag(name);
    if (isRowOutcome(id)) return id;
  }
  return undefined;
}

/**
 * The folders, VLANs, VRFs, locations and tags rows name, found or created once per import. A name that cannot
 * be created (the plan's limit on them) is the error of every row naming it.
 */
function namedObjects(tx: Db, caller: Principal) {
  const cached = <K>(field: string, ensure: (tx: Db, caller: Principal, key: K) => Promise<{ id: string }>) => {
    const found = new Map<K, string | RowOutcome>();
    return async (key: K | undefined): Promise<string | null | RowOutcome> => {
      if (key === undefined) return null;
      if (!found.has(key)) {
        const id = await ensure(tx, caller, key).then(
          (row) => row.id,
          (error): RowOutcome => {
            if (!(error instanceof HttpError)) throw error;
            return { status: 'error', error: `${field}: ${error.message}` };
          },
        );
        found.set(key, id);
      }
      return found.get(key) as string | RowOutcome;
    };
  };
  return {
    folder: cached('folder', ensureFolder),
    vlan: cached('vlan', ensureVlan),
    vrf: cached('vrf', ensureVrf),
    location: cached('location', ensureLocation),
    tag: cached('tags', ensureTag),
  };
}

/** A subnet row with its custom fields checked against the definitions and given their defaults, or its error. */
function withCustomFields(
  { row, values }: { row: SubnetRow; values: SubnetValues },
  check: (given: SubnetValues['customFields']) => Record<string, unknown> | undefined,
) {
  const fields = orRowError(() => check(values.customFields));
  return isRowOutcome(fields) ? fields : { row, values: { ...values, customFields: fields ?? null } };
}

async function withReferences(
  { row, values }: { row: SubnetRow; values: SubnetValues },
  named: ReturnType<typeof namedObjects>,
): Promise<SubnetValues | RowOutcome> {
  const folderId = await named.folder(row.folder);
  if (isRowOutcome(folderId)) return folderId;
  const vlanId = await named.vlan(row.vlan);
  if (isRowOutcome(vlanId)) return vlanId;
  const vrfId = await named.vrf(row.vrf || undefined); // "" is the global space, as no vrf
  if (isRowOutcome(vrfId)) return vrfId;
  const locationId = await named.location(row.location);
  if (isRowOutcome(locationId)) return locationId;
  const tagError = await withTags(row.tags, named);
  if (tagError) return tagError;
  return { ...values, folderId, vlanId, vrfId, locationId };
}

/**
 * The subnet a row names: the CIDR in the VRF named, or in the global space for `vrf: ""`; without `vrf`, the
 * only subnet with that CIDR whatever its space. A CIDR in several spaces and no `vrf` is the row's error,
 * naming them: the global space is no better a guess than a VRF.
 */
function homeNamed(homes: NamedHome[], network: string, vrf: string | undefined): NamedHome | RowOutcome {
  const error = (message: string): RowOutcome => ({ status: 'error', error: `subnet: ${message}` });
  const space = (vrfName: string | null) => (vrfName ? `VRF "${vrfName}"` : 'the global space');
  const withNetwork = homes
    .filter((home) => formatCidr(parseCidr(home.network)!.cidr) === network)
    .sort((a, b) => (a.vrfName ?? '').localeCompare(b.vrfName ?? ''));
  if (vrf !== undefined) {
    return withNetwork.find((home) => (home.vrfName ?? '') === vrf) ?? error(`no subnet ${network} in ${space(vrf)}`);
  }
  const [only, another] = withNetwork;
  if (only === undefined) return error(`no subnet ${network} in this organisation`);
  if (another === undefined) return only;
  const spaces = withNetwork.map((home) => space(home.vrfName)).join(', ');
  return error(`${network} exists in ${spaces}; name the VRF in vrf ("" for the global space)`);
}
