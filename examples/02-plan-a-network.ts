/**
 * 02 — Plan a network: create a /16, find free /24s in it, carve subnets out of them (they nest under the
 * /16 by themselves), split one /24 into four /26s, and print the resulting tree.
 *
 *   IPAM_API_KEY=svc_… npx tsx examples/02-plan-a-network.ts
 */
import { createClient, type Subnet, type SubnetCreatedWithWarnings } from '../clients/typescript/src';

const apiKey = process.env.IPAM_API_KEY;
if (!apiKey) throw new Error('Set IPAM_API_KEY to a key from `npm run admin -- create-key`');
const ipam = createClient({ baseUrl: process.env.IPAM_BASE_URL ?? 'http://localhost:3000', apiKey });

// A create answers the subnet, or {subnet, warnings} when it overlaps ranges in other VRFs.
const subnetOf = (created: Subnet | SubnetCreatedWithWarnings) => ('warnings' in created ? created.subnet : created);

// 1. The site's /16 (a random second octet, so the example can run again in the same organisation).
const network = `10.${Math.floor(Math.random() * 256)}.0.0/16`;
const site = subnetOf(await ipam.subnets.create({ network, name: 'Site A', description: 'example 02' }));
console.log('site', site.network);

// 2. Ask the service for free /24 blocks inside it, instead of computing them.
const free = await ipam.subnets.freeBlocks(site.id, { prefix: 24, limit: 3 });
console.log(`free /24s: ${free.blocks.join(', ')} … (${free.total} in all)`);

// 3. Use two of them: each new subnet finds its parent (the /16) by itself.
const [serversBlock, usersBlock] = free.blocks;
if (!serversBlock || !usersBlock) throw new Error(`${site.network} has fewer than two free /24s`);
const servers = subnetOf(await ipam.subnets.create({ network: serversBlock, name: 'servers' }));
const users = subnetOf(await ipam.subnets.create({ network: usersBlock, name: 'users' }));
console.log(
  `created ${servers.network} and ${users.network}, both under ${site.network}: ${users.parent_id === site.id}`,
);

// 4. Split the users /24 into four /26s (one per floor), then name them. The parts take its place.
const floors = await ipam.subnets.split(users.id, { parts: 4 });
for (const [i, part] of floors.entries()) await ipam.subnets.update(part.id, { name: `users floor ${i + 1}` });

// 5. The tree under the /16, from the subnet's detail (its direct children) and each child's.
const detail = await ipam.subnets.get(site.id);
console.log(`\n${detail.network} ${detail.name}`);
for (const child of detail.children) {
  console.log(`  ${child.network} ${child.name}`);
  for (const grandchild of (await ipam.subnets.get(child.id)).children) {
    console.log(`    ${grandchild.network} ${grandchild.name}`);
  }
}

// Deleting the /16 deletes everything under it.
await ipam.subnets.delete(site.id);
console.log('\ncleaned up', site.network);
