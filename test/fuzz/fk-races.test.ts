/**
 * Races between writes and the deletes (or splits) of what they name, in random interleavings (fast-check,
 * fixed seed): each run seeds an organisation with folders, VLANs, VRFs, locations, subnets and addresses,
 * then sends a random batch of creates, patches, allocations and imports naming them together with deletes
 * and splits of them, each after a random delay of 0 to 3 ms. Every answer is below 500, declared by the
 * contract for its route and matches its schema; imports always answer 200. Afterwards the state holds
 * together: every reference of a subnet or a VLAN names an object that exists, every parent contains its
 * child in the same space, every address lies in an existing subnet of its space. (The test server fails the
 * file if the app logged an unhandled error.)
 *
 * FUZZ_SEED changes the seed (printed by fast-check on failure), FUZZ_RUNS the number of batches.
 */
import { setTimeout } from 'node:timers/promises';
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { OperationId } from '../../contract/routes';
import { containsCidr, containsIp, parseCidr, parseIp } from '../../server/ipam';
import type { ApiClient, ApiResponse } from '../support/client';
import { cellValue, parseCsv } from '../support/csv';
import { defined } from '../support/defined';
import { createSubnet, useTestServer } from '../support/factories';
import { type DeclaredStatus, expectStatus } from '../support/observed';

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_119);
const RUNS = Number(process.env.FUZZ_RUNS ?? (process.env.TEST_DATABASE_URL ? 12 : 4));

const t = useTestServer({}, false);

const KINDS = ['folder', 'vlan', 'vrf', 'location'] as const;
type Kind = (typeof KINDS)[number];
const TWO = fc.integer({ min: 0, max: 1 });
/** The seeded subnets: [network, VRF index or null, folder index or null]. */
const SUBNETS: [string, number | null, number | null][] = [
  ['10.0.0.0/16', null, 0],
  ['10.0.1.0/24', null, null],
  ['10.0.1.0/24', 0, 1],
  ['10.0.2.0/24', 1, 0],
];
const SUBNET = fc.integer({ min: 0, max: SUBNETS.length - 1 });
/** A host of seeded subnet `i` (the /16's outside its child). */
const hostIn = (i: number, host: number) => `10.0.${i === 0 ? 9 : i === 3 ? 2 : 1}.${host}`;
const NEW_NETWORKS = ['10.0.3.0/24', '10.0.1.128/25', '10.0.0.0/20', '10.0.2.64/26', '10.0.0.0/8'];

interface Seeded {
  api: ApiClient;
  ids: Record<Kind, string[]>;
  names: Record<Kind, string[]>;
  subnets: string[];
  /** The id of seeded object `n` of a kind, and of seeded subnet `i` (the indexes the commands draw). */
  id(kind: Kind, n: number): string;
  subnet(i: number): string;
}

const refs = fc.record(
  { folder: TWO, vlan: TWO, vrf: TWO, location: TWO },
  { requiredKeys: [] as ('folder' | 'vlan' | 'vrf' | 'location')[] },
);

/** One request of a batch: what it does, and how to send it against the seeded objects. */
type Command = { label: string; heavy?: boolean; send: (s: Seeded) => Promise<ApiResponse<OperationId>> };
/** A command that fast-check prints as its label in a counterexample. */
const named = (command: Command): Command => Object.assign(command, { [fc.toStringMethod]: () => command.label });

const idRefs = (s: Seeded, chosen: Partial<Record<Kind, number>>, kinds: readonly Kind[] = KINDS) =>
  Object.fromEntries(
    kinds.flatMap((kind) => (chosen[kind] === undefined ? [] : [[`${kind}_id`, s.ids[kind][chosen[kind]!]]])),
  );

const commands: fc.Arbitrary<Command>[] = [
  fc.record({ network: fc.constantFrom(...NEW_NETWORKS), chosen: refs }).map(({ network, chosen }) => ({
    label: `create ${network} ${JSON.stringify(chosen)}`,
    send: (s) => s.api.call('createSubnet', { body: { network, ...idRefs(s, chosen) } }),
  })),
  fc
    .tuple(SUBNET, fc.constantFrom('folder_id', 'location_id', 'vlan', 'vrf'), TWO, fc.boolean())
    .map(([i, field, n, clear]) => ({
      label: `patch subnet ${i} ${field} ${clear ? 'cleared' : n}`,
      send: (s) => {
        const value =
          field === 'vlan'
            ? clear
              ? ''
              : String(s.names.vlan[n])
            : field === 'vrf'
              ? clear
                ? ''
                : s.names.vrf[n]
              : clear
                ? null
                : s.ids[field === 'folder_id' ? 'folder' : 'location'][n];
        return s.api.call('updateSubnet', { params: { id: s.subnet(i) }, body: { [field]: value } });
      },
    })),
  fc.tuple(fc.constantFrom(...KINDS), TWO).map(([kind, n]) => ({
    label: `delete ${kind} ${n}`,
    send: (s) => {
      const id = s.id(kind, n);
      if (kind === 'folder') return s.api.call('deleteFolder', { params: { id } });
      if (kind === 'vlan') return s.api.call('deleteVlan', { params: { id } });
      if (kind === 'vrf') return s.api.call('deleteVrf', { params: { id } });
      return s.api.call('deleteLocation', { params: { id } });
    },
  })),
  SUBNET.map((i) => ({
    label: `delete subnet ${i}`,
    send: (s) => s.api.call('deleteSubnet', { params: { id: s.subnet(i) } }),
  })),
  fc.tuple(SUBNET, fc.constantFrom(2, 4)).map(([i, parts]) => ({
    label: `split subnet ${i} in ${parts}`,
    send: (s) => s.api.call('splitSubnet', { params: { id: s.subnet(i) }, body: { parts } }),
  })),
  fc
    .tuple(SUBNET, fc.uniqueArray(fc.integer({ min: 1, max: 254 }), { minLength: 1, maxLength: 4 }))
    .map(([i, hosts]) => ({
      label: `batch create in subnet ${i}: ${hosts}`,
      send: (s) =>
        s.api.call('batchCreateAddresses', {
          params: { id: s.subnet(i) },
          body: { ips: hosts.map((h) => hostIn(i, h)) },
        }),
    })),
  fc.tuple(SUBNET, fc.integer({ min: 1, max: 254 })).map(([i, host]) => ({
    label: `create address ${host} in subnet ${i}`,
    send: (s) => s.api.call('createAddress', { params: { id: s.subnet(i) }, body: { ip: hostIn(i, host) } }),
  })),
  SUBNET.map((i) => ({
    label: `allocate addresses in subnet ${i}`,
    send: (s) => s.api.call('allocateAddress', { params: { id: s.subnet(i) }, body: { count: 2 } }),
  })),
  fc.tuple(SUBNET, refs).map(([i, chosen]) => ({
    label: `allocate a /28 in subnet ${i} ${JSON.stringify(chosen)}`,
    send: (s) =>
      s.api.call('allocateSubnet', {
        params: { id: s.subnet(i) },
        body: { prefix_length: 28, count: 1, ...idRefs(s, chosen, ['folder', 'vlan', 'location']) },
      }),
  })),
  fc
    .array(fc.record({ network: fc.constantFrom(...NEW_NETWORKS), chosen: refs }), { minLength: 1, maxLength: 3 })
    .map((rows) => ({
      label: `import subnets ${JSON.stringify(rows)}`,
      heavy: true,
      send: (s) =>
        s.api.call('importSubnets', {
          body: {
            subnets: rows.map(({ network, chosen }) => ({
              network,
              ...(chosen.folder !== undefined && { folder: s.names.folder[chosen.folder] }),
              ...(chosen.vlan !== undefined && { vlan: Number(s.names.vlan[chosen.vlan]) }),
              ...(chosen.vrf !== undefined && { vrf: s.names.vrf[chosen.vrf] }),
              ...(chosen.location !== undefined && { location: s.names.location[chosen.location] }),
            })),
          },
        }),
    })),
  fc
    .array(fc.tuple(SUBNET, fc.integer({ min: 1, max: 254 }), fc.boolean()), { minLength: 1, maxLength: 4 })
    .map((rows) => ({
      label: `import addresses ${JSON.stringify(rows)}`,
      heavy: true,
      send: (s) =>
        s.api.call('importAddresses', {
          body: {
            addresses: rows.map(([i, host, named]) => {
              const [network, vrf] = defined(SUBNETS[i], `subnet ${i}`);
              return {
                ip: hostIn(i, host),
                subnet: network,
                ...(named && { vrf: vrf === null ? '' : s.names.vrf[vrf] }),
              };
            }),
          },
        }),
    })),
  fc.tuple(fc.integer({ min: 100, max: 4000 }), TWO).map(([number, n]) => ({
    label: `create VLAN ${number} at location ${n}`,
    send: (s) => s.api.call('createVlan', { body: { vlan_number: number, location_id: s.ids.location[n] } }),
  })),
  fc.tuple(TWO, TWO).map(([v, n]) => ({
    label: `patch VLAN ${v} to location ${n}`,
    send: (s) =>
      s.api.call('updateVlan', { params: { id: s.id('vlan', v) }, body: { location_id: s.ids.location[n] } }),
  })),
];

/** A new organisation with two of each plain object, the seeded subnets and an address in each. */
async function seed(run: number): Promise<Seeded> {
  const org = await t.server.newOrg({ plan: 'enterprise', limits: { addresses: 1_000_000, rate_limit: null } });
  const api = org.api;
  const ids = { folder: [], vlan: [], vrf: [], location: [] } as Record<Kind, string[]>;
  const names = { folder: [], vlan: [], vrf: [], location: [] } as Record<Kind, string[]>;
  for (const n of [0, 1]) {
    const name = `${run}-${n}`;
    const created = {
      folder: expectStatus(await api.call('createFolder', { body: { name } }), 201),
      vlan: expectStatus(await api.call('createVlan', { body: { vlan_number: 10 + n } }), 201),
      vrf: expectStatus(await api.call('createVrf', { body: { name } }), 201),
      location: expectStatus(await api.call('createLocation', { body: { name } }), 201),
    };
    for (const kind of KINDS) {
      ids[kind].push(created[kind].id);
      names[kind].push(kind === 'vlan' ? String(10 + n) : name);
    }
  }
  const subnets: string[] = [];
  for (const [i, [network, vrf, folder]] of SUBNETS.entries()) {
    const extra = {
      ...(vrf !== null && { vrf_id: ids.vrf[vrf] }),
      ...(folder !== null && { folder_id: ids.folder[folder] }),
    };
    const subnet = await createSubnet(api, network, extra);
    subnets.push(subnet.id);
    expectStatus(await api.call('createAddress', { params: { id: subnet.id }, body: { ip: hostIn(i, 200) } }), 201);
  }
  return {
    api,
    ids,
    names,
    subnets,
    id: (kind, n) => defined(ids[kind][n], `${kind} ${n}`),
    subnet: (i) => defined(subnets[i], `subnet ${i}`),
  };
}

/** The answer is below 500, one its route declares, with a body that matches the contract. */
function declared(command: Command, response: ApiResponse<OperationId>) {
  expect(response.status, `${command.label}: ${response.text.slice(0, 300)}`).toBeLessThan(500);
  expectStatus(response, response.status as DeclaredStatus<OperationId>);
  if (command.heavy) expect(response.status, `${command.label}: ${response.text.slice(0, 300)}`).toBe(200);
}

/** Every reference names an object that exists; parents contain their children in their space; addresses lie in a subnet. */
async function assertConsistent(api: ApiClient) {
  const listed = {
    folder: expectStatus(await api.call('listFolders', {}), 200),
    vlan: expectStatus(await api.call('listVlans', {}), 200),
    vrf: expectStatus(await api.call('listVrfs', {}), 200),
    location: expectStatus(await api.call('listLocations', {}), 200),
  };
  const exists = (kind: Kind, id: string | null) => id === null || listed[kind].some((row) => row.id === id);
  const subnets = expectStatus(await api.call('listSubnets', {}), 200);
  for (const s of subnets) {
    const where = `subnet ${s.network} (${s.id})`;
    for (const kind of KINDS) expect(exists(kind, s[`${kind}_id`]), `${where}: its ${kind} exists`).toBe(true);
    if (s.parent_id) {
      const parent = subnets.find((p) => p.id === s.parent_id);
      expect(parent, `${where}: its parent exists`).toBeDefined();
      expect(parent!.vrf_id, `${where}: its parent is in its space`).toBe(s.vrf_id);
      expect(containsCidr(parseCidr(parent!.network)!.cidr, parseCidr(s.network)!.cidr)).toBe(true);
    }
  }
  for (const vlan of listed.vlan) expect(exists('location', vlan.location_id), `VLAN ${vlan.vlan_number}`).toBe(true);
  const [header = [], ...rows] = parseCsv(expectStatus(await api.call('exportAddresses', {}), 200));
  const column = (name: string) => header.indexOf(name);
  for (const row of rows) {
    const [ip = '', network = '', vrfCell = ''] = [row[column('ip')], row[column('subnet')], row[column('vrf')]];
    const vrf = cellValue(vrfCell);
    const home = subnets.find((s) => s.network === network && (s.vrf_name ?? '') === vrf);
    expect(home, `address ${ip}: its subnet ${network} "${vrf}" exists`).toBeDefined();
    expect(containsIp(parseCidr(network)!.cidr, parseIp(ip)!)).toBe(true);
  }
}

it('answers every write racing deletes and splits of what it names below 500, and leaves a consistent state', async () => {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      fc
        .array(fc.oneof(...commands).map(named), { minLength: 3, maxLength: 8 })
        // Heavy requests are limited per user (2 at once): at most 2 imports per batch, so none answers 429.
        .filter((batch) => batch.filter((c) => c.heavy).length <= 2),
      fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 8, maxLength: 8 }),
      async (batch, delays) => {
        const seeded = await seed(++run);
        const answers = await Promise.all(
          batch.map(async (command, i) => {
            await setTimeout(delays[i]);
            return { command, response: await command.send(seeded) };
          }),
        );
        for (const { command, response } of answers) declared(command, response);
        await assertConsistent(seeded.api);
      },
    ),
    { seed: SEED, numRuns: RUNS },
  );
});
