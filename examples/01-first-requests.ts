/**
 * 01 — First requests with an API key, through the SDK.
 *
 *   npm run admin -- create-key --email you@example.com --plan pro   # prints svc_…
 *   npm start                                                         # in another terminal
 *   IPAM_API_KEY=svc_… npx tsx examples/01-first-requests.ts
 *
 * IPAM_BASE_URL defaults to http://localhost:3000. In your own project, import from '@ipam/sdk'.
 */
import { createClient, NotFoundError } from '../clients/typescript/src';

const apiKey = process.env.IPAM_API_KEY;
if (!apiKey) throw new Error('Set IPAM_API_KEY to a key from `npm run admin -- create-key`');
// One client per API key (organisation); it holds its own configuration, nothing global.
const ipam = createClient({ baseUrl: process.env.IPAM_BASE_URL ?? 'http://localhost:3000', apiKey });

// Resource methods resolve to the resource itself, typed from the OpenAPI document.
const folder = await ipam.folders.create({ name: `Example folder ${Date.now()}`, description: 'made by example 01' });
console.log('created folder', folder.id, folder.name);

const vlan = await ipam.vlans.create({ vlan_number: 100 + Math.floor(Math.random() * 3900), name: 'example' });
console.log('created VLAN', vlan.vlan_number);

const folders = await ipam.folders.list();
console.log(`the organisation has ${folders.length} folder(s)`);

// An error status throws a typed error: here a folder that does not exist is a NotFoundError (404).
try {
  await ipam.folders.get('00000000-0000-4000-8000-000000000000');
} catch (error) {
  if (!(error instanceof NotFoundError)) throw error;
  console.log('missing folder →', error.status, error.code, `(request ${error.requestId})`);
}

// The operationId functions are there too, when you want {status, data, headers} without exceptions.
const answer = await ipam.getVlan(vlan.id);
console.log('getVlan →', answer.status, 'rate limit left:', answer.headers.get('x-ratelimit-remaining'));

await ipam.vlans.delete(vlan.id);
await ipam.folders.delete(folder.id);
console.log('deleted the example folder and VLAN');
