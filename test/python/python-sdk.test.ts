/**
 * The Python SDK (clients/python) against the real server: this file starts the server on this run's
 * database (PGlite, or PostgreSQL under .ci/with-postgres.sh) with loopback fixtures (Stripe, a DNS
 * resolver), and a small control endpoint on loopback that makes organisations, then runs pytest on
 * test/python with Debian's python3 (`PYTHON` overrides it). Without pytest the check skips, saying so,
 * except under CI.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsFixture, startDnsServer } from '../fixtures/dns';
import { type Site, startTlsSite } from '../fixtures/http-sites';
import { type FakeStripe, startFakeStripe } from '../fixtures/stripe';
import { createPki, type Pki } from '../fixtures/tls';
import { startWhoisServer, type WhoisFixture } from '../fixtures/whois';
import { startTestServer, type TestOrg, type TestServer } from '../support/server';

const root = fileURLToPath(new URL('../..', import.meta.url));
const python = process.env.PYTHON ?? '/usr/bin/python3';
const hasPytest = spawnSync(python, ['-c', 'import pytest'], { stdio: 'ignore' }).status === 0;
const skipped =
  process.env.CI || hasPytest ? '' : ` (skipped: ${python} has no pytest: apt-get install python3-pytest)`;
if (skipped) console.warn(`Python SDK not tested${skipped}`);

/** The zone of the network tools' resolvers: what the SDK's tool calls look up. */
const ZONE = [
  { name: 'example.test', type: 'A' as const, data: '192.0.2.10' },
  { name: 'example.test', type: 'TXT' as const, data: 'v=spf1 ip4:192.0.2.0/24 -all' },
  { name: '_dmarc.example.test', type: 'TXT' as const, data: 'v=DMARC1; p=reject; rua=mailto:d@example.test' },
  { name: '10.2.0.192.in-addr.arpa', type: 'PTR' as const, data: 'example.test' },
  // Team Cymru's answer for /tools/asn.
  { name: 'as13335.asn.cymru.com', type: 'TXT' as const, data: '13335 | US | arin | 2010-07-14 | CLOUDFLARENET, US' },
];

/** What the whois fixture, standing for the root (whois.iana.org), answers: a record that refers nowhere else. */
const WHOIS_ANSWER = 'domain:       EXAMPLE.TEST\r\norganisation: Example Registry\r\ncreated:      2001-01-01\r\n';

/** Reads a JSON request body. */
async function jsonBody(req: NodeJS.ReadableStream): Promise<Record<string, any>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : {};
}

describe.skipIf(skipped)(`the Python SDK against the real server${skipped}`, () => {
  let stripe: FakeStripe;
  let dns: DnsFixture;
  let whois: WhoisFixture;
  /** A site with a certificate the server trusts, speaking HTTP/2 (null without openssl to make the certificates). */
  let pki: Pki | null = null;
  let tlsSite: Site | null = null;
  let server: TestServer;
  let control: Server;
  let controlUrl: string;
  const orgs = new Map<string, TestOrg>();

  beforeAll(async () => {
    stripe = await startFakeStripe();
    dns = await startDnsServer(ZONE);
    whois = await startWhoisServer(() => WHOIS_ANSWER);
    try {
      pki = createPki();
      tlsSite = await startTlsSite({ identity: pki.valid, protocols: 'h2' });
    } catch (error) {
      console.warn(`the Python SDK's TLS tools are tested for their errors only: ${error}`);
    }
    const resolver = { address: dns.address, port: dns.port };
    server = await startTestServer({
      config: {
        outboundAllowCidrs: ['127.0.0.1/32', '127.0.0.2/32'],
        billing: {
          stripeSecretKey: stripe.secretKey,
          stripeWebhookSecret: stripe.webhookSecret,
          prices: stripe.prices,
          stripeApiBase: stripe.url,
          // A new organisation may check out at once (the Python tests verify webhooks on the real clock).
          checkoutCooldownSeconds: 0,
        },
        tools: {
          dnsResolvers: [1, 2, 3].map((i) => ({ label: `Resolver ${i}`, ...resolver, location: 'Loopback' })),
          propagationResolvers: [1, 2].map((i) => ({ label: `Resolver ${i}`, ...resolver, location: 'Loopback' })),
          recursiveResolver: resolver,
          whoisRoot: { host: '127.0.0.1', port: whois.port },
          rdapUrl: 'http://127.0.0.1:9',
          tracerouteBin: 'traceroute',
          maxConcurrentRuns: 32,
          ...(pki ? { extraCa: readFileSync(pki.caFile, 'utf8') } : {}),
        },
      },
    });
    // POST /orgs {plan, limits} → a new organisation's credentials; POST /members {key, role} → a member's.
    control = createServer(async (req, res) => {
      try {
        const body = await jsonBody(req);
        let answer: unknown;
        if (req.url === '/orgs') {
          const org = await server.newOrg({ plan: body.plan, limits: body.limits });
          orgs.set(org.key, org);
          answer = { key: org.key, session: org.session, email: org.email, user_id: org.userId, org_id: org.orgId };
        } else if (req.url === '/members') {
          const member = await orgs.get(body.key)!.member(body.role);
          answer = { key: member.key, session: member.session };
        } else {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      } catch (error) {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      }
    });
    await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
    controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => control?.close(resolve));
    await server?.close();
    await dns?.close();
    await whois?.close();
    await tlsSite?.close();
    pki?.close();
    await stripe?.close();
  });

  it('pytest test/python passes', async () => {
    const child = spawn(
      python,
      [
        '-m',
        'pytest',
        '-q',
        '-p',
        'no:cacheprovider',
        ...(process.env.PYTEST_ARGS ? process.env.PYTEST_ARGS.split(' ') : ['test/python']),
      ],
      {
        cwd: root,
        env: {
          ...process.env,
          PYTHONPATH: `${root}clients/python`,
          PYTHONDONTWRITEBYTECODE: '1',
          IPAM_TEST_BASE_URL: server.url,
          IPAM_TEST_CONTROL_URL: controlUrl,
          IPAM_TEST_STRIPE_WEBHOOK_SECRET: stripe.webhookSecret,
          IPAM_TEST_STRIPE_PRICES: JSON.stringify(stripe.prices),
          IPAM_TEST_TLS_SITE: tlsSite?.hostPort ?? '',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (status !== 0 || process.env.PYTEST_VERBOSE) console.log(output);
    expect(status, output.slice(-6000)).toBe(0);
  }, 300_000);
});
