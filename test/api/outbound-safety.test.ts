/**
 * The shared outbound-safety layer: the refused-address table (pure, no traffic), and through HTTP the
 * refusal of every URL form that reaches a refused address. Only the second loopback receiver
 * (127.0.0.2/32) is allowed, so 127.0.0.1 and every other loopback form stay refused. Injected resolvers
 * answer only loopback addresses or refused ones that are never contacted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRefusedAddress, postJson } from '../../server/net/outbound';
import { type Receiver, startReceiver } from '../fixtures/receiver';
import { useTestServer } from '../support/factories';
import { expectStatus } from '../support/observed';

describe('isRefusedAddress (pure)', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.0.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.127.255.255', 'CGNAT'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['240.0.0.1', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.1', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['fc00::1', 'unique-local'],
    ['fdff::1', 'unique-local'],
    ['169.254.169.254', 'cloud metadata'],
    ['fd00:ec2::254', 'cloud metadata'],
    // IPv4-mapped
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped cloud metadata'],
    // 6to4: the IPv4 address follows 2002:
    ['2002:7f00:1::', '6to4 loopback'],
    ['2002:a00:1::1', '6to4 private'],
    ['2002:a9fe:a9fe::1', '6to4 cloud metadata'],
    // Teredo: the client's IPv4 address, inverted, in the last 32 bits (~127.0.0.1 = 80ff:fffe)
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo loopback'],
    ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo private'],
    // NAT64
    ['64:ff9b::7f00:1', 'NAT64 loopback'],
    ['64:ff9b::10.0.0.1', 'NAT64 private'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 cloud metadata'],
    ['64:ff9b:1::a00:1', 'local-use NAT64'],
  ])('refuses %s as %s', (ip, reason) => {
    expect(isRefusedAddress(ip, [])).toBe(reason);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '::ffff:8.8.8.8',
    '2002:808:808::1',
    '64:ff9b::8.8.8.8',
    // Teredo with a public client (~8.8.8.8 = f7f7:f7f7) and a public server
    '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
  ])('allows the public address %s', (ip) => {
    expect(isRefusedAddress(ip, [])).toBeNull();
  });

  it('lets OUTBOUND_ALLOW_CIDRS permit exactly its ranges', () => {
    expect(isRefusedAddress('127.0.0.2', ['127.0.0.2/32'])).toBeNull();
    expect(isRefusedAddress('127.0.0.1', ['127.0.0.2/32'])).toBe('loopback');
    expect(isRefusedAddress('10.1.2.3', ['10.1.0.0/16'])).toBeNull();
    expect(isRefusedAddress('10.2.0.1', ['10.1.0.0/16'])).toBe('private');
  });

  it('does not let an IPv4 allow entry permit its IPv6 forms', () => {
    expect(isRefusedAddress('::ffff:127.0.0.2', ['127.0.0.2/32'])).toBe('IPv4-mapped loopback');
  });

  it('refuses what is not an address', () => {
    expect(isRefusedAddress('fe80::1%eth0', [])).toBe('invalid');
    expect(isRefusedAddress('localhost', [])).toBe('invalid');
  });
});

describe('through HTTP', () => {
  let allowed: Receiver;
  let other: Receiver;
  /** What the injected resolver answers; names not listed do not resolve. */
  const names = new Map<string, string[]>();

  beforeAll(async () => {
    allowed = await startReceiver('127.0.0.2');
    other = await startReceiver('127.0.0.1');
    names.set('localhost', ['127.0.0.1']);
  });
  afterAll(async () => {
    await allowed?.close();
    await other?.close();
  });
  const t = useTestServer(
    { config: { outboundAllowCidrs: ['127.0.0.2/32'] }, resolveHost: async (host) => names.get(host) ?? [] },
    false,
  );

  const createWith = async (url: string) => {
    const org = await t.server.newOrg();
    return { org, response: await org.api.call('createWebhook', { body: { url } }) };
  };

  it('accepts the allowed receiver’s address over http', async () => {
    const { org, response } = await createWith(allowed.url('/accepted'));
    const { id } = expectStatus(response, 201);
    expectStatus(await org.api.call('testWebhook', { params: { id } }), 200);
    expect(allowed.to('/accepted')).toHaveLength(1);
  });

  it.each([
    ['127.0.0.1 (only 127.0.0.2 allowed)', () => other.url('/x'), 'resolves to 127.0.0.1, a loopback address'],
    ['127.0.0.1 over https', () => `https://127.0.0.1:${other.port}/x`, 'a loopback address'],
    ['[::1]', () => `http://[::1]:${other.port}/x`, 'resolves to ::1, a loopback address'],
    ['[::ffff:127.0.0.1]', () => `http://[::ffff:127.0.0.1]:${other.port}/x`, 'an IPv4-mapped loopback address'],
    [
      '[::ffff:127.0.0.2], the allowed address mapped',
      () => `http://[::ffff:127.0.0.2]:${allowed.port}/x`,
      'IPv4-mapped loopback',
    ],
    ['a decimal IPv4 form (2130706433)', () => `http://2130706433:${other.port}/x`, 'resolves to 127.0.0.1'],
    ['169.254.169.254', () => 'http://169.254.169.254/latest/meta-data', 'a cloud metadata address'],
    ['10.0.0.1', () => 'https://10.0.0.1/hook', 'a private address'],
    ['100.64.0.1', () => 'https://100.64.0.1/hook', 'a CGNAT address'],
    ['[64:ff9b::7f00:1]', () => 'https://[64:ff9b::7f00:1]/hook', 'a NAT64 loopback address'],
    [
      'localhost (resolving to 127.0.0.1)',
      () => `http://localhost:${other.port}/x`,
      'resolves to 127.0.0.1, a loopback',
    ],
    ['a name that does not resolve', () => 'https://nowhere.test/hook', 'does not resolve'],
    ['credentials in the URL', () => `http://user:pass@127.0.0.2:${allowed.port}/x`, 'must not contain credentials'],
  ])('refuses %s (400)', async (_, url, message) => {
    const { response } = await createWith(url());
    const error = expectStatus(response, 400);
    expect(error).toMatchObject({ code: 'validation' });
    expect(error.error).toMatch(/^url: /);
    expect(error.error).toContain(message);
    expect(other.requests).toEqual([]);
  });

  it('refuses a name when any of its addresses is refused', async () => {
    names.set('mixed.test', ['127.0.0.2', '10.0.0.1']);
    const error = expectStatus((await createWith(`http://mixed.test:${allowed.port}/x`)).response, 400);
    expect(error.error).toBe('url: resolves to 10.0.0.1, a private address');
  });

  it('refuses at delivery a name that resolves to a refused address after creation, sending nothing', async () => {
    names.set('rebinding.test', ['127.0.0.2']);
    const { org, response } = await createWith(`http://rebinding.test:${allowed.port}/rebinding`);
    const { id } = expectStatus(response, 201);
    // While it resolves to the allowed receiver the ping arrives, through the address checked.
    expectStatus(await org.api.call('testWebhook', { params: { id } }), 200);
    expect(allowed.to('/rebinding')).toHaveLength(1);
    names.set('rebinding.test', ['10.0.0.1']);
    const failed = expectStatus(await org.api.call('testWebhook', { params: { id } }), 502);
    expect(failed.error).toContain('resolves to 10.0.0.1, a private address');
    expect(allowed.to('/rebinding')).toHaveLength(1);
    const deliveries = expectStatus(await org.api.call('listWebhookDeliveries', { params: { id } }), 200);
    expect(deliveries.map((d: { response_status: number | null }) => d.response_status)).toEqual([null, 200]);
  });

  describe('postJson', () => {
    const policy = () => ({ allowCidrs: ['127.0.0.2/32'], resolveHost: async (h: string) => names.get(h) ?? [] });

    it('gives up on a slow receiver after its timeout (status null)', async () => {
      allowed.on('/slow', { delayMs: 2000 });
      const result = await postJson(allowed.url('/slow'), '{}', {}, policy(), 200);
      expect(result.status).toBeNull();
      expect(result.error).toContain('no response within 200 ms');
      expect(result.durationMs).toBeLessThan(1500);
    });

    it('answers a redirect as its status without following it', async () => {
      allowed.on('/moved', { redirect: allowed.url('/target'), status: 302 });
      expect((await postJson(allowed.url('/moved'), '{}', {}, policy())).status).toBe(302);
      expect(allowed.to('/target')).toEqual([]);
    });

    it('never throws for a refused URL', async () => {
      const result = await postJson('https://169.254.169.254/', '{}', {}, policy());
      expect(result).toMatchObject({ status: null, error: expect.stringContaining('cloud metadata') });
    });
  });
});
