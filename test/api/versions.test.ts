/**
 * Versions of single resources (server/versions.ts): every single-resource GET answers a strong `ETag` of its
 * representation and a 304 to `If-None-Match` holding it; PATCH answers the new version; PATCH and DELETE
 * with `If-Match` change only that version, else 412 `precondition_failed` naming the current one, with
 * nothing written. Each versioned route of each resource, through HTTP.
 */
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { createSubnet, useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

const t = useTestServer({ config: { outboundAllowCidrs: ['127.0.0.1/32'] } });

type Ops = { get: string; update: string; remove: string };
interface Resource {
  name: string;
  ops: Ops;
  /** Makes one and answers its id. */
  make: (api: ApiClient, n: number) => Promise<string>;
  /** A PATCH body that changes it. */
  change: (n: number) => Record<string, unknown>;
}

let serial = 0;
const made = async (api: ApiClient, op: string, body: Record<string, unknown>) =>
  (expectStatus(await api.call(op as 'createFolder', { body: body as never }), 201) as { id: string }).id;

const resources: Resource[] = [
  {
    name: 'subnet',
    ops: { get: 'getSubnet', update: 'updateSubnet', remove: 'deleteSubnet' },
    make: async (api, n) => (await createSubnet(api, `10.${n >> 8}.${n & 255}.0/24`)).id,
    change: (n) => ({ name: `net ${n}` }),
  },
  {
    name: 'address',
    ops: { get: 'getAddress', update: 'updateAddress', remove: 'deleteAddress' },
    make: async (api, n) => {
      const subnet = await createSubnet(api, `172.16.${n & 255}.0/24`);
      return (
        expectStatus(
          await api.call('createAddress', { params: { id: subnet.id }, body: { ip: `172.16.${n & 255}.10` } }),
          201,
        ) as { id: string }
      ).id;
    },
    change: (n) => ({ hostname: `host-${n}` }),
  },
  {
    name: 'VLAN',
    ops: { get: 'getVlan', update: 'updateVlan', remove: 'deleteVlan' },
    make: (api, n) => made(api, 'createVlan', { vlan_number: 1 + (n % 4000) }),
    change: (n) => ({ name: `vlan ${n}` }),
  },
  {
    name: 'VRF',
    ops: { get: 'getVrf', update: 'updateVrf', remove: 'deleteVrf' },
    make: (api, n) => made(api, 'createVrf', { name: `vrf-${n}` }),
    change: (n) => ({ description: `vrf ${n}` }),
  },
  {
    name: 'folder',
    ops: { get: 'getFolder', update: 'updateFolder', remove: 'deleteFolder' },
    make: (api, n) => made(api, 'createFolder', { name: `folder-${n}` }),
    change: (n) => ({ description: `folder ${n}` }),
  },
  {
    name: 'location',
    ops: { get: 'getLocation', update: 'updateLocation', remove: 'deleteLocation' },
    make: (api, n) => made(api, 'createLocation', { name: `site-${n}` }),
    change: (n) => ({ address: `street ${n}` }),
  },
  {
    name: 'webhook',
    ops: { get: 'getWebhook', update: 'updateWebhook', remove: 'deleteWebhook' },
    make: (api, n) => made(api, 'createWebhook', { url: `http://127.0.0.1:9/hook-${n}` }),
    change: (n) => ({ description: `hook ${n}` }),
  },
];

/** Calls an operation of the resource by name: the operations differ per resource, their shape does not. */
const call = (
  api: ApiClient,
  op: string,
  id: string,
  options: { body?: unknown; headers?: Record<string, string> } = {},
) => api.call(op as 'getFolder', { params: { id }, ...(options as object) });

const etagOf = async (api: ApiClient, r: Resource, id: string) => {
  const answer = await call(api, r.ops.get, id);
  expect(answer.status).toBe(200);
  return answer.headers.get('etag') as string;
};

describe.each(resources)('versions of a $name', (r) => {
  it('GET answers a strong ETag, the same while nothing changes', async () => {
    const id = await r.make(t.org.api, ++serial);
    const etag = await etagOf(t.org.api, r, id);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(await etagOf(t.org.api, r, id)).toBe(etag);
  });

  it('304 without a body to If-None-Match holding the current version (or *, or it weak), else 200', async () => {
    const id = await r.make(t.org.api, ++serial);
    const etag = await etagOf(t.org.api, r, id);
    for (const held of [etag, `"other", ${etag}`, `W/${etag}`, '*']) {
      const answer = await call(t.org.api, r.ops.get, id, { headers: { 'if-none-match': held } });
      expect([held, answer.status, answer.text, answer.headers.get('etag')]).toEqual([held, 304, '', etag]);
      expectStatus(answer as never, 304);
    }
    const stale = await call(t.org.api, r.ops.get, id, { headers: { 'if-none-match': '"other"' } });
    expect(stale.status).toBe(200);
  });

  it('PATCH answers the new version, the one GET then answers', async () => {
    const id = await r.make(t.org.api, ++serial);
    const before = await etagOf(t.org.api, r, id);
    const patched = await call(t.org.api, r.ops.update, id, {
      body: r.change(++serial),
      headers: { 'if-match': before },
    });
    expect(patched.status).toBe(200);
    const after = patched.headers.get('etag');
    expect(after).not.toBe(before);
    expect(await etagOf(t.org.api, r, id)).toBe(after);
  });

  it('PATCH with a stale If-Match: 412 naming the current version, nothing written', async () => {
    const id = await r.make(t.org.api, ++serial);
    const first = await etagOf(t.org.api, r, id);
    expect((await call(t.org.api, r.ops.update, id, { body: r.change(++serial) })).status).toBe(200);
    const current = await etagOf(t.org.api, r, id);
    const bodyBefore = (await call(t.org.api, r.ops.get, id)).text;
    const refused = await call(t.org.api, r.ops.update, id, {
      body: r.change(++serial),
      headers: { 'if-match': first },
    });
    expect(refused.status).toBe(412);
    expect(refused.headers.get('etag')).toBe(current);
    expect(expectStatus(refused as never, 412)).toMatchObject({ code: 'precondition_failed' });
    expect((refused.body as { error: string }).error).toContain(current);
    expect((await call(t.org.api, r.ops.get, id)).text).toBe(bodyBefore);
  });

  it('a weak tag never matches If-Match; * and a list holding the current version do', async () => {
    const id = await r.make(t.org.api, ++serial);
    const etag = await etagOf(t.org.api, r, id);
    const weak = await call(t.org.api, r.ops.update, id, {
      body: r.change(++serial),
      headers: { 'if-match': `W/${etag}` },
    });
    expect(weak.status).toBe(412);
    const listed = await call(t.org.api, r.ops.update, id, {
      body: r.change(++serial),
      headers: { 'if-match': `"other", ${etag}` },
    });
    expect(listed.status).toBe(200);
    const any = await call(t.org.api, r.ops.update, id, { body: r.change(++serial), headers: { 'if-match': '*' } });
    expect(any.status).toBe(200);
  });

  it('DELETE with a stale If-Match: 412 and the resource stays; with the current one: 204', async () => {
    const id = await r.make(t.org.api, ++serial);
    const first = await etagOf(t.org.api, r, id);
    expect((await call(t.org.api, r.ops.update, id, { body: r.change(++serial) })).status).toBe(200);
    const refused = await call(t.org.api, r.ops.remove, id, { headers: { 'if-match': first } });
    expect(expectStatus(refused as never, 412)).toMatchObject({ code: 'precondition_failed' });
    const current = await etagOf(t.org.api, r, id);
    expect(refused.headers.get('etag')).toBe(current);
    expect((await call(t.org.api, r.ops.remove, id, { headers: { 'if-match': current } })).status).toBe(204);
    expect((await call(t.org.api, r.ops.get, id)).status).toBe(404);
  });

  it("another organisation's resource is a 404 whatever the If-Match", async () => {
    const id = await r.make(t.org.api, ++serial);
    const etag = await etagOf(t.org.api, r, id);
    const other = await t.server.newOrg();
    for (const op of [r.ops.update, r.ops.remove]) {
      const answer = await call(other.api, op, id, { body: r.change(++serial), headers: { 'if-match': etag } });
      expect(answer.status).toBe(404);
    }
    const read = await call(other.api, r.ops.get, id, { headers: { 'if-none-match': etag } });
    expect(read.status).toBe(404);
  });

  it('two writers PATCH with the same If-Match at once: exactly one 200 and one 412', async () => {
    const id = await r.make(t.org.api, ++serial);
    const etag = await etagOf(t.org.api, r, id);
    const answers = await Promise.all(
      [1, 2].map(() => call(t.org.api, r.ops.update, id, { body: r.change(++serial), headers: { 'if-match': etag } })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
  });
});

describe('the version of a subnet', () => {
  it('moves on when an address is added to it: its utilization is part of its representation', async () => {
    const subnet = await createSubnet(t.org.api, '192.168.77.0/24');
    const before = (await t.org.api.call('getSubnet', { params: { id: subnet.id } })).headers.get('etag');
    expectStatus(
      await t.org.api.call('createAddress', { params: { id: subnet.id }, body: { ip: '192.168.77.5' } }),
      201,
    );
    const answer = await t.org.api.call('getSubnet', {
      params: { id: subnet.id },
      headers: { 'if-none-match': before as string },
    });
    expect(answer.status).toBe(200);
    const refused = await t.org.api.call('updateSubnet', {
      params: { id: subnet.id },
      body: { name: 'x' },
      headers: { 'if-match': before as string },
    });
    expect(refused.status).toBe(412);
  });

  it('an If-Match longer than 4,096 characters is a 400 naming the header', async () => {
    const subnet = await createSubnet(t.org.api, '192.168.78.0/24');
    const long = `"${'a'.repeat(4094)}"`;
    const ok = await t.org.api.call('updateSubnet', {
      params: { id: subnet.id },
      body: { name: 'x' },
      headers: { 'if-match': long },
    });
    expect(ok.status).toBe(412);
    const answer = await t.org.api.call('updateSubnet', {
      params: { id: subnet.id },
      body: { name: 'x' },
      headers: { 'if-match': `${long}a` },
    });
    expect(answer.status).toBe(400);
    expect((answer.body as { error: string }).error).toMatch(/if-match/);
  });

  it('an If-None-Match longer than 4,096 characters is a 400 naming the header', async () => {
    const subnet = await createSubnet(t.org.api, '192.168.79.0/24');
    const long = `"${'a'.repeat(4094)}"`;
    const read = (tag: string) =>
      t.org.api.call('getSubnet', { params: { id: subnet.id }, headers: { 'if-none-match': tag } });
    expect((await read(long)).status).toBe(200);
    const answer = await read(`${long}a`);
    expect(answer.status).toBe(400);
    expect((answer.body as { error: string }).error).toMatch(/if-none-match/);
  });
});
