/**
 * The change feed against a model: eight writers make random creates, updates, deletes, splits and imports of
 * subnets and addresses at once while a reader follows the feed in small pages. At the end the reader has seen
 * every entry the organisation's changes wrote exactly once, and replaying what it saw onto an empty model, in
 * the order it saw it, reproduces the organisation's subnets and addresses: a change shown before one it
 * depends on (an update before its create, a create after its subnet's delete) fails the replay. On both
 * databases (on PostgreSQL the writers run on several connections).
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import type { ApiClient, ApiResponse } from '../support/client';
import { useTestServer } from '../support/factories';
import { expectStatus, type ResponseBody } from '../support/observed';
import { type Random, randomFrom } from '../support/random';

const t = useTestServer({}, false);

// IPv4 arithmetic, enough for subnets of 10.200.0.0/16.
const BASE = (10 << 24) | (200 << 16);
const toIp = (n: number) => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');
const toInt = (ip: string) => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const rangeOf = (cidr: string) => {
  const [ip = '', prefix = '32'] = cidr.split('/');
  const start = toInt(ip);
  return { start, end: start + 2 ** (32 - Number(prefix)) - 1, prefix: Number(prefix) };
};
const inside = (ip: string, cidr: string) => {
  const { start, end } = rangeOf(cidr);
  const n = toInt(ip);
  return n >= start && n <= end;
};
const strictlyInside = (inner: string, outer: string) => {
  const a = rangeOf(inner);
  const b = rangeOf(outer);
  return a.start >= b.start && a.end <= b.end && a.prefix > b.prefix;
};
function randomNetwork(random: Random) {
  const prefix = random.int(20, 28);
  const size = 2 ** (32 - prefix);
  return `${toIp(BASE + random.int(0, 2 ** 16 / size - 1) * size)}/${prefix}`;
}

/** What the writers know of the organisation: ids and networks they made (others may have removed them since). */
interface Known {
  subnets: Map<string, string>;
  addresses: Set<string>;
}

/** One random write; any answer but a 5xx is fine (a target another writer removed is a 404, a taken ip a 400). */
async function write(api: ApiClient, random: Random, known: Known): Promise<ApiResponse> {
  const subnets = [...known.subnets];
  const [subnetId, network] = random.pick(subnets) ?? ['00000000-0000-4000-8000-000000000000', '10.200.0.0/24'];
  const { start, end } = rangeOf(network);
  const host = () => toIp(random.int(start + 1, Math.max(start + 1, end - 1)));
  const addressId = random.pick([...known.addresses]) ?? '00000000-0000-4000-8000-000000000000';
  const op = random.int(0, 11);
  const remember = (answer: ApiResponse, keep: (body: never) => void) => {
    if (answer.status < 300) keep(answer.body as never);
    return answer;
  };
  switch (op) {
    case 0:
    case 1: {
      const answer = await api.call('createSubnet', { body: { network: randomNetwork(random), name: `n${op}` } });
      return remember(answer, (body: ResponseBody<'createSubnet', 201>) => {
        const made = 'subnet' in body ? body.subnet : body;
        known.subnets.set(made.id, made.network);
      });
    }
    case 2:
      return api.call('updateSubnet', {
        params: { id: subnetId },
        body: { name: `r${random.int(0, 99)}`, description: random.next() < 0.5 ? '' : 'd' },
      });
    case 3:
      return remember(await api.call('deleteSubnet', { params: { id: subnetId } }), () =>
        known.subnets.delete(subnetId),
      );
    case 4: {
      const answer = await api.call('splitSubnet', { params: { id: subnetId }, body: { parts: random.pick([2, 4]) } });
      return remember(answer, (body: ResponseBody<'splitSubnet', 200>) => {
        known.subnets.delete(subnetId);
        for (const part of body) known.subnets.set(part.id, part.network);
      });
    }
    case 5:
    case 6: {
      const answer = await api.call('createAddress', {
        params: { id: subnetId },
        body: { ip: host(), hostname: `h${random.int(0, 99)}` },
      });
      return remember(answer, (body: ResponseBody<'createAddress', 201>) => known.addresses.add(body.id));
    }
    case 7: {
      const ips = [...new Set([host(), host(), host()])];
      return api.call('batchCreateAddresses', { params: { id: subnetId }, body: { ips } });
    }
    case 8:
      return api.call('updateAddress', {
        params: { id: addressId },
        body: { hostname: `u${random.int(0, 99)}`, status: random.pick(['assigned', 'reserved']) },
      });
    case 9:
      return remember(await api.call('deleteAddress', { params: { id: addressId } }), () =>
        known.addresses.delete(addressId),
      );
    case 10: {
      const rows = [{ network: randomNetwork(random), name: 'imported' }, { network: randomNetwork(random) }];
      const answer = await api.call('importSubnets', { body: { subnets: rows } });
      return answer;
    }
    default:
      return api.call('importAddresses', {
        body: { addresses: [{ ip: host(), subnet: network, hostname: 'imp' }] },
      });
  }
}

type Change = ResponseBody<'listChanges', 200>['changes'][number];
type Pair = [unknown, unknown];

interface Model {
  subnets: Map<string, { network: string; name: string; description: string }>;
  addresses: Map<string, { ip: string; hostname: string; status: string }>;
}

/** The values a change gives, by field (`[old, new]` → new). */
const newValues = (change: Change) =>
  Object.fromEntries(Object.entries(change.changes).map(([field, pair]) => [field, (pair as Pair)[1]]));
const text = (value: unknown) => (value === null || value === undefined ? '' : String(value));

/** Applies one change to the model; throws when the model cannot take it (an order no commit order gives). */
function apply(model: Model, change: Change) {
  const id = change.resource_id ?? '';
  const values = newValues(change);
  const what = `${change.action} of ${change.resource_type} ${id}`;
  if (change.resource_type === 'subnet') {
    const subnet = model.subnets.get(id);
    if (change.operation === 'create') {
      if (subnet) throw new Error(`${what}: created twice`);
      model.subnets.set(id, {
        network: text(values.network),
        name: text(values.name),
        description: text(values.description),
      });
      return;
    }
    if (!subnet) throw new Error(`${what}: no such subnet in the model`);
    if (change.operation === 'update') {
      if ('name' in values) subnet.name = text(values.name);
      if ('description' in values) subnet.description = text(values.description);
      return;
    }
    // A delete takes every address in its network (its subtree goes too, each with its own entry); a split only
    // the subnet's own, those in none of its children.
    const children = [...model.subnets.values()].filter((s) => strictlyInside(s.network, subnet.network));
    for (const [addressId, address] of model.addresses) {
      if (!inside(address.ip, subnet.network)) continue;
      if (change.action === 'split' && children.some((c) => inside(address.ip, c.network))) continue;
      model.addresses.delete(addressId);
    }
    model.subnets.delete(id);
    return;
  }
  if (change.resource_type !== 'address') throw new Error(`${what}: not made by these writers`);
  const address = model.addresses.get(id);
  if (change.operation === 'create') {
    if (address) throw new Error(`${what}: created twice`);
    model.addresses.set(id, { ip: text(values.ip), hostname: text(values.hostname), status: text(values.status) });
    return;
  }
  if (!address) throw new Error(`${what}: no such address in the model`);
  if (change.operation === 'delete') model.addresses.delete(id);
  else {
    if ('hostname' in values) address.hostname = text(values.hostname);
    if ('status' in values) address.status = text(values.status);
  }
}

/** The organisation's subnets and addresses as the API shows them, in the model's shape. */
async function actualState(api: ApiClient): Promise<Model> {
  const subnets = expectStatus(await api.call('listSubnets', {}), 200);
  const state: Model = { subnets: new Map(), addresses: new Map() };
  for (const s of subnets) {
    state.subnets.set(s.id, { network: s.network, name: text(s.name), description: text(s.description) });
    const answer = await api.call('listSubnetAddresses', { params: { id: s.id }, query: { limit: 1000 } });
    if (answer.status !== 200) {
      const again = expectStatus(await api.call('listSubnets', {}), 200);
      throw new Error(`${s.id} ${s.network}: ${answer.status}; listed again: ${again.some((x) => x.id === s.id)}`);
    }
    const page = expectStatus(answer, 200);
    for (const a of page) state.addresses.set(a.id, { ip: a.ip, hostname: text(a.hostname), status: a.status });
  }
  return state;
}

const sorted = <V>(map: Map<string, V>) => [...map].sort(([a], [b]) => a.localeCompare(b));

const WRITERS = 8;
const WRITES_EACH = 30;
const PAGE = 7;

describe('the change feed against a model', () => {
  it.each([1, 2, 3])(
    'seed %i: a follower sees every change once, and replaying them gives the state',
    async (seed) => {
      const org = await t.server.newOrg({ plan: 'pro' });
      const known: Known = { subnets: new Map(), addresses: new Set() };
      const seen: Change[] = [];
      let writing = true;

      async function follow() {
        let after: string | undefined;
        for (;;) {
          const finished = !writing;
          const page = expectStatus(
            await org.api.call('listChanges', {
              query: after === undefined ? { limit: PAGE } : { after, limit: PAGE },
            }),
            200,
          );
          seen.push(...page.changes);
          after = page.next_cursor;
          // Only a page read after the last write ended, and with nothing more, is the end.
          if (!page.has_more && finished) return;
        }
      }
      const statuses: number[] = [];
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        const random = randomFrom(seed * 1000 + w);
        for (let i = 0; i < WRITES_EACH; i++) statuses.push((await write(org.api, random, known)).status);
      });
      const reader = follow();
      await Promise.all(writers);
      writing = false;
      await reader;

      expect(statuses.filter((s) => s >= 500)).toEqual([]);
      expect(statuses.filter((s) => s < 300).length).toBeGreaterThan(WRITERS * WRITES_EACH * 0.3);

      const ids = seen.map((c) => c.activity_id);
      expect(new Set(ids).size).toBe(ids.length);
      const stored = rowsOf<{ id: string }>(
        await t.server.database.db.execute(
          sql`SELECT a.id::text AS id FROM activity a WHERE a.org_id = ${org.orgId} ORDER BY a.id`,
        ),
      ).map((r) => Number(r.id));
      expect([...ids].sort((a, b) => a - b)).toEqual(stored);

      const model: Model = { subnets: new Map(), addresses: new Map() };
      for (const change of seen) apply(model, change);
      const actual = await actualState(org.api);
      expect(sorted(model.subnets)).toEqual(sorted(actual.subnets));
      expect(sorted(model.addresses)).toEqual(sorted(actual.addresses));
    },
    120_000,
  );
});
