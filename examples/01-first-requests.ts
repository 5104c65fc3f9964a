/**
 * 01 — First requests with an API key, through the SDK.
 *
 *   npm run admin -- create-key --email you@example.com --plan pro   # prints svc_…
 *   npm start                                                         # in another terminal
 *   IPAM_API_KEY=svc_… npx tsx examples/01-first-requests.ts
 *
 * IPAM_BASE_URL defaults to http://localhost:3000.
 */
import { createClient } from '../clients/typescript/src';

const apiKey = process.env.IPAM_API_KEY;
if (!apiKey) throw new Error('Set IPAM_API_KEY to a key from `npm run admin -- create-key`');
const ipam = createClient({ baseUrl: process.env.IPAM_BASE_URL ?? 'http://localhost:3000', apiKey });

// Every call resolves to {status, data, headers}; checking status narrows data to that response's type.
const created = await ipam.createFolder({ name: `Example folder ${Date.now()}`, description: 'made by example 01' });
if (created.status !== 201)
  throw new Error(`createFolder: ${created.status} ${created.data.code}: ${created.data.error}`);
console.log('created folder', created.data.id, created.data.name);

const vlan = await ipam.createVlan({ vlan_number: 100 + Math.floor(Math.random() * 3900), name: 'example' });
if (vlan.status === 201) console.log('created VLAN', vlan.data.vlan_number);
else console.log('VLAN not created:', vlan.status, vlan.data.error);

const folders = await ipam.listFolders();
if (folders.status === 200) console.log(`the organisation has ${folders.data.length} folder(s)`);

// Errors are values too: a folder that does not exist is a 404 with a machine-readable code.
const missing = await ipam.getFolder('00000000-0000-4000-8000-000000000000');
console.log('missing folder →', missing.status, missing.data);

await ipam.deleteFolder(created.data.id);
console.log('deleted the example folder');
