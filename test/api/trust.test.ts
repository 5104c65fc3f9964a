/**
 * Trust inside a team and fairness between callers: account deletion is a person's act, answers behind
 * credentials are never cached, the activity CSV neutralises formulas like every export, heavy work is
 * bounded per caller and per process, and failed authentications are limited per client address.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { HEAVY_PER_CALLER } from '../../contract/common/meta';
import { DEFAULT_AUTH_FAILURES_PER_MINUTE } from '../../server/config';
import { transaction } from '../../server/db/pipeline';
import { clientIp } from '../support/client';
import { parseCsv } from '../support/csv';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';
import type { TestOrg, TestServer } from '../support/server';

/** The service's clock: real time, or moved by a test. */
let offsetMs = 0;
const t = useTestServer(
  // Webhooks here are only created, never delivered to: a closed port on loopback.
  { now: () => new Date(Date.now() + offsetMs), config: { outboundAllowCidrs: ['127.0.0.1/32'] } },
  false,
);

/** `count` activity entries of an organisation, written in one statement (so they share one created_at). */
async function seedActivity(server: TestServer, org: TestOrg, count: number) {
  await server.database.db.execute(sql`
    INSERT INTO activity (org_id, user_id, action, resource_type, resource_id, changes)
    SELECT ${org.orgId}::uuid, ${org.userId}::uuid, 'update', 'subnet', gen_random_uuid(),
      jsonb_build_object('name', jsonb_build_array('old ' || i, 'new ' || i))
    FROM generate_series(1, ${count}) AS i`);
}

describe('DELETE /auth/account', () => {
  it('refuses an API key with 403 session_required, and the organisation and its data stay', async () => {
    const org = await t.server.newOrg();
    expectStatus(await org.api.call('createFolder', { body: { name: 'kept' } }), 201);
    const refused = expectStatus(await org.api.call('deleteAccount'), 403);
    expect(refused.code).toBe('session_required');
    expect(expectStatus(await org.api.call('listFolders'), 200).map((f) => f.name)).toEqual(['kept']);
  });

  it('still deletes the account of a signed-in person', async () => {
    const org = await t.server.newOrg();
    expectStatus(await org.web.call('deleteAccount'), 200);
    expectStatus(await org.api.call('listFolders'), 401);
  });
});

describe('Cache-Control on answers behind credentials', () => {
  it('is no-store on the answer that shows a new API key', async () => {
    const org = await t.server.newOrg();
    const response = await org.api.call('createApiKey', { body: { name: 'ci' } });
    expectStatus(response, 201);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('is no-store on the answers that show a webhook secret (create and rotate)', async () => {
    const org = await t.server.newOrg();
    const created = await org.api.call('createWebhook', { body: { url: 'https://127.0.0.1:9/ipam' } });
    const hook = expectStatus(created, 201);
    const rotated = await org.api.call('rotateWebhookSecret', { params: { id: hook.id } });
    expectStatus(rotated, 200);
    expect([created.headers.get('cache-control'), rotated.headers.get('cache-control')]).toEqual([
      'no-store',
      'no-store',
    ]);
  });

  it('is no-store on /auth/me, on lists and on errors of authenticated routes', async () => {
    const org = await t.server.newOrg();
    const answers = [
      await org.web.call('getCurrentUser'),
      await org.api.call('listSubnets'),
      await org.api.call('getFolder', { params: { id: randomUUID() } }),
      await t.server.anonymous.call('listFolders'),
    ];
    expect(answers.map((r) => [r.status, r.headers.get('cache-control')])).toEqual([
      [200, 'no-store'],
      [200, 'no-store'],
      [404, 'no-store'],
      [401, 'no-store'],
    ]);
  });
});

describe('GET /activity/export', () => {
  it('neutralises a would-be formula in every cell, the member’s email included, with CRLF line ends', async () => {
    const org = await t.server.newOrg({ plan: 'teams' });
    const member = await org.member('editor');
    const email = `-2+3+${randomUUID().slice(0, 8)}@evil.test`;
    const me = expectStatus(await member.api.call('getCurrentUser'), 200);
    await t.server.database.db.execute(sql`UPDATE users SET email = ${email} WHERE id = ${me.user.id}`);
    expectStatus(await member.api.call('createFolder', { body: { name: '=HYPERLINK("http://evil.test")' } }), 201);
    const response = await org.api.call('exportActivity');
    expect(response.text).toMatch(/^id,created_at,.*\r\n/);
    const [, row] = parseCsv(response.text);
    expect(row?.[3]).toBe(`'${email}`);
  });

  it('streams every entry once, newest first, across pages of entries that share one created_at', async () => {
    const org = await t.server.newOrg();
    await seedActivity(t.server, org, 2_500);
    const [, ...rows] = parseCsv(expectStatus(await org.api.call('exportActivity'), 200));
    const ids = rows.map((r) => Number(r[0]));
    expect(new Set(ids).size).toBe(2_500);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });
});

/**
 * An import whose body arrives slowly: a heavy request of its user while in flight, until `end()` (the client
 * goes away); `answered` once the server has answered it (it was refused).
 */
function slowImport(server: TestServer, key: string) {
  const request = httpRequest(`${server.url}/api/v1/import/subnets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': '1000' },
  });
  const upload = { answered: false, end: () => request.destroy() };
  request.on('response', () => {
    upload.answered = true;
  });
  request.on('error', () => {}); // ended by the test
  request.write('{"subnets": [');
  return upload;
}

/**
 * Runs `test` while `count` slow uploads of the user are in flight, ending them however it ends. The server
 * counts an upload once it has authenticated it, so the user's exports are tried until one is refused while no
 * upload was (an upload arriving while a try is in flight may be refused itself: it is then sent again).
 */
async function withUploadsInFlight(org: TestOrg, count: number, test: () => Promise<void>) {
  const held = Array.from({ length: count }, () => slowImport(t.server, org.key));
  try {
    for (const until = Date.now() + 10_000; Date.now() < until; ) {
      for (const [i, upload] of held.entries()) {
        if (!upload.answered) continue;
        upload.end();
        held[i] = slowImport(t.server, org.key);
      }
      const status = (await org.api.call('exportActivity')).status;
      if (status === 429 && held.every((upload) => !upload.answered)) return await test();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error('the uploads were never all in flight');
  } finally {
    for (const upload of held) upload.end();
  }
}

describe('heavy work per user', () => {
  it(`lets one user have ${HEAVY_PER_CALLER} in flight and answers one more 429 too_many_concurrent`, async () => {
    const org = await t.server.newOrg();
    await withUploadsInFlight(org, HEAVY_PER_CALLER, async () => {
      const refused = await org.api.call('exportActivity');
      expect(expectStatus(refused, 429).code).toBe('too_many_concurrent');
      expect(refused.headers.get('retry-after')).toBe('1');
    });
  });

  it(`lets one user have ${HEAVY_PER_CALLER - 1} in flight and one more`, async () => {
    const org = await t.server.newOrg();
    const held = slowImport(t.server, org.key);
    try {
      expectStatus(await org.api.call('exportActivity'), 200);
    } finally {
      held.end();
    }
  });

  it('counts one user’s heavy requests against nobody else, another member included', async () => {
    const org = await t.server.newOrg();
    const other = await org.member('viewer');
    await withUploadsInFlight(org, HEAVY_PER_CALLER, async () => {
      expectStatus(await other.api.call('searchIpam', { query: { q: '10.0.0.1' } }), 200);
      expectStatus(await other.api.call('exportActivity'), 200);
    });
  });

  it('gives a user’s slots back once the client has gone', async () => {
    const org = await t.server.newOrg();
    await withUploadsInFlight(org, HEAVY_PER_CALLER, async () => {});
    let status = 0;
    for (const until = Date.now() + 5000; status !== 200 && Date.now() < until; ) {
      status = (await org.api.call('exportActivity')).status;
    }
    expect(status).toBe(200);
  });
});

// A heavy request held inside its work needs a lock the test holds while others' queries go on: a second
// connection, which PGlite (one connection) has not.
describe.skipIf(!process.env.TEST_DATABASE_URL)('heavy work with one slot in the process (PostgreSQL)', () => {
  const one = useTestServer({ config: { heavyMaxConcurrent: 1 } }, false);

  it('makes a second caller’s export wait its turn while light requests still answer', async () => {
    const a = await one.server.newOrg();
    const b = await one.server.newOrg();
    let release = () => {};
    const locked = new Promise<void>((resolve, reject) => {
      transaction(one.server.database.db, async (tx) => {
        await tx.execute(sql`LOCK TABLE activity IN ACCESS EXCLUSIVE MODE`);
        resolve();
        await new Promise<void>((done) => {
          release = done;
        });
      }).catch(reject);
    });
    await locked;
    // A's export takes the one slot and waits inside it for the activity table.
    const held = a.api.call('exportActivity');
    await new Promise((resolve) => setTimeout(resolve, 100));
    let waitingDone = false;
    const waiting = b.api.call('exportSubnets').then((response) => {
      waitingDone = true;
      return response;
    });
    expectStatus(await b.api.call('listFolders'), 200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(waitingDone).toBe(false);
    release();
    expect([(await held).status, (await waiting).status]).toEqual([200, 200]);
  });
});

describe('failed authentication per client address', () => {
  const limited = useTestServer(
    {
      config: { authFailuresPerMinute: DEFAULT_AUTH_FAILURES_PER_MINUTE },
      now: () => new Date(Date.now() + offsetMs),
    },
    false,
  );
  const unknownKey = () => `svc_${'x'.repeat(56)}${randomUUID().slice(0, 8)}`;
  const tryKey = (ip: string, key = unknownKey()) =>
    limited.server.anonymous.call('listFolders', { as: { key }, headers: { 'x-forwarded-for': ip } });

  it(`answers ${DEFAULT_AUTH_FAILURES_PER_MINUTE} failures 401 and the next request 429 with Retry-After`, async () => {
    const ip = clientIp();
    const statuses = [];
    for (let i = 0; i < DEFAULT_AUTH_FAILURES_PER_MINUTE; i++) statuses.push((await tryKey(ip)).status);
    expect(statuses).toEqual(Array(DEFAULT_AUTH_FAILURES_PER_MINUTE).fill(401));
    const refused = await tryKey(ip);
    expect(expectStatus(refused, 429).code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  // A known key is one in the process's cache, which every process empties whenever any key, session or member
  // changes anywhere (the change feed): on PostgreSQL the other test files' servers change them all the time,
  // so an attempt may lose its cache mid-way and is then rightly refused. Each attempt uses a new address.
  it('keeps answering a known key from that address, and other addresses as before', { retry: 3 }, async () => {
    const org = await limited.server.newOrg();
    const ip = clientIp();
    expectStatus(await org.api.call('listFolders', { headers: { 'x-forwarded-for': ip } }), 200);
    for (let i = 0; i < DEFAULT_AUTH_FAILURES_PER_MINUTE; i++) await tryKey(ip);
    expectStatus(await org.api.call('listFolders', { headers: { 'x-forwarded-for': ip } }), 200);
    expectStatus(await tryKey(clientIp()), 401);
  });

  it('counts afresh in the next minute', async () => {
    const ip = clientIp();
    for (let i = 0; i <= DEFAULT_AUTH_FAILURES_PER_MINUTE; i++) await tryKey(ip);
    expectStatus(await tryKey(ip), 429);
    offsetMs += 60_000;
    try {
      expectStatus(await tryKey(ip), 401);
    } finally {
      offsetMs -= 60_000;
    }
  });

  it('answers a repeated unknown key without looking it up in the database again', async () => {
    const lookups = async () => {
      const text = await (await fetch(`${limited.server.url}/metrics`)).text();
      return Number(/^credential_lookups_total\{result="unknown"\} (\d+)/m.exec(text)?.[1] ?? 0);
    };
    const key = unknownKey();
    const before = await lookups();
    for (let i = 0; i < 5; i++) expectStatus(await tryKey(clientIp(), key), 401);
    expect((await lookups()) - before).toBe(1);
  });
});
