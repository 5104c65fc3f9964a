/**
 * Status coverage: after the suite, every status the contract declares for a route (from the
 * router's own route list) must have been observed through expectStatus, or sit on the pending list
 * below with the issue that delivers it. The pending list only shrinks. Run by `npm test`. A status only
 * tests skipped on this machine would observe (a system program missing; never under CI) is listed with
 * the reason instead (`excuseStatuses`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractRoutes } from '../contract/routes';
import { OBSERVED_DIR } from './support/observed';
import { declaredStatuses } from './support/routes';

/** Declared statuses whose behaviour a later issue delivers; `*` applies to every route. */
const PENDING: { operationId: string; status: number; deliveredBy: string }[] = [];

const observed = new Set<string>();
const excused = new Map<string, string>();
if (existsSync(OBSERVED_DIR)) {
  for (const file of readdirSync(OBSERVED_DIR)) {
    for (const line of readFileSync(join(OBSERVED_DIR, file), 'utf8').split('\n').filter(Boolean)) {
      const { operationId, status, excused: reason } = JSON.parse(line);
      if (reason) excused.set(`${operationId} ${status}`, reason);
      else observed.add(`${operationId} ${status}`);
    }
  }
}

const isPending = (operationId: string, status: number) =>
  PENDING.some((p) => (p.operationId === '*' || p.operationId === operationId) && p.status === status);

const missing: string[] = [];
const skipped: string[] = [];
let covered = 0;
let pending = 0;
for (const { id, route } of contractRoutes) {
  for (const status of declaredStatuses(route)) {
    const key = `${id} ${status}`;
    if (observed.has(key)) covered++;
    else if (isPending(id, status)) pending++;
    else if (excused.has(key)) skipped.push(`${key}: ${excused.get(key)}`);
    else missing.push(key);
  }
}

console.log(`\nStatus coverage of ${contractRoutes.length} routes`);
console.log('Pending (declared, delivered by a later issue):');
for (const p of PENDING) console.log(`  - ${p.operationId} ${p.status}: ${p.deliveredBy}`);
if (skipped.length > 0) console.log(`Not observed here, their tests skipped:\n  ${skipped.join('\n  ')}`);
console.log(`${covered} observed, ${pending} pending, ${skipped.length} skipped, ${missing.length} missing`);
if (missing.length > 0) {
  console.error(`Declared but never observed (add a test through expectStatus):\n  ${missing.join('\n  ')}`);
  process.exit(1);
}
