/**
 * Every kind of answer the API refuses with, shown where it was asked, as the API gave it: 400 next to the
 * field, 402 with the limit and the plan that lifts it, 403 with the role needed, 404, 429 with when to retry.
 */
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { inOneMinuteWindow } from '../support/client';
import { browserMissing, expectAccessible } from './support/browser';
import { useConsole } from './support/console';

describe.skipIf(browserMissing)(`errors in the console${browserMissing}`, () => {
  const t = useConsole();

  /** Opens the folder dialog and sends `name`; answers the dialog. */
  async function createFolder(page: Page, name: string) {
    await page.getByRole('button', { name: 'New folder' }).click();
    const dialog = page.getByRole('dialog', { name: 'New folder' });
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByRole('button', { name: 'Create folder' }).click();
    return dialog;
  }

  it('puts a 400 next to the field it names', async () => {
    const org = await t.server.newOrg();
    const page = await t.pageAs(org.session);
    await page.goto('/folders');
    const dialog = await createFolder(page, 'x'.repeat(201));
    await dialog.locator('.field-error').waitFor();
    expect(await dialog.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page);
  });

  it('shows a 402 with the limit and the plan that lifts it, and the way to upgrade', async () => {
    const org = await t.server.newOrg({ plan: 'free' });
    for (let i = 0; i < 5; i++) await org.web.call('createFolder', { body: { name: `f${i}` } });
    const page = await t.pageAs(org.session);
    await page.goto('/folders');
    const dialog = await createFolder(page, 'one more');
    const notice = dialog.getByRole('alert');
    await notice.getByText('Upgrade to the pro plan (unlimited folders) to add more.').waitFor();
    expect(await notice.getByRole('link', { name: 'See plans and upgrade' }).getAttribute('href')).toBe('/billing');
  });

  it('shows a 403 with the role needed when the person’s role was lowered while the page was open', async () => {
    const org = await t.server.newOrg({ plan: 'teams' });
    const editor = await org.member('editor');
    const page = await t.pageAs(editor.session);
    await page.goto('/folders');
    await page.getByRole('button', { name: 'New folder' }).waitFor();
    const me = await page.request.get('/api/v1/auth/me');
    const userId = (await me.json()).user.id as string;
    await t.server.database.db.execute(sql`UPDATE users SET role = 'viewer' WHERE id = ${userId}`);
    const dialog = await createFolder(page, 'not allowed');
    await dialog.getByRole('alert').getByText('This action needs the editor role; you are viewer').waitFor();
  });

  it('says a subnet that is not there is not found', async () => {
    const org = await t.server.newOrg();
    const page = await t.pageAs(org.session);
    await page.goto('/subnets/3f2b8c1e-5d4a-4e6b-9c7d-1a2b3c4d5e6f');
    await page.getByRole('alert').getByText('Not found', { exact: true }).waitFor();
    await expectAccessible(page);
  });

  it('shows a 429 with when to try again', async () => {
    // The limit counts in clock minutes: the page's requests and the refused one must share one.
    await inOneMinuteWindow(30_000);
    // A limit of at most 50 is counted exactly on PostgreSQL too (no leases of several hits).
    const org = await t.server.newOrg({ plan: 'enterprise', limits: { rate_limit: 40 } });
    const page = await t.pageAs(org.session);
    await page.goto('/folders');
    await page.getByRole('button', { name: 'New folder' }).waitFor();
    // Spend what is left of the minute's requests, so that the next one is refused until the minute ends.
    for (let i = 0; i < 40 && (await page.request.get('/api/v1/auth/me')).status() !== 429; i++);
    const dialog = await createFolder(page, 'too fast');
    // The minute's end, 60 s away at most: "1 min" when the refusal comes in its first second.
    await dialog
      .getByRole('alert')
      .getByText(/Try again in (\d+ s|1 min)/)
      .waitFor();
    await expectAccessible(page);
  });
});
