/**
 * 05 — A utilization report: walk the subnet tree of the organisation and print each subnet's usage,
 * flagging the ones above 80 %. It first plants a small sample network so there is something to report.
 *
 *   IPAM_API_KEY=svc_… npx tsx examples/05-utilization-report.ts
 */
import { createClient, type Subnet } from '../clients/typescript/src';

const apiKey = process.env.IPAM_API_KEY;
if (!apiKey) throw new Error('Set IPAM_API_KEY to a key from `npm run admin -- create-key`');
const ipam = createClient({ baseUrl: process.env.IPAM_BASE_URL ?? 'http://localhost:3000', apiKey });

// Sample data: a /22 with two /24s, one nearly full.
const [a, b, c] = [172, 16 + Math.floor(Math.random() * 16), 4 * Math.floor(Math.random() * 64)];
const root = await ipam.subnets.create({ network: `${a}.${b}.${c}.0/22`, name: 'campus' });
const rootId = 'warnings' in root ? root.subnet.id : root.id;
for (const [offset, name, used] of [
  [0, 'wifi', 240],
  [1, 'printers', 12],
] as const) {
  const created = await ipam.subnets.create({ network: `${a}.${b}.${c + offset}.0/24`, name });
  const id = 'warnings' in created ? created.subnet.id : created.id;
  const ips = Array.from({ length: used }, (_, i) => `${a}.${b}.${c + offset}.${i + 1}`);
  await ipam.addresses.batchCreate(id, { ips, status: 'd-dhcp' });
}

// One request for every subnet; the tree is rebuilt from parent_id.
const subnets = await ipam.subnets.list();
const children = new Map<string | undefined, Subnet[]>();
for (const subnet of subnets) children.set(subnet.parent_id, [...(children.get(subnet.parent_id) ?? []), subnet]);

function report(subnet: Subnet, depth: number) {
  const percent = (subnet.utilization * 100).toFixed(1).padStart(5);
  const counts = `${subnet.used_count ?? '?'}/${subnet.total_count ?? '?'}`;
  const flag = subnet.utilization > 0.8 ? '  ← above 80 %' : '';
  console.log(
    `${'  '.repeat(depth)}${subnet.network.padEnd(20 - 2 * depth)} ${subnet.name.padEnd(10)} ${percent} %  ${counts}${flag}`,
  );
  for (const child of children.get(subnet.id) ?? []) report(child, depth + 1);
}
console.log('network              name       usage');
for (const top of children.get(undefined) ?? []) report(top, 0);

await ipam.subnets.delete(rootId);
