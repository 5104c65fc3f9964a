/**
 * 10 — Model a network the way operators describe it: tag what belongs together, type the custom fields people
 * fill in, and hand out addresses from a DHCP range with a hold that lapses unless the caller confirms it.
 *
 *   IPAM_API_KEY=svc_… npx tsx examples/10-tags-fields-ranges.ts
 */
import { ApiError, createClient, type Subnet, type SubnetCreatedWithWarnings } from '../clients/typescript/src';

const apiKey = process.env.IPAM_API_KEY;
if (!apiKey) throw new Error('Set IPAM_API_KEY to a key from `npm run admin -- create-key`');
const ipam = createClient({ baseUrl: process.env.IPAM_BASE_URL ?? 'http://localhost:3000', apiKey });

const subnetOf = (created: Subnet | SubnetCreatedWithWarnings) => ('warnings' in created ? created.subnet : created);

// 1. Tags: labels the organisation defines once and then attaches to subnets, addresses, VLANs, VRFs, locations
//    and folders. A write naming a tag that does not exist is a 400, so a typo never makes a new label.
const production = await ipam.tags.create({ name: 'production', colour: '#2e7d32' });
const clients = await ipam.tags.create({ name: 'dhcp-clients', description: 'Leased to devices' });
console.log(`tags: ${(await ipam.tags.list()).map((tag) => `${tag.name} ${tag.colour}`).join(', ')}`);

// 2. Typed custom fields: the cost centre of a subnet is an integer, the rack of an address one of three.
const costCentre = await ipam.customFields.create({
  kind: 'subnet',
  name: 'cost_centre',
  label: 'Cost centre',
  type: 'integer',
});
const rack = await ipam.customFields.create({
  kind: 'address',
  name: 'rack',
  type: 'select',
  choices: ['r1', 'r2', 'r3'],
  required: true,
  default: 'r1',
});
try {
  await ipam.subnets.create({ network: '10.99.0.0/24', custom_fields: { cost_centre: 'forty-two' } });
} catch (error) {
  if (!(error instanceof ApiError) || error.status !== 400) throw error;
  console.log(`a value of the wrong type is refused: ${error.message}`);
}

// 3. A tagged subnet with its cost centre, found again by tag and by custom field.
const office = subnetOf(
  await ipam.subnets.create({
    network: '10.99.0.0/24',
    name: 'office',
    tags: ['production'],
    custom_fields: { cost_centre: 4200 },
  }),
);
await ipam.subnets.create({ network: '10.99.1.0/24', name: 'lab', custom_fields: { cost_centre: 17 } });
const tagged = await ipam.subnets.list({ tag: 'production' });
const expensive = await ipam.subnets.list({ cf_cost_centre__gte: '1000' });
console.log(`tagged production: ${tagged.map((s) => s.network).join(', ')}`);
console.log(`cost centre ≥ 1000: ${expensive.map((s) => `${s.network} (${s.custom_fields?.cost_centre})`).join(', ')}`);

// 4. A DHCP range inside the subnet, and two addresses allocated from it, held for five minutes: reserved until
//    the caller confirms them, released by the service if nobody does.
const pool = await ipam.ranges.create(office.id, { start: '10.99.0.100', end: '10.99.0.199', role: 'dhcp' });
const held = await ipam.subnets.allocateAddress(office.id, {
  count: 2,
  range_id: pool.id,
  hold_seconds: 300,
  tags: ['dhcp-clients'],
});
for (const address of held) {
  console.log(
    `held ${address.ip} (${address.status}) until ${address.expires_at}, rack ${address.custom_fields?.rack}`,
  );
}
const [confirmed, lapsing] = held;
if (!confirmed || !lapsing) throw new Error('expected two addresses');
await ipam.addresses.update(confirmed.id, { status: 'assigned', custom_fields: { rack: 'r3' } });
const stillHeld = await ipam.addresses.list(office.id, { tag: 'dhcp-clients', status: 'reserved' });
console.log(
  `confirmed ${confirmed.ip}; still held: ${stillHeld.map((a) => `${a.ip} until ${a.expires_at}`).join(', ')}`,
);
const [range] = await ipam.ranges.list(office.id);
console.log(`range ${range?.start}–${range?.end} (${range?.role}): ${range?.used} of ${range?.size} used`);

// 5. Clean up: the subnets take their ranges and addresses along; then the tags and the definitions.
for (const subnet of await ipam.subnets.list()) {
  if (subnet.network.startsWith('10.99.')) await ipam.subnets.delete(subnet.id);
}
for (const tag of [production, clients]) await ipam.tags.delete(tag.id);
for (const definition of [costCentre, rack]) await ipam.customFields.delete(definition.id);
console.log('cleaned up');
