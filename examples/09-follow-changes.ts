/**
 * 09 — Follow the change feed: keep a local copy of the organisation's subnets in step with the service. Take a
 * cursor first, then read the subnets, then apply every subnet change after that cursor. It then makes changes of
 * its own (create, rename, split, delete), applies what the feed says of them, checks its copy against the
 * service's list, cleans up and checks again.
 *
 *   IPAM_API_KEY=svc_… npx tsx examples/09-follow-changes.ts
 */
import { type Change, createClient, type Subnet, type SubnetCreatedWithWarnings } from '../clients/typescript/src';

const apiKey = process.env.IPAM_API_KEY;
if (!apiKey) throw new Error('Set IPAM_API_KEY to a key from `npm run admin -- create-key`');
const ipam = createClient({ baseUrl: process.env.IPAM_BASE_URL ?? 'http://localhost:3000', apiKey });

const subnetOf = (created: Subnet | SubnetCreatedWithWarnings) => ('warnings' in created ? created.subnet : created);

// 1. The cursor before the snapshot: a change committed while the list is read may be applied again, but none is
//    missed (replayed in order, the changes the snapshot already holds end where the service is).
let cursor = (await ipam.changes.list({ after: 'now' })).next_cursor;
const local = new Map<string, Record<string, unknown>>();
for (const subnet of await ipam.subnets.list()) local.set(subnet.id, { ...subnet });
console.log(`snapshot: ${local.size} subnets`);

/** Applies one change to the copy: a change's `changes` are `{field: [old, new]}`. */
function apply(change: Change) {
  if (change.resource_type !== 'subnet' || !change.resource_id) return;
  const id = change.resource_id;
  const pairs = Object.entries(change.changes) as [string, [unknown, unknown]][];
  const values = Object.fromEntries(pairs.map(([field, [, value]]) => [field, value]));
  const before = local.get(id);
  // A create lists only the fields holding a value (no empty name); an update only those that changed.
  if (change.operation === 'create') local.set(id, { name: '', ...values });
  else if (change.operation === 'update') local.set(id, { ...before, ...values });
  else local.delete(id);
  const subnet = local.get(id) ?? { ...before, ...Object.fromEntries(pairs.map(([field, [old]]) => [field, old])) };
  console.log(
    `${change.operation.padEnd(6)} ${`(${change.action})`.padEnd(8)} ${String(subnet.network).padEnd(18)} ${JSON.stringify(subnet.name)}`,
  );
}

/** Applies every change committed so far, and keeps the cursor of the last one to resume after it. */
async function catchUp() {
  for await (const change of ipam.changes.follow({ after: cursor, untilCaughtUp: true })) {
    apply(change);
    cursor = change.cursor;
  }
}

/** Throws unless the copy holds the subnets the service lists (ids, networks, names). */
async function check() {
  const row = (id: string, s: { network?: unknown; name?: unknown }) => `${id} ${s.network} ${s.name}`;
  const ours = [...local].map(([id, s]) => row(id, s)).sort();
  const theirs = (await ipam.subnets.list()).map((s) => row(s.id, s)).sort();
  if (ours.join('\n') !== theirs.join('\n')) {
    throw new Error(`out of step:\nlocal copy:\n${ours.join('\n')}\nservice:\n${theirs.join('\n')}`);
  }
  console.log(`in step: ${ours.length} subnets`);
}

await catchUp();

// 2. Changes of our own, in a random /23 so the example can run again in the same organisation.
const [b, c] = [Math.floor(Math.random() * 256), 2 * Math.floor(Math.random() * 128)];
const site = subnetOf(await ipam.subnets.create({ network: `10.${b}.${c}.0/23`, name: 'example 09' }));
const lab = subnetOf(await ipam.subnets.create({ network: `10.${b}.${c}.0/24`, name: 'lab' }));
const guest = subnetOf(await ipam.subnets.create({ network: `10.${b}.${c + 1}.0/24`, name: 'guest' }));
await ipam.subnets.update(lab.id, { name: 'lab-2' });
await ipam.subnets.split(lab.id, { parts: 2 }); // the lab's delete, then a create of each half
await ipam.subnets.delete(guest.id);

// 3. Follow the feed to the end, then compare.
console.log('\nchanges:');
await catchUp();
await check();

// 4. Clean up: deleting the /23 deletes the halves under it, one change for each subnet.
await ipam.subnets.delete(site.id);
await catchUp();
await check();
