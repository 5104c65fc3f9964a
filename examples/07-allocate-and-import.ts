/**
 * 07 — Automation: allocate the next free addresses and child subnets atomically (no read-then-create race
 * between parallel jobs), import an inventory in one request, export it as CSV and search it.
 *
 *   IPAM_API_KEY=svc_… npx tsx examples/07-allocate-and-import.ts
 */
import { createClient } from '../clients/typescript/src';

const apiKey = process.env.IPAM_API_KEY;
if (!apiKey) throw new Error('Set IPAM_API_KEY to a key from `npm run admin -- create-key`');
const ipam = createClient({ baseUrl: process.env.IPAM_BASE_URL ?? 'http://localhost:3000', apiKey });

const octet = Math.floor(Math.random() * 256);
const created = await ipam.subnets.create({
  network: `10.${octet}.0.0/16`,
  name: 'cluster',
  gateway: `10.${octet}.0.1`,
});
const cluster = 'warnings' in created ? created.subnet : created;

// 1. Carve two /24s for node pools out of the lowest free space, then give five parallel jobs an address each.
const pools = await ipam.subnets.allocateSubnet(cluster.id, { prefix_length: 24, count: 2, name: 'node pool' });
console.log('node pools:', pools.map((p) => p.network).join(', '));
const [pool] = pools;
if (!pool) throw new Error('the allocation answered no subnet');
const nodes = await Promise.all(
  Array.from({ length: 5 }, (_, i) => ipam.subnets.allocateAddress(pool.id, { hostname: `node-${i}` })),
);
console.log(
  'nodes:',
  nodes
    .flat()
    .map((node) => `${node.hostname}=${node.ip}`)
    .join(' '),
);

// 2. Import an inventory: one row per subnet or address; a bad row is reported, the others are created.
const imported = await ipam.importExport.importSubnets({
  subnets: [
    { network: `10.${octet}.10.0/24`, name: 'printers', folder: 'Office', vlan: 30 },
    { network: `10.${octet}.10.0/24`, name: 'again' },
    { network: `10.${octet}.11.1/24` },
  ],
});
for (const r of imported.results) console.log(`  row ${r.row}: ${r.status}${r.error ? ` (${r.error})` : ''}`);
const addresses = await ipam.importExport.importAddresses({
  addresses: [{ ip: `10.${octet}.10.20`, subnet: `10.${octet}.10.0/24`, hostname: 'printer-2f' }],
});
console.log('addresses imported:', addresses.summary.created);

// 3. Export the addresses as CSV and find the printer by name.
const csv = await ipam.importExport.exportAddresses({ subnet_id: imported.results[0]?.id ?? undefined });
console.log(csv.trim().split('\r\n').length - 1, 'address row(s) in the CSV export');
const found = await ipam.search.query({ q: 'printer' });
console.log('search "printer":', found.addresses.map((a) => `${a.hostname} ${a.ip}`).join(', '));

// The imported subnets nested inside the cluster: deleting it deletes them too.
await ipam.subnets.delete(cluster.id);
