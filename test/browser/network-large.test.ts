/**
 * The subnet tree with 10,000 subnets (a /8 and 9,999 /24s inside it, seeded in SQL): only the rows on
 * screen are in the page, however far it is scrolled, expanded or filtered. No timing is asserted: the
 * bound on the rows drawn is what keeps it quick.
 */
import { sql } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { rowsOf } from '../../server/db/connection';
import { defined } from '../support/defined';
import { browserMissing, expectAccessible } from './support/browser';
import { useConsole } from './support/console';
import { networkHelpers, row } from './support/network';

/** Far fewer rows than subnets: what the page may draw at once. */
const MOST_ROWS = 200;
const LAST = '10.39.14.0/24'; // 10.0.0.0 + 9,998 × 256

describe.skipIf(browserMissing)(`a tree of 10,000 subnets${browserMissing}`, () => {
  const t = useConsole();
  const { pageWith } = networkHelpers(t);
  let page: Page;
  const drawnRows = () => page.locator('tbody tr').count();
  const grid = () => page.getByRole('treegrid', { name: 'Subnets of the global space' });

  beforeAll(async () => {
    const org = await t.server.newOrg({ role: 'editor' });
    const db = t.server.database.db;
    const root = defined(
      rowsOf<{ id: string }>(
        await db.execute(sql`INSERT INTO subnets (org_id, network) VALUES (${org.orgId}, '10.0.0.0/8') RETURNING id`),
      )[0],
      'the /8 inserted',
    );
    await db.execute(sql`
      INSERT INTO subnets (org_id, parent_id, network)
      SELECT ${org.orgId}, ${root.id}, set_masklen('10.0.0.0'::inet + i * 256, 24)::cidr
      FROM generate_series(0, 9998) AS i`);
    page = await pageWith(org.session);
    await page.goto('/subnets');
    await row(page, '10.0.0.0/8').waitFor({ timeout: 30_000 });
  }, 120_000);

  it('draws the /8 alone, then, expanded, only the rows on screen of its 9,999 children', async () => {
    await page.getByText('10,000 subnets').waitFor();
    expect(await drawnRows()).toBe(1);
    await page.getByRole('button', { name: 'Expand 10.0.0.0/8 (9999 inside)' }).click();
    await row(page, '10.0.0.0/24').waitFor();
    expect(await grid().getAttribute('aria-rowcount')).toBe('10001');
    expect(await drawnRows()).toBeLessThan(MOST_ROWS);
    await expectAccessible(page);
  });

  it('shows the last subnet when scrolled to the end, still drawing few rows', async () => {
    await page.locator('.subnet-tree').evaluate((box) => {
      box.scrollTop = box.scrollHeight;
    });
    await row(page, LAST).waitFor();
    expect(await row(page, LAST).getAttribute('aria-rowindex')).toBe('10001');
    expect(await row(page, LAST).isVisible()).toBe(true);
    expect(await drawnRows()).toBeLessThan(MOST_ROWS);
  });

  it('goes to the first subnet with Home and to the last with End, the focus and the view following', async () => {
    const focused = (network: string) => row(page, network).evaluate((element) => element === document.activeElement);
    await row(page, LAST).focus();
    await page.keyboard.press('Home');
    await expect.poll(() => focused('10.0.0.0/8')).toBe(true);
    expect(await drawnRows()).toBeLessThan(MOST_ROWS);
    await page.keyboard.press('End');
    await expect.poll(() => focused(LAST)).toBe(true);
    expect(await row(page, LAST).isVisible()).toBe(true);
    await page.keyboard.press('PageUp');
    await expect.poll(() => focused(LAST)).toBe(false);
    expect(await drawnRows()).toBeLessThan(MOST_ROWS);
  });

  it('filters the 10,000 down to a match and its parent', async () => {
    await page.getByLabel('Filter by network or name').fill('10.39.14.');
    await expect.poll(() => drawnRows()).toBe(2);
    expect(await row(page, LAST).getAttribute('aria-level')).toBe('2');
    await page.getByText('1 of 10,000 subnets match').waitFor();
  });
});
