/**
 * Webhooks in the console, against a real receiver on loopback (the server allows plain http to
 * 127.0.0.1/32 only). The in-process server runs no delivery worker: as in test/api/webhook-delivery.test.ts,
 * the test drives one by hand with runOnce(), limited to this file's organisations.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../contract/webhooks.contract';
import * as identity from '../../server/modules/identity/identity.service';
import { createWebhookWorker, type WebhookWorker } from '../../server/modules/webhooks/events/worker';
import { type Receiver, startReceiver } from '../fixtures/receiver';
import { browserMissing, expectAccessible, screenshot } from './support/browser';
import { orgIdOf, useConsole } from './support/console';
import { layoutWidthAt } from './support/layout';

const ALLOW = ['127.0.0.1/32'];

describe.skipIf(browserMissing)(`webhooks in the console${browserMissing}`, () => {
  const t = useConsole({ config: { outboundAllowCidrs: ALLOW } });
  const orgIds = new Set<string>();
  let receiver: Receiver;
  let worker: WebhookWorker;
  beforeAll(async () => {
    receiver = await startReceiver();
    worker = createWebhookWorker({
      db: t.server.database.db,
      allowCidrs: ALLOW,
      resolveHost: async () => [],
      timeoutMs: 2000,
      orgIds,
    });
  });
  afterAll(() => receiver?.close());

  describe('an admin', () => {
    let page: Page;
    let firstSecret: string;
    const url = () => receiver.url('/hook');
    /** A request of the signed-in admin (the session's cookie, with the header the API asks of a cookie's writes). */
    const sessionPost = (path: string, data: object) =>
      page.request.post(`/api/v1${path}`, { headers: { 'x-requested-with': 'XMLHttpRequest' }, data });

    // Once, before the first test (signing in polls, which vitest allows only in a test or its hooks).
    beforeEach(async () => {
      if (page) return;
      page = await t.newPage();
      const email = await t.signIn(page);
      orgIds.add(await orgIdOf(t.server, email));
      await page.goto('/developers/webhooks');
      await page.getByRole('heading', { name: 'Add an endpoint' }).waitFor();
    });

    it('has no serious accessibility violation before any endpoint exists', async () => {
      await page.getByText('No webhook endpoints yet.').waitFor();
      await expectAccessible(page);
    });

    it('shows the API’s 400 next to the URL for plain http to an address the server does not allow', async () => {
      const refused = 'http://127.0.0.2:9/hook';
      const answer = await sessionPost('/webhooks', { url: refused });
      expect(answer.status()).toBe(400);
      const { error } = (await answer.json()) as { error: string };
      await page.getByLabel('Endpoint URL').fill(refused);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const shown = page.locator('.field.invalid .field-error');
      expect(`url: ${await shown.textContent()}`).toBe(error);
      await expectAccessible(page);
    });

    it('offers every event type the API sends but the test’s ping', async () => {
      await page.getByLabel('Only the events chosen').check();
      const offered = page.getByRole('group', { name: 'Events to send' }).getByRole('checkbox');
      const ids = await Promise.all((await offered.all()).map((box) => box.getAttribute('id')));
      const labels = await Promise.all(ids.map((id) => page.locator(`label[for="${id}"]`).textContent()));
      expect(labels).toEqual(WEBHOOK_EVENT_TYPES.filter((type) => type !== 'ping'));
    });

    it('asks for an event type when “only the events chosen” has none', async () => {
      await page.getByLabel('Endpoint URL').fill(url());
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByText('Choose at least one event type, or every event').waitFor();
    });

    it('adds an endpoint for the events chosen and shows its signing secret once', async () => {
      await page.getByLabel('Description').fill('Receiver on loopback');
      await page.getByLabel('folder.created').check();
      await page.getByLabel('folder.updated').check();
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = page.getByRole('region', { name: `Signing secret of ${url()}` });
      firstSecret = (await secret.getByTestId('secret').textContent()) ?? '';
      expect(firstSecret).toMatch(/^whsec_/);
      await expectAccessible(page);
    });

    it('lists the endpoint with its description, events, status and failures, without the secret', async () => {
      await page.getByRole('button', { name: 'Done, I have copied the secret' }).click();
      const row = page.getByRole('row', { name: /Receiver on loopback/ });
      expect((await row.getByRole('cell').allTextContents()).slice(0, 5)).toEqual([
        url(),
        'Receiver on loopback',
        'folder.createdfolder.updated',
        'active',
        '0',
      ]);
      expect(await page.content()).not.toContain(firstSecret);
    });

    it('fits the list and the form in 375 px without scrolling sideways', async () => {
      expect(await layoutWidthAt(page, 375)).toBeLessThanOrEqual(375);
    });

    it('opens the webhook’s page from the list', async () => {
      await page.getByRole('link', { name: url() }).click();
      await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
      await page.getByText('No deliveries yet.').waitFor();
      await expectAccessible(page);
    });

    it('sends a test event and shows the endpoint’s 2xx status and the duration', async () => {
      await page.getByRole('button', { name: 'Send test event' }).click();
      await page.getByText('Test event delivered').waitFor();
      expect(await page.getByText(/The endpoint answered 200 in \d+ ms\./).count()).toBe(1);
      expect(receiver.to('/hook').map((request) => JSON.parse(request.body).type)).toEqual(['ping']);
    });

    it('lists a change it delivered in the history, with its status, response, duration, attempt and time', async () => {
      const folder = await sessionPost('/folders', { name: 'Delivered' });
      expect(folder.status()).toBe(201);
      expect(await worker.runOnce()).toBe(1);
      await page.getByRole('button', { name: 'Refresh deliveries' }).click();
      const row = page.getByRole('row', { name: /folder\.created/ });
      await row.waitFor();
      const cells = await row.getByRole('cell').allTextContents();
      expect(cells.slice(0, 5)).toEqual(['folder.created', 'delivered', '200', expect.stringMatching(/^\d+ ms$/), '1']);
      expect(cells[5]).toMatch(/\d/);
      await expectAccessible(page);
      await page.evaluate(() => window.scrollTo(0, 0));
      await screenshot(page, 'webhook');
    });

    it('pages the history by 50 or 100', async () => {
      await page.getByText('Rows 1–2').waitFor();
      const perPage = page.getByLabel('Per page');
      expect(await perPage.locator('option').allTextContents()).toEqual(['50', '100']);
      await perPage.selectOption('100');
      expect(new URL(page.url()).searchParams.get('limit')).toBe('100');
      expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    });

    it('fits the webhook’s page in 375 px without scrolling sideways', async () => {
      expect(await layoutWidthAt(page, 375)).toBeLessThanOrEqual(375);
    });

    it('shows a failed test as the API gave it (502 and its message)', async () => {
      receiver.on('/hook', { status: 500 });
      await page.getByRole('button', { name: 'Send test event' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'An upstream did not answer' });
      await alert.getByText('The test event was not accepted: the endpoint answered 500').waitFor();
      receiver.on('/hook', { status: 200 });
      await expectAccessible(page);
    });

    it('asks for confirmation before rotating the secret', async () => {
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      const dialog = page.getByRole('dialog', { name: 'Rotate the signing secret' });
      await dialog.getByText('The current secret stops working at once').waitFor();
      await expectAccessible(page);
    });

    it('rotates the secret and shows the new one once', async () => {
      await page.getByRole('button', { name: 'Rotate secret now' }).click();
      const secret = page.getByRole('region', { name: `New signing secret of ${url()}` });
      const rotated = (await secret.getByTestId('secret').textContent()) ?? '';
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(firstSecret);
      await page.reload();
      await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
      expect(await page.getByTestId('secret').count()).toBe(0);
    });

    it('saves the description, the event types and switching it off', async () => {
      await page.getByLabel('Description').fill('Switched off');
      await page.getByLabel('Every event, including types added later').check();
      await page.getByLabel('Active: send events to this endpoint').uncheck();
      await page.getByRole('button', { name: 'Save webhook' }).click();
      await page.getByText('Saved.').waitFor();
      const summary = page.locator('dl.summary');
      expect(await summary.getByText('off', { exact: true }).isVisible()).toBe(true);
      expect(await summary.getByText('all', { exact: true }).isVisible()).toBe(true);
    });

    it('asks for confirmation before deleting, saying the delivery history goes too', async () => {
      await page.getByRole('button', { name: 'Delete webhook' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete webhook' });
      await dialog.getByText('its delivery history is deleted with it').waitFor();
      await expectAccessible(page);
    });

    it('deletes the webhook and goes back to the list', async () => {
      await page.getByRole('button', { name: 'Delete webhook and its history' }).click();
      await page.getByText('No webhook endpoints yet.').waitFor();
      expect(new URL(page.url()).pathname).toBe('/developers/webhooks');
    });

    it('shows the plan’s limit (402) by the form, with the way to upgrade', async () => {
      // The free plan holds two webhooks.
      for (const path of ['/one', '/two']) {
        const answer = await sessionPost('/webhooks', { url: receiver.url(path) });
        expect(answer.status()).toBe(201);
      }
      await page.reload();
      await page.getByLabel('Endpoint URL').fill(receiver.url('/three'));
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Plan limit reached' });
      await alert.getByRole('link', { name: 'See plans and upgrade' }).waitFor();
      await expectAccessible(page);
    });
  });

  describe.each(['editor', 'viewer'] as const)('a member who is not an admin (%s)', (role) => {
    let page: Page;
    // Once, before the first test (signing in polls, which vitest allows only in a test or its hooks).
    beforeEach(async () => {
      if (page) return;
      const email = `${role}-${Date.now()}@example.test`;
      await identity.ensureUser(t.server.database.db, email, { plan: 'pro', role });
      page = await t.newPage();
      await t.signIn(page, email);
    });

    it('is told that admins manage webhooks, with no control to change one', async () => {
      await page.goto('/developers/webhooks');
      await page.getByText('Webhooks are managed by admins').waitFor();
      expect(await page.getByRole('main').getByRole('button').count()).toBe(0);
      expect(await page.getByRole('main').getByRole('textbox').count()).toBe(0);
      await expectAccessible(page);
    });

    it('is told the same on a webhook’s page', async () => {
      await page.goto('/developers/webhooks/3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f');
      await page.getByText('Webhooks are managed by admins').waitFor();
      expect(await page.getByRole('main').getByRole('button').count()).toBe(0);
    });
  });
});
