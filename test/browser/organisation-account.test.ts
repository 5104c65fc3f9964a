/**
 * Your account (who you are, signing out, deleting the account with a typed confirmation and what becomes of
 * the organisation), and what a viewer is offered on the organisation's pages.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserMissing, expectAccessible } from './support/browser';
import { useConsole } from './support/console';

describe.skipIf(browserMissing)(`your account, and a viewer on the organisation's pages${browserMissing}`, () => {
  const t = useConsole();

  /** A browser holding a session made on the server (a member of an organisation made there). */
  async function browserOf(session: string): Promise<Page> {
    const page = await t.newPage();
    await page.context().addCookies([{ name: 'service_session', value: session, url: t.server.url }]);
    return page;
  }

  describe('your account', () => {
    it('says who you are: email, name, role and organisation', async () => {
      const page = await t.newPage();
      const email = await t.signIn(page);
      await page.goto('/account');
      const facts = page.getByRole('region', { name: 'Signed in as' }).locator('dd');
      await facts.first().waitFor();
      expect(await facts.allTextContents()).toEqual([
        email,
        'not given',
        'admin',
        `${email.split('@')[0]} (Free plan)`,
      ]);
      await expectAccessible(page);
    });

    it('signs out of this browser, ending the session', async () => {
      const page = await t.newPage();
      await t.signIn(page);
      await page.goto('/account');
      await page.getByRole('button', { name: 'Sign out of this browser' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      expect((await page.request.get('/api/v1/auth/me')).status()).toBe(401);
    });

    it('enables the deletion only once the address or DELETE is typed', async () => {
      const page = await t.newPage();
      const email = await t.signIn(page);
      await page.goto('/account');
      const confirm = page.getByLabel('Type your email address or DELETE to confirm');
      const button = page.getByRole('button', { name: 'Delete my account' });
      const enabledAfter = async (typed: string) => {
        await confirm.fill(typed);
        return button.isEnabled();
      };
      expect([
        await enabledAfter(''),
        await enabledAfter('delete'),
        await enabledAfter('someone@example.test'),
      ]).toEqual([false, false, false]);
      expect([await enabledAfter(email.toUpperCase()), await enabledAfter('DELETE')]).toEqual([true, true]);
      await expectAccessible(page);
    });

    it('deletes the account of the only member with its organisation, and lands on the sign-in page', async () => {
      const page = await t.newPage();
      await t.signIn(page);
      await page.goto('/account');
      await page.getByText('Deleting your account deletes the organisation with it').waitFor();
      await page.getByLabel('Type your email address or DELETE to confirm').fill('DELETE');
      await page.getByRole('button', { name: 'Delete my account' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/login');
      expect((await page.request.get('/api/v1/auth/me')).status()).toBe(401);
    });

    it('shows the API’s refusal of the last admin of an organisation with other members', async () => {
      const org = await t.server.newOrg({ plan: 'teams' });
      await org.member('editor');
      const page = await browserOf(org.session);
      await page.goto('/account');
      await page.getByText(/You are the last admin of/).waitFor();
      await page.getByLabel('Type your email address or DELETE to confirm').fill(org.email);
      await page.getByRole('button', { name: 'Delete my account' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('You are the last admin of an organisation with other members');
      await expectAccessible(page);
    });
  });

  describe('a viewer', () => {
    it('is offered no write controls on the billing and team pages', async () => {
      const org = await t.server.newOrg({ plan: 'free' });
      const viewer = await org.member('viewer');
      const page = await browserOf(viewer.session);
      /** The buttons and fields of a page's content once `loaded` shows, and no serious accessibility violation. */
      const offered = async (path: string, loaded: string) => {
        await page.goto(path);
        await page.getByText(loaded).waitFor();
        await expectAccessible(page);
        const main = page.getByRole('main');
        return {
          path,
          buttons: await main.getByRole('button').allTextContents(),
          fields: await main.locator('input, select, textarea').count(),
        };
      };
      expect([
        await offered('/billing', 'Only an admin of the organisation can upgrade the plan.'),
        await offered('/team', org.email),
      ]).toEqual([
        { path: '/billing', buttons: [], fields: 0 },
        { path: '/team', buttons: [], fields: 0 },
      ]);
    });
  });
});
