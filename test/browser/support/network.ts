/** What the tests of the subnet pages share: people signed in by role, the tree's rows, API shortcuts. */
import type { Page } from 'playwright-core';
import { createSubnet } from '../../support/factories';
import { expectStatus } from '../../support/observed';
import type { TestOrg } from '../../support/server';
import type { ConsoleFixture } from './console';

export { createSubnet };

export function networkHelpers(t: ConsoleFixture) {
  const pageWith = t.pageAs;

  /** A new organisation whose one person is an editor, signed in. */
  async function asEditor(options: Parameters<typeof t.server.newOrg>[0] = {}) {
    const org = await t.server.newOrg({ role: 'editor', ...options });
    return { org, page: await pageWith(org.session) };
  }

  return { pageWith, asEditor };
}

/** The tree's row of a subnet. */
export const row = (page: Page, network: string) =>
  page.locator('tbody tr', { has: page.getByRole('link', { name: network, exact: true }) });

/** The next free addresses of a subnet, allocated through the API. */
export const allocate = async (org: TestOrg, id: string, count: number) =>
  expectStatus(await org.api.call('allocateAddress', { params: { id }, body: { count } }), 201);

/** Fills and sends the form of a new subnet; answers its dialog. */
export async function createThroughForm(page: Page, fields: { network: string; name?: string }) {
  await page.getByRole('button', { name: 'New subnet' }).click();
  const dialog = page.getByRole('dialog', { name: 'New subnet' });
  await dialog.getByLabel('Network', { exact: true }).fill(fields.network);
  if (fields.name) await dialog.getByLabel('Name', { exact: true }).fill(fields.name);
  await dialog.getByRole('button', { name: 'Create subnet' }).click();
  return dialog;
}

/** The text of what describes a field (its hint and error), by its label. */
export const describedBy = (page: Page, label: string) =>
  page.getByLabel(label, { exact: true }).evaluate((element) =>
    (element.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );
