/**
 * 03 — Addresses: take the first free address of a subnet, assign it, reserve a block of addresses in one
 * batch, and page through all of them with the SDK's iterator.
 *
 *   IPAM_API_KEY=svc_… npx tsx examples/03-addresses.ts
 */
import { createClient } from '../clients/typescript/src';

const apiKey = process.env.IPAM_API_KEY;
if (!apiKey) throw new Error('Set IPAM_API_KEY to a key from `npm run admin -- create-key`');
const ipam = createClient({ baseUrl: process.env.IPAM_BASE_URL ?? 'http://localhost:3000', apiKey });

const octet = Math.floor(Math.random() * 256);
const created = await ipam.subnets.create({
  network: `192.168.${octet}.0/24`,
  name: 'office',
  gateway: `192.168.${octet}.1`,
});
const subnet = 'warnings' in created ? created.subnet : created;

// 1. The first free address skips the gateway (and any child subnet's range).
const { ip } = await ipam.subnets.firstFree(subnet.id);
if (!ip) throw new Error('the subnet is full');
const printer = await ipam.addresses.create(subnet.id, { ip, hostname: 'printer-2f', status: 'assigned', owner: 'it' });
console.log('assigned', printer.ip, 'to', printer.hostname);

// 2. Reserve .100-.119 for DHCP in one request.
const ips = Array.from({ length: 20 }, (_, i) => `192.168.${octet}.${100 + i}`);
const { created: reserved } = await ipam.addresses.batchCreate(subnet.id, { ips, status: 'reserved' });
console.log(`reserved ${reserved} addresses`);

// 3. Page through every address: the iterator asks for `limit` at a time and stops at X-Total-Count.
let count = 0;
for await (const address of ipam.addresses.iterate(subnet.id, { limit: 8 })) {
  if (count++ < 3) console.log(`  ${address.ip.padEnd(16)} ${address.status.padEnd(9)} ${address.hostname}`);
}
console.log(`  … ${count} addresses in all`);

// 4. Usage of the subnet now, then clean up (deleting a subnet deletes its addresses).
const usage = await ipam.subnets.usage(subnet.id);
console.log(`usage: ${usage.used}/${usage.total} (${(usage.utilization * 100).toFixed(1)} %)`);
await ipam.subnets.delete(subnet.id);
