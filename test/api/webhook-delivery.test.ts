/**
 * Webhook events, end to end: a change through the API writes its event to the outbox in the change's
 * transaction; the worker delivers it to a real receiver on loopback, signed per Standard Webhooks and
 * verified with the `standardwebhooks` package. Retries, failures and deactivation are in
 * webhook-retries.test.ts; two workers on one PostgreSQL database in test/concurrency/webhook-workers.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationId } from '../../contract/routes';
import { openDatabase } from '../../server/db/connection';
import * as identity from '../../server/modules/identity/identity.service';
import { ApiClient } from '../support/client';
import { defined } from '../support/defined';
import { createSubnet } from '../support/factories';
import { type DeclaredStatus, expectStatus } from '../support/observed';
import { startServerProcess } from '../support/process';
import type { TestOrg } from '../support/server';
import { ALLOW, type Harness, received, startHarness, subscribe, verifyAt } from '../support/webhook-events';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

type Body = Record<string, unknown>;
const ok = async <Id extends OperationId, S extends DeclaredStatus<Id>>(
  org: TestOrg,
  operationId: Id,
  status: S,
  options: Body = {},
) => expectStatus(await org.api.call(operationId, options), status);

/** The (type, resource id, changes) of what a subscription received, in order. */
const summary = (events: ReturnType<typeof received>) => events.map((e) => [e.type, e.data.id, e.data.changes]);

describe('events for every change of the IPAM resources', () => {
  const kinds = [
    { kind: 'folder', create: { name: 'DC' }, update: { name: 'DC-1' }, changed: { name: ['DC', 'DC-1'] } },
    { kind: 'vlan', create: { vlan_number: 120 }, update: { name: 'servers' }, changed: { name: ['', 'servers'] } },
    { kind: 'vrf', create: { name: 'blue' }, update: { rd: '65000:2' }, changed: { rd: ['', '65000:2'] } },
    { kind: 'location', create: { name: 'B1' }, update: { address: 'x' }, changed: { address: ['', 'x'] } },
  ] as const;
  /** createFolder, updateVlan …: built from the kind (the compiler checks they are operations). */
  const op = <V extends string, K extends string>(verb: V, kind: K) =>
    `${verb}${kind.charAt(0).toUpperCase()}${kind.slice(1)}` as `${V}${Capitalize<K>}`;

  it.each(kinds)('sends the $kind events: created, updated and deleted, with the changes', async (k) => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    const row = await ok(org, op('create', k.kind), 201, { body: k.create });
    await ok(org, op('update', k.kind), 200, { params: { id: row.id }, body: k.update });
    await ok(org, op('delete', k.kind), 204, { params: { id: row.id } });
    expect(await h.worker.runOnce()).toBe(3);
    const events = received(h, sub);
    expect(events.map((e) => [e.type, e.data.id])).toEqual([
      [`${k.kind}.created`, row.id],
      [`${k.kind}.updated`, row.id],
      [`${k.kind}.deleted`, row.id],
    ]);
    expect(events[1]?.data.changes).toEqual(k.changed);
  });

  it('sends the body {type, timestamp, data: {id, changes}} as JSON', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    const before = Date.now();
    const folder = await ok(org, 'createFolder', 201, { body: { name: 'DC', description: 'main' } });
    await h.worker.runOnce();
    const request = defined(h.receiver.to(sub.path)[0], 'the request');
    expect(request.method).toBe('POST');
    expect(request.headers['content-type']).toBe('application/json');
    const body = JSON.parse(request.body);
    expect(Object.keys(body).sort()).toEqual(['data', 'timestamp', 'type']);
    expect(body).toEqual({
      type: 'folder.created',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      data: { id: folder.id, changes: { name: [null, 'DC'], description: [null, 'main'], sort_order: [null, 0] } },
    });
    expect(Date.parse(body.timestamp)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('sends subnet.created, .updated and .deleted', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    const subnet = await createSubnet(org.api, '10.1.0.0/24');
    await ok(org, 'updateSubnet', 200, { params: { id: subnet.id }, body: { name: 'lan' } });
    await ok(org, 'deleteSubnet', 204, { params: { id: subnet.id } });
    await h.worker.runOnce();
    const events = received(h, sub);
    expect(events.map((e) => e.type)).toEqual(['subnet.created', 'subnet.updated', 'subnet.deleted']);
    expect(events[0]?.data.changes.network).toEqual([null, '10.1.0.0/24']);
    expect(events[1]?.data.changes).toEqual({ name: ['', 'lan'] });
  });

  it('sends address.created, .updated and .deleted', async () => {
    const org = await h.org();
    const subnet = await createSubnet(org.api, '10.2.0.0/24');
    const sub = await subscribe(h, org);
    const address = await ok(org, 'createAddress', 201, { params: { id: subnet.id }, body: { ip: '10.2.0.5' } });
    await ok(org, 'updateAddress', 200, { params: { id: address.id }, body: { status: 'reserved' } });
    await ok(org, 'deleteAddress', 204, { params: { id: address.id } });
    await h.worker.runOnce();
    expect(summary(received(h, sub)).map(([type, id]) => [type, id])).toEqual([
      ['address.created', address.id],
      ['address.updated', address.id],
      ['address.deleted', address.id],
    ]);
    expect(received(h, sub)[1]?.data.changes).toEqual({ status: ['assigned', 'reserved'] });
  });

  it('sends subnet.split with the original network and the parts, then subnet.created for each part', async () => {
    const org = await h.org();
    const original = await createSubnet(org.api, '10.3.0.0/24');
    const sub = await subscribe(h, org);
    const parts = await ok(org, 'splitSubnet', 200, { params: { id: original.id }, body: { parts: 2 } });
    await h.worker.runOnce();
    const [event] = received(h, sub);
    expect(summary(received(h, sub)).map(([type, id]) => [type, id])).toEqual([
      ['subnet.split', original.id],
      ...parts.map((part) => ['subnet.created', part.id]),
    ]);
    expect(event?.type).toBe('subnet.split');
    expect(event?.data).toMatchObject({
      id: original.id,
      original: '10.3.0.0/24',
      parts: ['10.3.0.0/25', '10.3.0.128/25'],
      changes: { network: ['10.3.0.0/24', null], parts: [null, ['10.3.0.0/25', '10.3.0.128/25']] },
    });
  });

  it('sends the created events of an import, one per object, the named folder first', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    const subnets = await ok(org, 'importSubnets', 200, {
      body: { subnets: [{ network: '10.4.0.0/24', folder: 'DC' }, { network: '10.4.0.0/24' }] },
    });
    const addresses = await ok(org, 'importAddresses', 200, {
      body: { addresses: [{ ip: '10.4.0.9', subnet: '10.4.0.0/24' }] },
    });
    await h.worker.runOnce();
    const events = summary(received(h, sub));
    expect(events.map(([type]) => type)).toEqual(['folder.created', 'subnet.created', 'address.created']);
    expect(events[1]?.[1]).toBe(defined(subnets.results[0], 'the subnet imported').id);
    expect(events[2]?.[1]).toBe(defined(addresses.results[0], 'the address imported').id);
  });

  it('sends one event per address of a batch create, update and delete', async () => {
    const org = await h.org();
    const subnet = await createSubnet(org.api, '10.4.0.0/24');
    const sub = await subscribe(h, org);
    const ips = ['10.4.0.1', '10.4.0.2', '10.4.0.3'];
    await ok(org, 'batchCreateAddresses', 200, { params: { id: subnet.id }, body: { ips } });
    await h.worker.runOnce();
    const ids = received(h, sub).map((e) => e.data.id);
    await ok(org, 'batchUpdateAddresses', 200, { body: { ids, status: 'assigned' } });
    await ok(org, 'batchDeleteAddresses', 200, { body: { ids: [...ids].reverse() } });
    await h.worker.runOnce();
    const events = received(h, sub);
    expect(events.map((e) => e.type)).toEqual([
      ...Array(3).fill('address.created'),
      ...Array(3).fill('address.updated'),
      ...Array(3).fill('address.deleted'),
    ]);
    expect(events.slice(0, 3).map((e) => e.data.changes.ip?.[1])).toEqual(ips);
    expect(new Set(ids).size).toBe(3);
    // In the order of the ids sent, whatever order the database returned the rows in.
    expect(events.slice(3, 6).map((e) => e.data.id)).toEqual(ids);
    expect(events.slice(6).map((e) => e.data.id)).toEqual([...ids].reverse());
  });

  it('sends one address.created per allocated address, none for the candidates it passed over', async () => {
    const org = await h.org();
    const subnet = await createSubnet(org.api, '10.6.0.0/24');
    const sub = await subscribe(h, org);
    const allocated = await ok(org, 'allocateAddress', 201, { params: { id: subnet.id }, body: { count: 3 } });
    await h.worker.runOnce();
    const events = received(h, sub);
    expect(events.map((e) => [e.type, e.data.id, e.data.changes.ip?.[1]])).toEqual(
      allocated.map((a) => ['address.created', a.id, a.ip]),
    );
  });

  it('sends one subnet.deleted per subnet of a cascading delete, none per address', async () => {
    const org = await h.org();
    const parent = await createSubnet(org.api, '10.5.0.0/16');
    const child = await createSubnet(org.api, '10.5.1.0/24');
    await ok(org, 'createAddress', 201, { params: { id: child.id }, body: { ip: '10.5.1.9' } });
    const sub = await subscribe(h, org);
    await ok(org, 'deleteSubnet', 204, { params: { id: parent.id } });
    await h.worker.runOnce();
    const events = received(h, sub);
    expect(events.map((e) => e.type)).toEqual(['subnet.deleted', 'subnet.deleted']);
    expect(events.map((e) => e.data.id).sort()).toEqual([parent.id, child.id].sort());
  });

  it('sends nothing for changes of keys, webhooks or members, nor for a change that fails', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    await ok(org, 'createApiKey', 201, { body: { name: 'k' } });
    await ok(org, 'updateWebhook', 200, { params: { id: sub.id }, body: { description: 'x' } });
    await ok(org, 'createFolder', 201, { body: { name: 'taken' } });
    await ok(org, 'createFolder', 400, { body: { name: 'taken' } });
    await h.worker.runOnce();
    expect(received(h, sub).map((e) => e.type)).toEqual(['folder.created']);
  });
});

describe('who receives an event', () => {
  it('sends only the listed types to a subscription with event_types, every type to one without', async () => {
    const org = await h.org();
    const some = await subscribe(h, org, { eventTypes: ['subnet.created', 'folder.deleted'] });
    const all = await subscribe(h, org);
    const folder = await ok(org, 'createFolder', 201, { body: { name: 'f' } });
    await ok(org, 'createSubnet', 201, { body: { network: '10.6.0.0/24' } });
    await ok(org, 'deleteFolder', 204, { params: { id: folder.id } });
    await h.worker.runOnce();
    expect(received(h, some).map((e) => e.type)).toEqual(['subnet.created', 'folder.deleted']);
    expect(received(h, all).map((e) => e.type)).toEqual(['folder.created', 'subnet.created', 'folder.deleted']);
  });

  it('sends nothing to an inactive subscription', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    await ok(org, 'updateWebhook', 200, { params: { id: sub.id }, body: { is_active: false } });
    await ok(org, 'createFolder', 201, { body: { name: 'f' } });
    await h.worker.runOnce();
    expect(received(h, sub)).toEqual([]);
  });

  it('sends another organisation’s changes only to its own subscriptions', async () => {
    const mine = await h.org();
    const theirs = await h.org();
    const sub = await subscribe(h, mine);
    await ok(theirs, 'createFolder', 201, { body: { name: 'theirs' } });
    await h.worker.runOnce();
    expect(received(h, sub)).toEqual([]);
  });

  it('sends a subscription its events in the order of the changes', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    const names = Array.from({ length: 30 }, (_, i) => `f${i}`);
    for (const name of names) await ok(org, 'createFolder', 201, { body: { name } });
    await h.worker.runOnce();
    expect(received(h, sub).map((e) => e.data.changes.name?.[1])).toEqual(names);
  });
});

describe('signatures', () => {
  it('signs per Standard Webhooks: the package verifies the body and headers with the secret', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    await ok(org, 'createFolder', 201, { body: { name: 'signed' } });
    await h.worker.runOnce();
    const request = defined(h.receiver.to(sub.path)[0], 'the request');
    expect(verifyAt(sub.secret, request, h.now())).toMatchObject({ type: 'folder.created' });
    expect(request.headers['webhook-timestamp']).toBe(String(Math.floor(h.now().getTime() / 1000)));
    expect(() => verifyAt(`whsec_${Buffer.from('x'.repeat(24)).toString('base64')}`, request, h.now())).toThrow();
  });

  it('gives each event its own webhook-id', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    await ok(org, 'createFolder', 201, { body: { name: 'a' } });
    await ok(org, 'createFolder', 201, { body: { name: 'b' } });
    await h.worker.runOnce();
    const ids = h.receiver.to(sub.path).map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(2);
  });

  it('signs the next attempt with the rotated secret, never the old one', async () => {
    const org = await h.org();
    const sub = await subscribe(h, org);
    await ok(org, 'createFolder', 201, { body: { name: 'before' } });
    const { secret } = await ok(org, 'rotateWebhookSecret', 200, { params: { id: sub.id } });
    await h.worker.runOnce();
    const request = defined(h.receiver.to(sub.path)[0], 'the request');
    expect(verifyAt(secret, request, h.now())).toBeTruthy();
    expect(() => verifyAt(sub.secret, request, h.now())).toThrow();
  });
});

describe('durability', () => {
  it('delivers, after a restart, an event whose server was killed before it was sent', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ipam-outbox-'));
    try {
      const database = await openDatabase({ dataDir });
      const user = await identity.ensureUser(database.db, 'kill@example.test', { plan: 'teams' });
      const { key } = await identity.createApiKey(database.db, user, 'kill');
      await database.close();
      // The embedded database of its own: the restarted server's worker then sees only this test's events.
      const env = { DATA_DIR: dataDir, DATABASE_URL: '', OUTBOUND_ALLOW_CIDRS: ALLOW.join(',') };
      const first = await startServerProcess({ ...env, WEBHOOK_WORKER: 'off' });
      const api = new ApiClient(first.url, { key });
      const path = '/hook-durable';
      expectStatus(await api.call('createWebhook', { body: { url: h.receiver.url(path), event_types: [] } }), 201);
      const folder = expectStatus(await api.call('createFolder', { body: { name: 'kept' } }), 201);
      await first.stop('SIGKILL');
      expect(h.receiver.to(path)).toEqual([]);

      const second = await startServerProcess(env);
      try {
        for (let i = 0; i < 100 && h.receiver.to(path).length === 0; i++) await new Promise((r) => setTimeout(r, 100));
      } finally {
        await second.stop();
      }
      expect(h.receiver.to(path).map((r) => JSON.parse(r.body).data.id)).toEqual([folder.id]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
