/**
 * Stateful tenant isolation (fast-check commands, fixed seed): two organisations run random sequences of
 * creates, updates, deletes, batch operations and imports over folders, subnets, addresses, VLANs, VRFs and
 * locations, with the same names, CIDRs, VLAN numbers and addresses in both, and attempts on each other's
 * objects. After every step, organisation A sees nothing of B's (no B id, and no text only B wrote, in its
 * lists, searches, exports and activity), its lists match a model of what it created, and a get, patch or
 * delete of the other's id answers 404 and changes nothing. B's view of A is checked at the end of each run.
 *
 * FUZZ_SEED changes the seed (printed by fast-check on failure), FUZZ_RUNS the number of sequences.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { type Cidr, containsCidr, containsIp, formatCidr, formatIp, parseCidr, parseIp } from '../../server/ipam';
import type { ApiClient } from '../support/client';
import { cellValue, parseCsv } from '../support/csv';
import { defined } from '../support/defined';
import { subnetOf, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const SEED = Number(process.env.FUZZ_SEED ?? 20_251_122);
const RUNS = Number(process.env.FUZZ_RUNS ? Math.max(1, Math.round(Number(process.env.FUZZ_RUNS) / 3)) : 4);
const MAX_COMMANDS = 30;

const t = useTestServer({}, false);

/** Text only B ever writes: finding it in an answer to A is a leak. */
const B_ONLY = 'bsecret';
const NAMES = ['alpha', 'beta', 'core', 'edge'];
const NETWORKS = [
  '10.0.0.0/16',
  '10.0.1.0/24',
  '10.0.1.128/25',
  '10.0.2.0/24',
  '192.168.0.0/24',
  '2001:db8::/48',
  '2001:db8::/64',
];
/** The network a drawn number names. */
const networkAt = (n: number) => defined(NETWORKS[n % NETWORKS.length], `network ${n}`);
const KINDS = ['folders', 'locations', 'vrfs', 'vlans', 'subnets', 'addresses'] as const;
type Kind = (typeof KINDS)[number];
const PLAIN = ['folders', 'locations', 'vrfs'] as const;

interface Named {
  id: string;
  name: string;
}
interface SubnetModel {
  id: string;
  network: string;
  cidr: Cidr;
  vrfId: string | null;
  folderId: string | null;
  name: string;
}
interface AddressModel {
  id: string;
  ip: string;
  vrfId: string | null;
  hostname: string;
  status: string;
  owner: string;
}
/** What one organisation created and still has, from the answers it got. */
interface OrgModel {
  label: 'A' | 'B';
  userId: string;
  folders: Named[];
  locations: Named[];
  vrfs: Named[];
  vlans: (Named & { number: number })[];
  subnets: SubnetModel[];
  addresses: AddressModel[];
  /** Every id it ever had (deleted ones too): none may show up in the other's answers. */
  everIds: Set<string>;
  /** Texts it wrote that the other searches for. */
  terms: Set<string>;
}
interface Model {
  A: OrgModel;
  B: OrgModel;
  steps: number;
}
interface Real {
  A: ApiClient;
  B: ApiClient;
}
type Side = 'A' | 'B';
const other = (side: Side): Side => (side === 'A' ? 'B' : 'A');
const pick = <T>(list: T[], i: number): T | undefined => list[i % Math.max(1, list.length)];
const nameFor = (side: Side, i: number, secret: boolean) =>
  `${NAMES[i % NAMES.length]}${side === 'B' && secret ? ` ${B_ONLY}` : ''}`;

function remember(model: OrgModel, id: string, ...terms: string[]) {
  model.everIds.add(id);
  for (const term of terms) if (term) model.terms.add(term);
}

/** A step of a sequence: what it does, run against the model and the real server. */
class Step implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly label: string,
    readonly action: (model: Model, real: Real) => Promise<void>,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    await this.action(model, real);
    model.steps++;
    await checkView(model, real, 'A');
  }
  toString = () => this.label;
}

// ---- Steps ----------------------------------------------------------------------------------------------

const side = fc.constantFrom<Side>('A', 'B');

const createPlain = fc.record({ side, kind: fc.constantFrom(...PLAIN), name: fc.nat(99), secret: fc.boolean() }).map(
  ({ side, kind, name, secret }) =>
    new Step(`${side} creates a ${kind} #${name}${secret ? ' (secret)' : ''}`, async (model, real) => {
      const own = model[side];
      const body = { name: nameFor(side, name, secret) };
      const operationId = ({ folders: 'createFolder', locations: 'createLocation', vrfs: 'createVrf' } as const)[kind];
      const response = await real[side].call(operationId, { body });
      if (own[kind].some((o) => o.name === body.name)) {
        expectStatus(response, 400);
        return;
      }
      // Names are unique per organisation only: the other's objects of that name never refuse it.
      const created = expectStatus(response, 201);
      own[kind].push({ id: created.id, name: body.name });
      remember(own, created.id, body.name);
    }),
);

const createVlan = fc
  .record({ side, number: fc.integer({ min: 1, max: 5 }), name: fc.nat(99), location: fc.option(fc.nat(99)) })
  .map(
    ({ side, number, name, location }) =>
      new Step(`${side} creates VLAN ${number}`, async (model, real) => {
        const own = model[side];
        const location_id = location === null ? undefined : pick(own.locations, location)?.id;
        const body = { vlan_number: number, name: nameFor(side, name, true), location_id };
        const response = await real[side].call('createVlan', { body });
        if (own.vlans.some((v) => v.number === number)) {
          expectStatus(response, 400);
          return;
        }
        const created = expectStatus(response, 201);
        own.vlans.push({ id: created.id, name: body.name, number });
        remember(own, created.id, body.name);
      }),
  );

const createSubnet = fc
  .record({
    side,
    network: fc.nat(99),
    folder: fc.option(fc.nat(99)),
    vrf: fc.option(fc.nat(99), { freq: 3 }),
    name: fc.nat(99),
    secret: fc.boolean(),
  })
  .map(
    ({ side, network, folder, vrf, name, secret }) =>
      new Step(`${side} creates subnet ${networkAt(network)}`, async (model, real) => {
        const own = model[side];
        const cidr = parseCidr(networkAt(network))!.cidr;
        const folderId = folder === null ? null : (pick(own.folders, folder)?.id ?? null);
        const vrfId = vrf === null ? null : (pick(own.vrfs, vrf)?.id ?? null);
        const body = {
          network: formatCidr(cidr),
          name: nameFor(side, name, secret),
          description: side === 'B' ? `${B_ONLY} subnet` : 'a subnet',
          folder_id: folderId,
          vrf_id: vrfId,
        };
        const response = await real[side].call('createSubnet', { body });
        if (own.subnets.some((s) => s.network === body.network && s.vrfId === vrfId)) {
          expectStatus(response, 400);
          return;
        }
        const created = subnetOf(expectStatus(response, 201));
        expect(created.vrf_id).toBe(vrfId);
        own.subnets.push({ id: created.id, network: body.network, cidr, vrfId, folderId, name: body.name });
        remember(own, created.id, body.name, body.network);
      }),
  );

/** The subnets of a space strictly inside `outer`. */
const childrenOf = (own: OrgModel, outer: SubnetModel) =>
  own.subnets.filter((s) => s.vrfId === outer.vrfId && s.id !== outer.id && containsCidr(outer.cidr, s.cidr));

const ipAt = (cidr: Cidr, offset: number) => formatIp({ version: cidr.version, value: cidr.network + BigInt(offset) });

const createAddress = fc
  .record({ side, subnet: fc.nat(99), offset: fc.integer({ min: 1, max: 20 }), secret: fc.boolean() })
  .map(
    ({ side, subnet, offset, secret }) =>
      new Step(`${side} creates address +${offset} in subnet #${subnet}`, async (model, real) => {
        const own = model[side];
        const home = pick(own.subnets, subnet);
        if (!home) return;
        const ip = ipAt(home.cidr, offset);
        const hostname = side === 'B' && secret ? `${B_ONLY}-host` : `host-${offset}`;
        const response = await real[side].call('createAddress', { params: { id: home.id }, body: { ip, hostname } });
        const parsed = parseIp(ip)!;
        const taken = own.addresses.some((a) => a.ip === ip && a.vrfId === home.vrfId);
        const inChild = childrenOf(own, home).some((c) => containsIp(c.cidr, parsed));
        if (taken || inChild) {
          expectStatus(response, 400);
          return;
        }
        // The other organisation's same address in the same CIDR never makes it taken.
        const created = expectStatus(response, 201);
        own.addresses.push({ id: created.id, ip, vrfId: home.vrfId, hostname, status: created.status, owner: '' });
        remember(own, created.id, ip, hostname);
      }),
  );

const batchCreate = fc
  .record({
    side,
    subnet: fc.nat(99),
    offsets: fc.uniqueArray(fc.integer({ min: 1, max: 20 }), { minLength: 1, maxLength: 4 }),
  })
  .map(
    ({ side, subnet, offsets }) =>
      new Step(`${side} batch-creates +${offsets.join(',+')} in subnet #${subnet}`, async (model, real) => {
        const own = model[side];
        const home = pick(own.subnets, subnet);
        if (!home) return;
        const ips = offsets.map((o) => ipAt(home.cidr, o));
        const response = await real[side].call('batchCreateAddresses', { params: { id: home.id }, body: { ips } });
        if (response.status === 400) {
          expectStatus(response, 400); // an ip inside a child subnet fails the batch
          return;
        }
        const { created } = expectStatus(response, 200);
        // The records now in the subnet: the ones it had, and exactly the new ones.
        const listed = expectStatus(await real[side].call('listSubnetAddresses', { params: { id: home.id } }), 200);
        const known = new Set(own.addresses.map((a) => a.id));
        const fresh = listed.filter((a) => !known.has(a.id));
        expect(fresh.map((a) => a.ip).every((ip) => ips.includes(ip))).toBe(true);
        expect(fresh.length).toBe(created);
        for (const a of fresh) {
          own.addresses.push({ id: a.id, ip: a.ip, vrfId: home.vrfId, hostname: '', status: a.status, owner: '' });
          remember(own, a.id, a.ip);
        }
      }),
  );

const rename = fc
  .record({ side, kind: fc.constantFrom<Kind>(...KINDS), index: fc.nat(99), name: fc.nat(99), secret: fc.boolean() })
  .map(
    ({ side, kind, index, name, secret }) =>
      new Step(`${side} renames its ${kind} #${index}`, async (model, real) => {
        const own = model[side];
        const text = nameFor(side, name, secret);
        if (kind === 'addresses') {
          const address = pick(own.addresses, index);
          if (!address) return;
          const response = await real[side].call('updateAddress', {
            params: { id: address.id },
            body: { hostname: text },
          });
          address.hostname = expectStatus(response, 200).hostname;
          return remember(own, address.id, text);
        }
        const target = pick<Named>(own[kind], index);
        if (!target) return;
        const operationId = (
          {
            folders: 'updateFolder',
            locations: 'updateLocation',
            vrfs: 'updateVrf',
            vlans: 'updateVlan',
            subnets: 'updateSubnet',
          } as const
        )[kind];
        const response = await real[side].call(operationId, { params: { id: target.id }, body: { name: text } });
        const unique = kind === 'folders' || kind === 'locations' || kind === 'vrfs';
        if (unique && own[kind].some((o) => o.name === text && o.id !== target.id)) {
          expectStatus(response, 400);
          return;
        }
        expectStatus(response, 200);
        target.name = text;
        remember(own, target.id, text);
      }),
  );

function forget(own: OrgModel, kind: Kind, id: string) {
  if (kind === 'subnets') {
    // Its child subnets and all their addresses go with it.
    const gone = own.subnets.find((s) => s.id === id)!;
    const inside = (s: SubnetModel) => s.vrfId === gone.vrfId && containsCidr(gone.cidr, s.cidr);
    own.addresses = own.addresses.filter((a) => a.vrfId !== gone.vrfId || !containsIp(gone.cidr, parseIp(a.ip)!));
    own.subnets = own.subnets.filter((s) => !inside(s));
    return;
  }
  if (kind === 'folders') for (const s of own.subnets) if (s.folderId === id) s.folderId = null;
  (own[kind] as { id: string }[]).splice(
    (own[kind] as { id: string }[]).findIndex((o) => o.id === id),
    1,
  );
}

const DELETE = {
  folders: 'deleteFolder',
  locations: 'deleteLocation',
  vrfs: 'deleteVrf',
  vlans: 'deleteVlan',
  subnets: 'deleteSubnet',
  addresses: 'deleteAddress',
} as const;

const remove = fc.record({ side, kind: fc.constantFrom<Kind>(...KINDS), index: fc.nat(99) }).map(
  ({ side, kind, index }) =>
    new Step(`${side} deletes its ${kind} #${index}`, async (model, real) => {
      const own = model[side];
      const target = pick<{ id: string }>(own[kind], index);
      if (!target) return;
      const response = await real[side].call(DELETE[kind], { params: { id: target.id } });
      if (kind === 'vrfs' && own.subnets.some((s) => s.vrfId === target.id)) {
        expectStatus(response, 400);
        return;
      }
      expectStatus(response, 204);
      forget(own, kind, target.id);
    }),
);

const GET = {
  folders: 'getFolder',
  locations: 'getLocation',
  vrfs: 'getVrf',
  vlans: 'getVlan',
  subnets: 'getSubnet',
  addresses: 'getAddress',
} as const;
const PATCH = {
  folders: ['updateFolder', { name: 'taken over' }],
  locations: ['updateLocation', { name: 'taken over' }],
  vrfs: ['updateVrf', { name: 'taken over' }],
  vlans: ['updateVlan', { name: 'taken over' }],
  subnets: ['updateSubnet', { name: 'taken over' }],
  addresses: ['updateAddress', { hostname: 'taken-over' }],
} as const;

/** What a subnet's id reaches besides get, patch and delete: each must be a 404 for the other organisation. */
const SUBNET_ROUTES = [
  ['getSubnetUsage', undefined, undefined],
  ['getSubnetFirstFreeIp', undefined, undefined],
  ['getSubnetFreeBlocks', undefined, { prefix: 28 }],
  ['listSubnetAddresses', undefined, undefined],
  ['createAddress', { ip: '10.0.1.9' }, undefined],
  ['batchCreateAddresses', { ips: ['10.0.1.9'] }, undefined],
  ['allocateAddress', { count: 1 }, undefined],
  ['allocateSubnet', { prefix_length: 28 }, undefined],
  ['splitSubnet', { parts: 2 }, undefined],
] as const;

/** The other organisation's object, by the owner's get: there, and as the model has it. */
async function stillThere(owner: OrgModel, real: ApiClient, kind: Kind, id: string) {
  const found = expectStatus(await real.call(GET[kind], { params: { id } }), 200) as Record<string, unknown>;
  const modelled = (owner[kind] as { id: string }[]).find((o) => o.id === id) as Record<string, unknown>;
  if (kind === 'addresses') expect(found.hostname).toBe(modelled.hostname);
  else expect(found.name).toBe(modelled.name);
}

const crossAccess = fc
  .record({
    side,
    kind: fc.constantFrom<Kind>(...KINDS),
    index: fc.nat(99),
    how: fc.constantFrom('get', 'patch', 'delete', 'subnet route'),
    route: fc.nat(99),
  })
  .map(
    ({ side, kind, index, how, route }) =>
      new Step(`${side} tries to ${how} the other's ${kind} #${index}`, async (model, real) => {
        const theirs = model[other(side)];
        const target = pick<{ id: string }>(theirs[kind], index);
        if (!target) return;
        const params = { id: target.id };
        if (how === 'get') expectStatus(await real[side].call(GET[kind], { params }), 404);
        if (how === 'patch') {
          const [operationId, body] = PATCH[kind];
          expectStatus(await real[side].call(operationId, { params, body }), 404);
        }
        if (how === 'delete') expectStatus(await real[side].call(DELETE[kind], { params }), 404);
        if (how === 'subnet route' && kind === 'subnets') {
          const [operationId, body, query] = defined(SUBNET_ROUTES[route % SUBNET_ROUTES.length], 'a subnet route');
          expectStatus(await real[side].call(operationId, { params, body, query }), 404);
        }
        await stillThere(theirs, real[other(side)], kind, target.id);
      }),
  );

/** Creates and updates naming the other organisation's folder, VLAN, VRF or location: refused, nothing made. */
const crossReference = fc
  .oneof(
    fc.record({
      side,
      field: fc.constantFrom('folder_id', 'vrf_id', 'vlan_id', 'location_id'),
      update: fc.constant(false),
    }),
    // An update names VLANs and VRFs by number and name (moveByName), folders and locations by id.
    fc.record({ side, field: fc.constantFrom('folder_id', 'location_id'), update: fc.constant(true) }),
  )
  .chain((r) => fc.record({ index: fc.nat(99) }).map(({ index }) => ({ ...r, index })))
  .map(
    ({ side, field, index, update }) =>
      new Step(
        `${side} ${update ? 'moves its subnet' : 'creates a subnet'} with the other's ${field}`,
        async (model, real) => {
          const kind = ({ folder_id: 'folders', vrf_id: 'vrfs', vlan_id: 'vlans', location_id: 'locations' } as const)[
            field
          ];
          const target = pick<{ id: string }>(model[other(side)][kind], index);
          if (!target) return;
          if (update) {
            const own = pick(model[side].subnets, index);
            if (!own) return;
            const response = await real[side].call('updateSubnet', {
              params: { id: own.id },
              body: { [field]: target.id },
            });
            expectStatus(response, 400);
            return;
          }
          const body = { network: '10.99.0.0/24', [field]: target.id };
          expectStatus(await real[side].call('createSubnet', { body }), 400);
          if (field === 'location_id') {
            expectStatus(
              await real[side].call('createVlan', { body: { vlan_number: 4000, location_id: target.id } }),
              400,
            );
          }
        },
      ),
  );

/**
 * A subnet moved by name to a VLAN number or VRF name the other organisation uses: the caller's own VLAN or
 * VRF of that number or name, created when it has none (a subnet overlapping others stays put: nesting).
 */
const moveByName = fc.record({ side, subnet: fc.nat(99), to: fc.constantFrom('vlan', 'vrf'), index: fc.nat(99) }).map(
  ({ side, subnet, to, index }) =>
    new Step(`${side} moves its subnet #${subnet} to the other's ${to} #${index} by name`, async (model, real) => {
      const own = model[side];
      const theirs = model[other(side)];
      const target = pick(own.subnets, subnet);
      if (!target) return;
      if (to === 'vlan') {
        const vlan = pick(theirs.vlans, index);
        if (!vlan) return;
        const body = { vlan: String(vlan.number) };
        const moved = expectStatus(await real[side].call('updateSubnet', { params: { id: target.id }, body }), 200);
        const mine = own.vlans.find((v) => v.number === vlan.number);
        if (mine) expect(moved.vlan_id).toBe(mine.id);
        else {
          expect(theirs.vlans.some((v) => v.id === moved.vlan_id)).toBe(false);
          const made = expectStatus(await real[side].call('getVlan', { params: { id: moved.vlan_id! } }), 200);
          own.vlans.push({ id: made.id, name: made.name, number: vlan.number });
          remember(own, moved.vlan_id!);
        }
        return;
      }
      const vrf = pick(theirs.vrfs, index);
      if (!vrf || vrf.name.includes(B_ONLY)) return;
      const mine = own.vrfs.find((v) => v.name === vrf.name);
      const overlapping = own.subnets.some(
        (s) =>
          s.id !== target.id &&
          (s.vrfId === target.vrfId || s.vrfId === (mine?.id ?? null)) &&
          (containsCidr(s.cidr, target.cidr) || containsCidr(target.cidr, s.cidr)),
      );
      if (overlapping || mine?.id === target.vrfId) return;
      const body = { vrf: vrf.name };
      const moved = expectStatus(await real[side].call('updateSubnet', { params: { id: target.id }, body }), 200);
      if (mine) expect(moved.vrf_id).toBe(mine.id);
      else {
        expect(theirs.vrfs.some((v) => v.id === moved.vrf_id)).toBe(false);
        own.vrfs.push({ id: moved.vrf_id!, name: vrf.name });
        remember(own, moved.vrf_id!, vrf.name);
      }
      for (const a of own.addresses) {
        if (a.vrfId === target.vrfId && containsIp(target.cidr, parseIp(a.ip)!)) a.vrfId = moved.vrf_id;
      }
      target.vrfId = moved.vrf_id;
    }),
);

const batchUpdate = fc
  .record({
    side,
    mine: fc.uniqueArray(fc.nat(99), { maxLength: 3 }),
    theirs: fc.uniqueArray(fc.nat(99), { minLength: 1, maxLength: 3 }),
    status: fc.constantFrom('assigned', 'reserved', 'd-dhcp'),
  })
  .map(
    ({ side, mine, theirs, status }) =>
      new Step(`${side} batch-updates ${mine.length} own and ${theirs.length} other addresses`, async (model, real) => {
        const own = model[side];
        const foreign = model[other(side)];
        const ownIds = [...new Set(mine.map((i) => pick(own.addresses, i)?.id).filter((id): id is string => !!id))];
        const foreignIds = [
          ...new Set(theirs.map((i) => pick(foreign.addresses, i)?.id).filter((id): id is string => !!id)),
        ];
        if (!ownIds.length && !foreignIds.length) return;
        const owner = side === 'B' ? `${B_ONLY}-team` : 'a-team';
        const body = { ids: [...ownIds, ...foreignIds], status, owner };
        const { updated } = expectStatus(await real[side].call('batchUpdateAddresses', { body }), 200);
        expect(updated).toBe(ownIds.length);
        for (const a of own.addresses) if (ownIds.includes(a.id)) Object.assign(a, { status, owner });
        own.terms.add(owner);
        for (const id of foreignIds) {
          const found = expectStatus(await real[other(side)].call('getAddress', { params: { id } }), 200);
          const modelled = foreign.addresses.find((a) => a.id === id)!;
          expect([found.status, found.owner]).toEqual([modelled.status, modelled.owner]);
        }
      }),
  );

const batchDelete = fc
  .record({
    side,
    mine: fc.uniqueArray(fc.nat(99), { maxLength: 2 }),
    theirs: fc.uniqueArray(fc.nat(99), { minLength: 1, maxLength: 3 }),
  })
  .map(
    ({ side, mine, theirs }) =>
      new Step(`${side} batch-deletes ${mine.length} own and ${theirs.length} other addresses`, async (model, real) => {
        const own = model[side];
        const foreign = model[other(side)];
        const ownIds = [...new Set(mine.map((i) => pick(own.addresses, i)?.id).filter((id): id is string => !!id))];
        const foreignIds = [
          ...new Set(theirs.map((i) => pick(foreign.addresses, i)?.id).filter((id): id is string => !!id)),
        ];
        if (!ownIds.length && !foreignIds.length) return;
        const { deleted } = expectStatus(
          await real[side].call('batchDeleteAddresses', { body: { ids: [...ownIds, ...foreignIds] } }),
          200,
        );
        expect(deleted).toBe(ownIds.length);
        for (const id of ownIds) forget(own, 'addresses', id);
        for (const id of foreignIds) await stillThere(foreign, real[other(side)], 'addresses', id);
      }),
  );

const importSubnets = fc
  .record({
    side,
    networks: fc.array(fc.nat(99), { minLength: 1, maxLength: 3 }),
    folder: fc.nat(99),
    secret: fc.boolean(),
  })
  .map(
    ({ side, networks, folder, secret }) =>
      new Step(`${side} imports subnets`, async (model, real) => {
        const own = model[side];
        // Folder names both organisations use: the import finds or creates the caller's own.
        const folderName = nameFor(side, folder, secret);
        const rows = networks.map((n) => ({
          network: networkAt(n),
          name: folderName,
          folder: folderName,
        }));
        const { results } = expectStatus(await real[side].call('importSubnets', { body: { subnets: rows } }), 200);
        const seen = new Set(own.subnets.filter((s) => s.vrfId === null).map((s) => s.network));
        for (const [i, result] of results.entries()) {
          const network = defined(rows[i], 'the row').network;
          expect(result.status, `${network}: ${result.error}`).toBe(seen.has(network) ? 'skipped' : 'created');
          seen.add(network);
          if (result.status !== 'created') continue;
          const created = expectStatus(await real[side].call('getSubnet', { params: { id: result.id! } }), 200);
          const cidr = parseCidr(network)!.cidr;
          own.subnets.push({
            id: created.id,
            network,
            cidr,
            vrfId: null,
            folderId: created.folder_id,
            name: folderName,
          });
          remember(own, created.id, network);
        }
        // The folder named is the caller's: found, or created (even when every row was skipped).
        const folders = expectStatus(await real[side].call('listFolders'), 200).filter((f) => f.name === folderName);
        expect(folders.length).toBe(1);
        const folderId = defined(folders[0], 'the folder').id;
        if (!own.folders.some((f) => f.id === folderId)) {
          expect(own.folders.some((f) => f.name === folderName)).toBe(false);
          own.folders.push({ id: folderId, name: folderName });
          remember(own, folderId, folderName);
        }
        for (const s of own.subnets.slice(-results.length)) {
          if (s.name === folderName && results.some((r) => r.id === s.id)) expect(s.folderId).toBe(folderId);
        }
      }),
  );

const importAddresses = fc
  .record({
    side,
    rows: fc.array(fc.record({ network: fc.nat(99), offset: fc.integer({ min: 1, max: 20 }) }), {
      minLength: 1,
      maxLength: 3,
    }),
  })
  .map(
    ({ side, rows }) =>
      new Step(`${side} imports addresses`, async (model, real) => {
        const own = model[side];
        const body = rows.map(({ network, offset }) => {
          const subnet = networkAt(network);
          return {
            subnet,
            ip: ipAt(parseCidr(subnet)!.cidr, offset),
            hostname: side === 'B' ? `${B_ONLY}-imported` : 'imported',
          };
        });
        const { results } = expectStatus(await real[side].call('importAddresses', { body: { addresses: body } }), 200);
        for (const [i, result] of results.entries()) {
          const row = defined(body[i], 'the row');
          const withNetwork = own.subnets.filter((s) => s.network === row.subnet);
          const home =
            withNetwork.find((s) => s.vrfId === null) ?? (withNetwork.length === 1 ? withNetwork[0] : undefined);
          // A CIDR only the other organisation has is never where the row goes.
          if (!home) expect(result.status, `${row.subnet}: ${result.error}`).toBe('error');
          if (result.status !== 'created') continue;
          expect(home).toBeDefined();
          own.addresses.push({
            id: result.id!,
            ip: row.ip,
            vrfId: home!.vrfId,
            hostname: row.hostname,
            status: 'assigned',
            owner: '',
          });
          remember(own, result.id!, row.ip, row.hostname);
        }
      }),
  );

const commands = [
  createPlain,
  createVlan,
  createSubnet,
  createSubnet,
  createAddress,
  createAddress,
  batchCreate,
  rename,
  remove,
  crossAccess,
  crossAccess,
  crossReference,
  moveByName,
  batchUpdate,
  batchDelete,
  importSubnets,
  importAddresses,
];

// ---- The view of one organisation -----------------------------------------------------------------------

const sorted = (values: Iterable<string>) => [...values].sort();

/** What `side` sees: its lists as its model, and nothing of the other's in lists, searches, exports, activity. */
async function checkView(model: Model, real: Real, side: Side) {
  const own = model[side];
  const foreign = model[other(side)];
  const api = real[side];
  const texts: [string, string][] = [];
  const read = async <T>(what: string, answer: { text: string }, body: T) => {
    texts.push([what, answer.text]);
    return body;
  };

  const lists = {
    folders: await api.call('listFolders'),
    locations: await api.call('listLocations'),
    vrfs: await api.call('listVrfs'),
    vlans: await api.call('listVlans'),
    subnets: await api.call('listSubnets'),
  };
  for (const kind of ['folders', 'locations', 'vrfs', 'vlans'] as const) {
    const listed = await read(kind, lists[kind], expectStatus(lists[kind], 200));
    expect(sorted(listed.map((o) => o.id)), `${side}'s ${kind}`).toEqual(sorted(own[kind].map((o) => o.id)));
  }
  const subnets = await read('subnets', lists.subnets, expectStatus(lists.subnets, 200));
  expect(sorted(subnets.map((s) => `${s.id} ${s.folder_id}`)), `${side}'s subnets`).toEqual(
    sorted(own.subnets.map((s) => `${s.id} ${s.folderId}`)),
  );

  const overlaps = await api.call('listSubnetOverlaps');
  for (const o of await read('overlaps', overlaps, expectStatus(overlaps, 200))) {
    for (const s of [o.subnet_a, o.subnet_b]) expect(own.subnets.some((m) => m.id === s.id)).toBe(true);
  }

  const addressCsv = await api.call('exportAddresses');
  const addressRows = parseCsv(await read('address export', addressCsv, expectStatus(addressCsv, 200))).slice(1);
  expect(sorted(addressRows.map((r) => cellValue(r[0] ?? ''))), `${side}'s addresses`).toEqual(
    sorted(own.addresses.map((a) => a.ip)),
  );
  const subnetCsv = await api.call('exportSubnets');
  const subnetRows = parseCsv(await read('subnet export', subnetCsv, expectStatus(subnetCsv, 200))).slice(1);
  expect(sorted(subnetRows.map((r) => cellValue(r[0] ?? ''))), `${side}'s exported subnets`).toEqual(
    sorted(own.subnets.map((s) => s.network)),
  );

  // A search for what the other wrote (a name, a CIDR, an address, a hostname) finds only one's own.
  const terms = [...foreign.terms, B_ONLY];
  const q = defined(terms[model.steps % terms.length], 'a search term');
  const search = await api.call('searchIpam', { query: { q } });
  const found = await read(`search ${q}`, search, expectStatus(search, 200));
  for (const hit of found.subnets)
    expect(
      own.subnets.some((s) => s.id === hit.id),
      `search ${q}`,
    ).toBe(true);
  for (const hit of found.addresses)
    expect(
      own.addresses.some((a) => a.id === hit.id),
      `search ${q}`,
    ).toBe(true);

  const activity = await api.call('listActivity', { query: { limit: 500 } });
  for (const entry of (await read('activity', activity, expectStatus(activity, 200))).entries) {
    expect(entry.user_id).toBe(own.userId);
    if (entry.resource_id) expect(own.everIds.has(entry.resource_id), `activity ${entry.resource_id}`).toBe(true);
  }
  const activityCsv = await api.call('exportActivity');
  await read('activity export', activityCsv, expectStatus(activityCsv, 200));
  const filters = await api.call('listActivityFilters');
  await read('activity filters', filters, expectStatus(filters, 200));

  // No id the other ever had, and (for A) nothing only B writes, anywhere in these answers.
  const foreignIds = [...foreign.everIds, foreign.userId];
  for (const [what, text] of texts) {
    const leaked = foreignIds.find((id) => text.includes(id));
    expect(leaked, `${side}'s ${what} shows ${other(side)}'s ${leaked}`).toBeUndefined();
    if (side === 'A') expect(text.includes(B_ONLY), `A's ${what} shows text only B wrote`).toBe(false);
  }
}

/** Every address of an organisation is listed under one of its subnets, and no other address is. */
async function checkAddressLists(own: OrgModel, api: ApiClient) {
  const listed = new Set<string>();
  for (const s of own.subnets) {
    for (const a of expectStatus(await api.call('listSubnetAddresses', { params: { id: s.id } }), 200))
      listed.add(a.id);
  }
  expect(sorted(listed)).toEqual(sorted(own.addresses.map((a) => a.id)));
}

/** The same few objects in both organisations (same names, CIDRs, VLAN number, addresses), so steps have targets. */
async function seed(model: Model, real: Real) {
  const at = (i: number) => networkAt(i);
  for (const side of ['A', 'B'] as const) {
    const own = model[side];
    const api = real[side];
    for (const [kind, operationId] of [
      ['folders', 'createFolder'],
      ['locations', 'createLocation'],
      ['vrfs', 'createVrf'],
    ] as const) {
      const name = nameFor(side, 0, false);
      const { id } = expectStatus(await api.call(operationId, { body: { name } }), 201);
      own[kind].push({ id, name });
      remember(own, id, name);
    }
    const vlan = expectStatus(await api.call('createVlan', { body: { vlan_number: 1, name: 'alpha' } }), 201);
    own.vlans.push({ id: vlan.id, name: 'alpha', number: 1 });
    remember(own, vlan.id);
    for (const i of [0, 1, 5]) {
      const body = { network: at(i), name: nameFor(side, i, true), folder_id: defined(own.folders[0], 'a folder').id };
      const s = subnetOf(expectStatus(await api.call('createSubnet', { body }), 201));
      own.subnets.push({
        id: s.id,
        network: at(i),
        cidr: parseCidr(at(i))!.cidr,
        vrfId: null,
        folderId: body.folder_id,
        name: body.name,
      });
      remember(own, s.id, body.name, at(i));
    }
    for (const ip of ['10.0.1.5', '2001:db8::5']) {
      const home = own.subnets.find(
        (s) => containsIp(s.cidr, parseIp(ip)!) && !childrenOf(own, s).some((c) => containsIp(c.cidr, parseIp(ip)!)),
      )!;
      const hostname = side === 'B' ? `${B_ONLY}-seed` : 'seed';
      const created = expectStatus(
        await api.call('createAddress', { params: { id: home.id }, body: { ip, hostname } }),
        201,
      );
      own.addresses.push({ id: created.id, ip, vrfId: null, hostname, status: created.status, owner: '' });
      remember(own, created.id, ip, hostname);
    }
  }
}

it('two organisations never see each other’s objects, whatever they do', async () => {
  const orgModel = async (label: Side) => {
    const org = await t.server.newOrg({ plan: 'enterprise', limits: { rate_limit: null } });
    const model: OrgModel = {
      label,
      userId: org.userId,
      folders: [],
      locations: [],
      vrfs: [],
      vlans: [],
      subnets: [],
      addresses: [],
      everIds: new Set(),
      terms: new Set(),
    };
    return { model, api: org.api };
  };
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: MAX_COMMANDS, size: 'max' }), async (steps) => {
      const [a, b] = [await orgModel('A'), await orgModel('B')];
      const model: Model = { A: a.model, B: b.model, steps: 0 };
      const real: Real = { A: a.api, B: b.api };
      await seed(model, real);
      await fc.asyncModelRun(() => ({ model, real }), steps);
      if (process.env.FUZZ_REPORT) console.log(`${model.steps} steps:\n  ${[...steps].join('\n  ')}`);
      await checkView(model, real, 'B');
      await checkAddressLists(model.A, real.A);
      await checkAddressLists(model.B, real.B);
    }),
    { seed: SEED, numRuns: RUNS },
  );
}, 120_000);
