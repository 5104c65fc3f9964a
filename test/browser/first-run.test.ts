/**
 * The README's first path, as a new user takes it: `npm start`'s server in its own process on a new
 * embedded database and no mail server, the sign-in link read from the server's log, then in the console
 * a key, a first subnet and a first allocation, and the key used from outside as curl would, without
 * stopping the server.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type ServerProcess, startServerProcess } from '../support/process';
import { browserMissing, expectAccessible, launchBrowser, screenshot } from './support/browser';

describe.skipIf(browserMissing)(`the first run, from npm start to an allocation${browserMissing}`, () => {
  let dataDir: string;
  let server: ServerProcess;
  let browser: Browser;
  let page: Page;
  let key = '';
  let subnetId = '';

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ipam-first-run-'));
    const port = await freePort();
    // The defaults but the port, the data directory and loopback as the public address (the browser
    // resolves no other name); no SMTP_URL, so sign-in links go to the log.
    server = await startServerProcess(
      { PORT: String(port), DATA_DIR: dataDir, PUBLIC_URL: `http://127.0.0.1:${port}`, SMTP_URL: '' },
      { keepOutput: true },
    );
    browser = await launchBrowser();
    page = await (await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 800 } })).newPage();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('opens on the sign-in page, which says the link goes to the server’s log', async () => {
    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email address').fill('first@example.test');
    await expectAccessible(page);
    await screenshot(page, 'sign-in');
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByText('No mail server is configured on this server.').waitFor();
  });

  it('signs in through the link the server logged, to a new organisation’s start page', async () => {
    const loggedLink = () => /mail to first@example\.test[\s\S]*?(http:\/\/\S+)/.exec(server.output())?.[1];
    await expect.poll(loggedLink).toBeTruthy();
    await page.goto(loggedLink() as string);
    await page.getByRole('heading', { name: 'Getting started' }).waitFor();
    expect(await page.getByText('first@example.test').isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, 'start');
  });

  it('creates an API key from the start page, shown once', async () => {
    await page.getByRole('link', { name: 'Create an API key' }).click();
    await page.getByLabel('Name').fill('laptop');
    await page.getByRole('button', { name: 'Create API key' }).click();
    key = (await page.getByRole('region', { name: 'API key laptop' }).getByTestId('secret').textContent()) ?? '';
    expect(key).toMatch(/^svc_/);
  });

  it('creates a first subnet through the form', async () => {
    await page.getByRole('link', { name: 'Subnets' }).first().click();
    await page.getByRole('button', { name: 'New subnet' }).click();
    const dialog = page.getByRole('dialog', { name: 'New subnet' });
    await dialog.getByLabel('Network', { exact: true }).fill('10.0.0.0/24');
    await dialog.getByLabel('Name', { exact: true }).fill('Office');
    await dialog.getByRole('button', { name: 'Create subnet' }).click();
    await page.getByRole('status').filter({ hasText: 'Created 10.0.0.0/24 (Office).' }).waitFor();
  });

  it('allocates the subnet’s first free address on its page', async () => {
    await page.getByRole('link', { name: '10.0.0.0/24' }).first().click();
    await page.getByRole('heading', { name: '10.0.0.0/24', level: 1 }).waitFor();
    subnetId = new URL(page.url()).pathname.split('/').pop() ?? '';
    await page.getByRole('button', { name: 'Allocate addresses' }).click();
    await page.getByRole('status').filter({ hasText: 'Allocated the address: 10.0.0.1' }).waitFor();
  });

  it('reads the allocation back with the key, as a script would, the server still running', async () => {
    const response = await fetch(`${server.url}/api/v1/subnets/${subnetId}/addresses`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
    const addresses = (await response.json()) as { ip: string; status: string }[];
    expect(addresses.map(({ ip, status }) => [ip, status])).toEqual([['10.0.0.1', 'assigned']]);
  });

  it('lays every page out within 375 px and 1440 px: the menu behind a button on a phone, beside the page on a desktop', async () => {
    const paths = [
      '/',
      '/subnets',
      `/subnets/${subnetId}`,
      '/folders',
      '/vlans',
      '/vrfs',
      '/locations',
      '/search?q=10.0',
    ]
      .concat(['/import-export', '/developers/api-keys', '/developers/webhooks', '/developers/activity'])
      .concat(['/billing', '/team', '/account']);
    const nav = page.getByRole('navigation', { name: 'Console' });
    const menu = page.getByRole('button', { name: 'Menu' });
    const widths = [375, 1440];
    const laidOut = new Map<string, number>();
    for (const width of widths) {
      await page.setViewportSize({ width, height: 800 });
      for (const path of paths) {
        await page.goto(path);
        await page.getByRole('heading', { level: 1 }).waitFor();
        await expect.poll(() => page.getByText('Loading…').count()).toBe(0);
        laidOut.set(`${path} at ${width}`, await page.evaluate(() => document.documentElement.scrollWidth));
      }
      expect(await menu.isVisible()).toBe(width === 375);
      expect(await nav.isVisible()).toBe(width === 1440);
    }
    // The page is as wide as the window: nothing scrolls sideways.
    expect(Object.fromEntries(laidOut)).toEqual(
      Object.fromEntries(widths.flatMap((width) => paths.map((path) => [`${path} at ${width}`, width]))),
    );
    await page.setViewportSize({ width: 375, height: 800 });
    await menu.click();
    await nav.getByRole('link', { name: 'Team' }).click();
    await page.getByRole('heading', { name: 'Team', level: 1 }).waitFor();
    expect(await nav.isVisible()).toBe(false);
  });
});
