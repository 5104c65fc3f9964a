/**
 * The developer pages of the console: API keys (a key shown once, used from outside as a script would,
 * revoked) and the activity log (its entries, filters and CSV download). Webhooks are in
 * developers-webhooks.test.ts.
 */
import { readFile } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { beforeEach, describe, expect, it } from 'vitest';
import * as identity from '../../server/modules/identity/identity.service';
import { SESSION_COOKIE } from '../../server/modules/identity/tokens';
import { browserMissing, expectAccessible, screenshot } from './support/browser';
import { useConsole } from './support/console';
import { layoutWidthAt } from './support/layout';

describe.skipIf(browserMissing)(`the developer pages: API keys and activity${browserMissing}`, () => {
  const t = useConsole();

  describe('API keys', () => {
    let page: Page;
    let key: string;

    /** A request with the key, as curl or a script would send it. */
    const withKey = (path: string, init: RequestInit = {}) =>
      fetch(`${t.server.url}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
      });

    // Once, before the first test (signing in polls, which vitest allows only in a test or its hooks).
    beforeEach(async () => {
      if (page) return;
      page = await t.newPage();
      const email = await t.signIn(page);
      // A paid plan: the key may write (a free plan's keys only read).
      await t.setPlan(email, 'pro');
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.server.url });
      await page.goto('/developers/api-keys');
      await page.getByRole('heading', { name: 'Create a key' }).waitFor();
    });

    it('has no serious accessibility violation before any key exists', async () => {
      await page.getByText('No API keys yet.').waitFor();
      await expectAccessible(page);
    });

    it('links to the API reference', async () => {
      expect(await page.getByRole('main').getByRole('link', { name: 'API reference' }).getAttribute('href')).toBe(
        '/docs',
      );
    });

    it('creates a key with a name and both scopes, and shows its full value with a copy button', async () => {
      await page.getByLabel('Name').fill('CI deploy');
      expect(await page.getByLabel('Read (GET requests)').isChecked()).toBe(true);
      expect(await page.getByLabel('Write (changes)').isChecked()).toBe(true);
      await page.getByRole('button', { name: 'Create API key' }).click();
      const secret = page.getByRole('region', { name: 'API key CI deploy' });
      key = (await secret.getByTestId('secret').textContent()) ?? '';
      expect(key).toMatch(/^svc_[\w-]{64}$/);
      await expectAccessible(page);
      await screenshot(page, 'api-keys');
    });

    it('moves the focus to the new key, for keyboard and screen-reader users', async () => {
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('New key “CI deploy”');
    });

    it('fits the page with a new key in 375 px without scrolling sideways', async () => {
      expect(await layoutWidthAt(page, 375)).toBeLessThanOrEqual(375);
    });

    it('copies the key to the clipboard', async () => {
      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await page.getByRole('button', { name: 'Copied', exact: true }).waitFor();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    });

    it('lists the new key by its prefix, its scopes and "never" used', async () => {
      const row = page.getByRole('row', { name: /CI deploy/ });
      expect(await row.getByRole('cell').allTextContents()).toEqual([
        'CI deploy',
        `${key.slice(0, 12)}…`,
        'read, write',
        expect.any(String),
        'never',
        'Revoke key CI deploy',
      ]);
    });

    it('gives a key that reads with Authorization: Bearer', async () => {
      expect((await withKey('/api/v1/folders')).status).toBe(200);
    });

    it('gives a key that writes with Authorization: Bearer', async () => {
      const created = await withKey('/api/v1/folders', { method: 'POST', body: JSON.stringify({ name: 'From CI' }) });
      expect(created.status).toBe(201);
    });

    it('shows only the prefix after a reload, never the key again', async () => {
      await page.reload();
      await page.getByRole('row', { name: /CI deploy/ }).waitFor();
      expect(await page.getByTestId('secret').count()).toBe(0);
      expect(await page.content()).not.toContain(key);
      expect(
        await page
          .getByRole('row', { name: /CI deploy/ })
          .getByRole('cell')
          .nth(1)
          .textContent(),
      ).toBe(`${key.slice(0, 12)}…`);
    });

    it('shows when the key was last used', async () => {
      const lastUsed = page
        .getByRole('row', { name: /CI deploy/ })
        .getByRole('cell')
        .nth(4);
      await expect
        .poll(async () => {
          await page.reload();
          return lastUsed.textContent();
        })
        .not.toBe('never');
    });

    it('asks for confirmation before revoking', async () => {
      await page.getByRole('button', { name: 'Revoke key CI deploy' }).click();
      const dialog = page.getByRole('dialog', { name: 'Revoke API key' });
      await dialog.getByText('Requests with it are refused at once').waitFor();
      await expectAccessible(page);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect((await withKey('/api/v1/folders')).status).toBe(200);
    });

    it('revokes the key, which is then refused with 401', async () => {
      await page.getByRole('button', { name: 'Revoke key CI deploy' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke CI deploy' }).click();
      await page.getByText('No API keys yet.').waitFor();
      expect((await withKey('/api/v1/folders')).status).toBe(401);
    });

    it('shows the API’s message next to the name it refuses', async () => {
      await page.getByLabel('Name').fill('   ');
      await page.getByRole('button', { name: 'Create API key' }).click();
      const error = page.locator('.field.invalid .field-error');
      expect(await error.textContent()).toBe('must not be empty');
      expect(await page.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
      await expectAccessible(page);
    });

    it('shows the API’s message next to the permissions when none is chosen', async () => {
      await page.getByLabel('Name').fill('No scopes');
      await page.getByLabel('Read (GET requests)').uncheck();
      await page.getByLabel('Write (changes)').uncheck();
      await page.getByRole('button', { name: 'Create API key' }).click();
      const error = page.getByRole('group', { name: 'Permissions' }).locator('.field-error');
      expect(await error.textContent()).toMatch(/\S/);
    });
  });

  describe('API keys by plan and role', () => {
    it('says that keys are read-only on the free plan', async () => {
      const page = await t.newPage();
      await t.signIn(page);
      await page.goto('/developers/api-keys');
      await page.getByText('API keys are read-only on the free plan').waitFor();
    });

    it('shows an editor only their own keys, with the controls to create and revoke them', async () => {
      const org = await t.server.newOrg({ plan: 'pro' });
      const editor = await org.member('editor');
      const page = await t.newPage();
      await page.context().addCookies([{ name: SESSION_COOKIE, value: editor.session, url: t.server.url }]);
      await page.goto('/developers/api-keys');
      await page.getByRole('heading', { name: 'Your keys' }).waitFor();
      // The organisation holds two keys, the admin's and the editor's: the API lists the editor's.
      await page.getByRole('row', { name: /test/ }).first().waitFor();
      expect(await page.getByRole('button', { name: /^Revoke key/ }).count()).toBe(1);
      expect(await page.getByRole('button', { name: 'Create API key' }).isVisible()).toBe(true);
    });

    it('shows a viewer their keys without any control to create or revoke one', async () => {
      const email = `viewer-${Date.now()}@example.test`;
      const viewer = await identity.ensureUser(t.server.database.db, email, { plan: 'pro', role: 'viewer' });
      await identity.createApiKey(t.server.database.db, viewer, 'Dashboard', ['read']);
      const page = await t.newPage();
      await t.signIn(page, email);
      await page.goto('/developers/api-keys');
      await page.getByRole('row', { name: /Dashboard/ }).waitFor();
      expect(await page.getByRole('main').getByRole('button').count()).toBe(0);
      expect(await page.getByRole('main').getByRole('textbox').count()).toBe(0);
      await expectAccessible(page);
    });
  });

  describe('the activity log', () => {
    let page: Page;
    let email: string;
    let folderId: string;

    /** A change made by the signed-in person through the API, with the browser's session. */
    const sessionWrite = async (method: 'post' | 'patch', path: string, data: object) => {
      const response = await page.request[method](`/api/v1${path}`, {
        headers: { 'x-requested-with': 'XMLHttpRequest' },
        data,
      });
      expect(response.status()).toBeLessThan(300);
      return (await response.json()) as { id: string };
    };

    // Once, before the first test (signing in polls, which vitest allows only in a test or its hooks).
    beforeEach(async () => {
      if (page) return;
      page = await t.newPage();
      email = await t.signIn(page);
      folderId = (await sessionWrite('post', '/folders', { name: 'DC' })).id;
      await sessionWrite('patch', `/folders/${folderId}`, { name: 'DC-1' });
      await sessionWrite('post', '/api-keys', { name: 'Reporting', permissions: ['read'] });
      await page.goto('/developers/activity');
      await page.getByRole('table').waitFor();
    });

    const rows = () => page.getByRole('row').filter({ has: page.getByRole('cell') });
    /** The changes cell as read aloud ("to" is for screen readers, the arrow for the eyes). */
    const changesOf = async (row: Locator) =>
      ((await row.getByRole('cell').nth(4).textContent()) ?? '').replace(/\s+/g, ' ');

    it('lists the folder’s creation with who made it and its values as none → value', async () => {
      const created = rows()
        .filter({ hasText: folderId })
        .filter({ has: page.getByRole('cell', { name: 'create' }) });
      expect(await created.getByRole('cell').nth(1).textContent()).toBe(email);
      expect(await changesOf(created)).toContain('name: none → to DC');
      await expectAccessible(page);
    });

    it('shows an update’s changes as old → new', async () => {
      const updated = rows().filter({ has: page.getByRole('cell', { name: 'update' }) });
      expect(await changesOf(updated)).toBe('name: DC → to DC-1');
    });

    it('counts the matching entries', async () => {
      await page.getByText('Rows 1–3 of 3').waitFor();
    });

    it('filters by action, with the values the log holds, and keeps the filter in the URL', async () => {
      await page.getByLabel('Action').selectOption('update');
      await page.getByText('Rows 1–1 of 1').waitFor();
      expect(await rows().count()).toBe(1);
      expect(new URL(page.url()).searchParams.get('action')).toBe('update');
      await expectAccessible(page);
      await screenshot(page, 'activity');
    });

    it('fits the log in 375 px without scrolling sideways', async () => {
      expect(await layoutWidthAt(page, 375)).toBeLessThanOrEqual(375);
    });

    it('offers the users the log has shown, by email', async () => {
      const options = await page.getByLabel('User').locator('option').allTextContents();
      expect(options).toEqual(['All users', email]);
    });

    it('downloads the filtered entries as CSV from the link', async () => {
      const link = page.getByRole('link', { name: 'Download CSV' });
      expect(await link.getAttribute('href')).toBe('/api/v1/activity/export?action=update');
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      const csv = (await readFile(await download.path(), 'utf8')).trim().split('\r\n');
      expect(csv).toHaveLength(2);
      expect(csv[0]).toBe('id,created_at,user_id,user_email,action,resource_type,resource_id,changes');
      expect(csv[1]).toContain(`${email},update,folder,${folderId}`);
    });

    it('filters by resource type and clears the filters', async () => {
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await page.getByText('Rows 1–3 of 3').waitFor();
      await page.getByLabel('Resource type').selectOption('api_key');
      await page.getByText('Rows 1–1 of 1').waitFor();
      expect(await rows().first().getByRole('cell').nth(3).textContent()).toMatch(/^api_key/);
    });

    it('shows the entries of a time range it is given', async () => {
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await page.getByLabel('Since').fill('2000-01-01T00:00');
      await page.getByLabel('Until').fill('2000-01-02T00:00');
      await page.getByText('No activity matches these filters.').waitFor();
      expect(new URL(page.url()).searchParams.get('since')).toMatch(/^1999-12-3|^2000-01-0/);
    });

    it('pages through the log by limit and offset', async () => {
      await page.goto('/developers/activity?limit=50&offset=2');
      await page.getByText('Rows 3–3 of 3').waitFor();
      await page.getByRole('button', { name: 'Previous page' }).click();
      await page.getByText('Rows 1–3 of 3').waitFor();
      expect(await page.getByRole('button', { name: 'Next page' }).isDisabled()).toBe(true);
    });
  });
});
