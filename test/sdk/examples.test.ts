/** The numbered examples run as a user would run them, against the real server, and must succeed. */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../contract/common/enums';
import { type FakeStripe, startFakeStripe } from '../fixtures/stripe';
import { useTestServer } from '../support/factories';
import type { TestServer } from '../support/server';

const examples = readdirSync('examples').filter((f) => /^\d\d-.+\.ts$/.test(f));

async function runExample(server: TestServer, file: string, plan: Plan = 'pro'): Promise<string> {
  const org = await server.newOrg({ plan });
  // A free organisation's key only reads: the billing example then signs in with a session.
  const credentials = plan === 'free' ? { IPAM_SESSION: org.session } : { IPAM_API_KEY: org.key };
  const { stdout } = await promisify(execFile)('node_modules/.bin/tsx', [`examples/${file}`], {
    env: { ...process.env, IPAM_BASE_URL: server.url, ...credentials },
  });
  return stdout;
}

describe('on a server that may deliver webhooks to loopback (OUTBOUND_ALLOW_CIDRS=127.0.0.1/32)', () => {
  const t = useTestServer({ config: { outboundAllowCidrs: ['127.0.0.1/32'] } }, false);

  it('there are the numbered examples', () => {
    expect(examples.map((f) => f.slice(0, 2))).toEqual(['01', '02', '03', '04', '05', '06', '07', '08', '09', '10']);
  });

  it.each(examples)('examples/%s runs to completion', async (file) => {
    const stdout = await runExample(t.server, file);
    expect(stdout.length).toBeGreaterThan(0);
    if (file.startsWith('04-')) expect(stdout).toMatch(/verified ping/);
    if (file.startsWith('09-')) expect(stdout).toMatch(/in step: \d+ subnets/);
    if (file.startsWith('10-')) expect(stdout).toMatch(/still held: 10\.99\.0\.10\d until/);
  });
});

describe('on a server with the default outbound rules', () => {
  const t = useTestServer({}, false);

  it('example 04 falls back to a locally signed event, accepts it and rejects a tampered copy', async () => {
    const stdout = await runExample(t.server, examples.find((f) => f.startsWith('04-'))!);
    expect(stdout).toMatch(/signing a sample event locally/);
    expect(stdout).toMatch(/verified subnet\.created/);
    expect(stdout).toMatch(/genuine → 204/);
    expect(stdout).toMatch(/tampered → 400/);
  });
});

describe('on a server with billing (Stripe on loopback)', () => {
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await startFakeStripe();
  });
  afterAll(() => stripe?.close());
  const t = useTestServer(
    () => ({
      // Organisations made now are past the checkout cooldown on this server's clock.
      now: () => new Date(Date.now() + 3_600_000),
      config: {
        billing: {
          stripeSecretKey: stripe.secretKey,
          stripeWebhookSecret: stripe.webhookSecret,
          prices: stripe.prices,
          stripeApiBase: stripe.url,
          checkoutCooldownSeconds: 600,
        },
      },
    }),
    false,
  );

  it('example 08 starts a checkout for a free organisation and prints its page', async () => {
    const stdout = await runExample(t.server, examples.find((f) => f.startsWith('08-'))!, 'free');
    expect(stdout).toMatch(/is on free/);
    expect(stdout).toMatch(/open https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_\w+ to pay/);
  });
});
