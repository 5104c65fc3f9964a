/**
 * The team page: invitations by mail accepted in another browser (the start page's welcome), roles, the last
 * admin kept, seats and the hourly limit of invitations, as the API answers them.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../server/modules/plans/limits';
import type { Role } from '../../server/principal';
import { browserMissing, expectAccessible, screenshot } from './support/browser';
import { useConsole } from './support/console';

describe.skipIf(browserMissing)(`the team page${browserMissing}`, () => {
  const t = useConsole();

  /** A person signed in as the first admin of a new organisation on `plan`, on the team page. */
  async function adminOnTeamPage(plan: Plan = 'teams') {
    const page = await t.newPage();
    const email = await t.signIn(page);
    await t.setPlan(email, plan);
    await openTeam(page);
    return { page, email };
  }

  /** Invites `invitee` through the team page; they accept from the mail in a browser of their own. */
  async function inviteAndAccept(admin: Page, role: Role) {
    const invitee = `teammate-${Math.random().toString(36).slice(2)}@example.test`;
    await admin.getByLabel('Email address').fill(invitee);
    await admin.getByLabel('Role', { exact: true }).selectOption(role);
    await admin.getByRole('button', { name: 'Send invitation' }).click();
    await admin
      .getByRole('status')
      .filter({ hasText: `Invitation sent to ${invitee}` })
      .waitFor();
    const other = await t.newPage();
    await other.goto(t.mailedLink(invitee, '/api/v1/auth/accept-invite'));
    return { invitee, other };
  }

  describe('team', () => {
    it('invites a teammate by email, who accepts in their own browser and lands on the welcome banner', async () => {
      const { page } = await adminOnTeamPage();
      const { invitee, other } = await inviteAndAccept(page, 'editor');
      await other.getByRole('status').filter({ hasText: 'Welcome to' }).waitFor();
      expect(await other.getByText(`You joined as editor, signed in as ${invitee}`).isVisible()).toBe(true);
      expect(new URL(other.url()).search).toBe('?invitation=accepted');
      await expectAccessible(other);
    });

    it('lists a pending invitation with the day it expires', async () => {
      const { page } = await adminOnTeamPage();
      const invitee = `pending-${Date.now()}@example.test`;
      await page.getByLabel('Email address').fill(invitee);
      await page.getByRole('button', { name: 'Send invitation' }).click();
      const row = page.getByRole('row', { name: new RegExp(invitee) });
      await row.waitFor();
      const expires = new Date(Date.now() + 7 * 24 * 3600 * 1000).toLocaleDateString('en-US', {
        day: 'numeric',
        month: 'short',
        year: 'numeric',
      });
      expect(await row.textContent()).toContain(expires);
      await expectAccessible(page);
    });

    it('cancels a pending invitation', async () => {
      const { page } = await adminOnTeamPage();
      const invitee = `cancelled-${Date.now()}@example.test`;
      await page.getByLabel('Email address').fill(invitee);
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await page.getByRole('button', { name: `Cancel invitation to ${invitee}` }).click();
      await page.getByText('No pending invitations.').waitFor();
    });

    it('shows the new member to the admin, who changes their role', async () => {
      const { page } = await adminOnTeamPage();
      const { invitee, other } = await inviteAndAccept(page, 'editor');
      await other.getByRole('status').filter({ hasText: 'Welcome to' }).waitFor();
      await page.reload();
      const row = page.getByRole('row', { name: new RegExp(invitee) });
      await row.waitFor();
      await row.getByLabel(`Role of ${invitee}`).selectOption('viewer');
      await row.getByRole('button', { name: `Change role of ${invitee}` }).click();
      await row
        .getByRole('status')
        .filter({ hasText: `${invitee} is now viewer` })
        .waitFor();
      await expectAccessible(page);
      await screenshot(page, 'team');
    });

    it('shows the API’s last-admin refusal in the row when the only admin demotes themselves', async () => {
      const { page, email } = await adminOnTeamPage('free');
      const row = page.getByRole('row', { name: new RegExp(email) });
      await row.getByLabel(`Role of ${email}`).selectOption('editor');
      await row.getByRole('button', { name: `Change role of ${email}` }).click();
      const alert = row.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('An organisation keeps at least one admin');
      await expectAccessible(page);
    });

    it('shows the API’s last-admin refusal in the dialog when the only admin removes themselves', async () => {
      const { page, email } = await adminOnTeamPage('free');
      await page.getByRole('button', { name: `Remove ${email}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Remove a member' });
      await dialog.getByRole('button', { name: `Remove ${email}` }).click();
      const alert = dialog.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('removing the last admin is refused');
      await expectAccessible(page);
    });

    it('shows the 402 at the plan’s seat limit with the plan that lifts it', async () => {
      const { page } = await adminOnTeamPage('free');
      await page.getByLabel('Email address').fill('one-too-many@example.test');
      await page.getByRole('button', { name: 'Send invitation' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Plan limit reached' });
      await alert.waitFor();
      expect(await alert.textContent()).toContain('Upgrade to the pro plan (2 users)');
      expect(await alert.getByRole('link', { name: 'See plans and upgrade' }).getAttribute('href')).toBe('/billing');
      await expectAccessible(page);
    });

    it('shows the 429 past 10 invitations an hour with when to try again', async () => {
      const { page } = await adminOnTeamPage('enterprise');
      for (let i = 0; i < 10; i++) {
        const sent = await page.request.post('/api/v1/team/invitations', {
          data: { email: `batch-${i}-${Date.now()}@example.test`, role: 'viewer' },
          headers: { 'x-requested-with': 'XMLHttpRequest' },
        });
        expect(sent.status()).toBe(201);
      }
      await page.getByLabel('Email address').fill('eleventh@example.test');
      await page.getByRole('button', { name: 'Send invitation' }).click();
      const alert = page.getByRole('alert').filter({ hasText: 'Too many requests' });
      await alert.waitFor();
      // Seconds at the hour's end (a clock window); the time of day carries its date when it is tomorrow's.
      expect(await alert.textContent()).toMatch(/Try again in ((1 h|\d+ min), from (\w+ \d+, )?\d{1,2}:\d{2}|\d+ s\.)/);
    });

    it('puts the API’s message about an invalid address next to the field', async () => {
      const { page } = await adminOnTeamPage();
      const field = page.getByLabel('Email address');
      await field.fill('not an address');
      await page.getByRole('button', { name: 'Send invitation' }).click();
      await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
      await expectAccessible(page);
    });
  });
});

async function openTeam(page: Page) {
  await page.goto('/team');
  await page.getByRole('heading', { name: 'Members' }).waitFor();
  await page.getByRole('table').first().waitFor();
}
