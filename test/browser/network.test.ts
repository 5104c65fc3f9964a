/**
 * The subnet tree of the console (/subnets): built by an editor through the form, nested, opened and closed
 * by pointer and keyboard, filtered; the API's 400 and 402 and the overlap warnings where they belong; a
 * viewer's pages without write controls; a phone's width. A subnet's own page is in network-subnet.test.ts,
 * the tree of 10,000 subnets in network-large.test.ts.
 */
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { expectStatus } from '../support/observed';
import { browserMissing, expectAccessible, screenshot } from './support/browser';
import { useConsole } from './support/console';
import { allocate, createSubnet, createThroughForm, describedBy, networkHelpers, row } from './support/network';

describe.skipIf(browserMissing)(`the subnet tree${browserMissing}`, () => {
  const t = useConsole();
  const { pageWith, asEditor } = networkHelpers(t);

  it('builds a tree through the form: a /16, then /24s created after it are shown nested inside it', async () => {
    const { page } = await asEditor();
    await page.goto('/subnets');
    await page.getByText('No subnets yet.').waitFor();
    await expectAccessible(page);

    await page.getByRole('button', { name: 'New subnet' }).click();
    await page.getByRole('dialog', { name: 'New subnet' }).getByLabel('Network', { exact: true }).waitFor();
    await expectAccessible(page);
    await page.getByRole('button', { name: 'Cancel' }).click();

    await createThroughForm(page, { network: '10.20.0.0/16', name: 'Campus' });
    await page.getByRole('status').filter({ hasText: 'Created 10.20.0.0/16 (Campus).' }).waitFor();
    await createThroughForm(page, { network: '10.20.1.0/24', name: 'Servers' });
    await page.getByRole('status').filter({ hasText: 'Created 10.20.1.0/24' }).waitFor();
    await createThroughForm(page, { network: '10.20.2.0/24', name: 'Clients' });
    await row(page, '10.20.2.0/24').waitFor();

    expect(await row(page, '10.20.0.0/16').getAttribute('aria-level')).toBe('1');
    expect(await row(page, '10.20.0.0/16').getAttribute('aria-expanded')).toBe('true');
    expect(await row(page, '10.20.1.0/24').getAttribute('aria-level')).toBe('2');
    expect(await row(page, '10.20.2.0/24').getAttribute('aria-level')).toBe('2');
    expect(await row(page, '10.20.2.0/24').getAttribute('aria-posinset')).toBe('2');
    await expectAccessible(page);
  });

  it('collapses and expands a subnet with its button, hiding and showing the rows inside it', async () => {
    const { org, page } = await asEditor();
    await createSubnet(org.api, '10.21.0.0/16');
    await createSubnet(org.api, '10.21.1.0/24');
    await page.goto('/subnets');
    await page.getByRole('button', { name: 'Expand 10.21.0.0/16 (1 inside)' }).click();
    await row(page, '10.21.1.0/24').waitFor();
    await page.getByRole('button', { name: 'Collapse 10.21.0.0/16 (1 inside)' }).click();
    await row(page, '10.21.1.0/24').waitFor({ state: 'detached' });
  });

  it('moves through the tree with the keyboard: right opens, down moves, left goes up and closes, Enter opens the page', async () => {
    const { org, page } = await asEditor();
    const top = await createSubnet(org.api, '10.22.0.0/16');
    await createSubnet(org.api, '10.22.1.0/24');
    const second = await createSubnet(org.api, '10.22.2.0/24');
    await page.goto('/subnets');
    const focused = (network: string) => row(page, network).evaluate((element) => element === document.activeElement);

    await row(page, '10.22.0.0/16').waitFor();
    // From the filter, past the folder, into the tree: one tab stop for the whole grid.
    await page.getByLabel('Filter by network or name').focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await expect.poll(() => focused('10.22.0.0/16')).toBe(true);
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => row(page, '10.22.0.0/16').getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => focused('10.22.2.0/24')).toBe(true);
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => focused('10.22.0.0/16')).toBe(true);
    await page.keyboard.press('ArrowLeft');
    await row(page, '10.22.2.0/24').waitFor({ state: 'detached' });
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: '10.22.0.0/16', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/subnets/${top.id}`);
    expect(second.parent_id).toBe(top.id);
  });

  it('shows the 400 of a network that is no CIDR next to the Network field', async () => {
    const { page } = await asEditor();
    await page.goto('/subnets');
    const dialog = await createThroughForm(page, { network: '10.0.0.300/24' });
    const field = dialog.getByLabel('Network', { exact: true });
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    const error = await describedBy(page, 'Network');
    expect(error).toMatch(/cidr|CIDR/);
    expect(await dialog.getByRole('alert').count()).toBe(0);
    await expectAccessible(page);
  });

  it('shows the 402 of the free plan’s 101st subnet with the link to upgrade, by the form', async () => {
    const { org, page } = await asEditor({ plan: 'free' });
    await t.server.database.db.execute(sql`
      INSERT INTO subnets (org_id, network)
      SELECT ${org.orgId}, set_masklen('10.100.0.0'::inet + i * 256, 24)::cidr FROM generate_series(0, 99) AS i`);
    await page.goto('/subnets');
    await page.getByText('100 subnets').waitFor();
    const dialog = await createThroughForm(page, { network: '10.200.0.0/24' });
    const notice = dialog.getByRole('alert').filter({ hasText: 'Plan limit reached' });
    await notice.waitFor();
    expect(await notice.getByRole('link', { name: 'See plans and upgrade' }).getAttribute('href')).toBe('/billing');
    await expectAccessible(page);
  });

  it('shows the ranges of other VRFs a new global subnet overlaps, after creating it', async () => {
    const { org, page } = await asEditor();
    const vrf = expectStatus(await org.api.call('createVrf', { body: { name: 'blue' } }), 201);
    await createSubnet(org.api, '10.29.0.0/16', { vrf_id: vrf.id, name: 'Blue core' });
    await page.goto('/subnets');
    await page.getByRole('heading', { name: /VRF blue/ }).waitFor();
    await createThroughForm(page, { network: '10.29.1.0/24' });
    const warning = page.getByRole('alert').filter({ hasText: '10.29.1.0/24 overlaps ranges in other VRFs' });
    await warning.waitFor();
    expect(await warning.getByRole('listitem').innerText()).toBe('10.29.0.0/16 Blue core in VRF blue');
    await expect
      .poll(() => page.getByRole('main').getByRole('heading', { level: 2 }).allInnerTexts())
      .toEqual(['Global space 1 subnet', 'VRF blue 1 subnet']);
    await expectAccessible(page);
  });

  it('filters the tree by text and by folder, both kept in the URL', async () => {
    const { org, page } = await asEditor();
    const folder = expectStatus(await org.api.call('createFolder', { body: { name: 'Branches' } }), 201);
    await createSubnet(org.api, '10.30.0.0/16', { name: 'Head office' });
    await createSubnet(org.api, '10.30.1.0/24', { name: 'Printers' });
    await createSubnet(org.api, '10.30.2.0/24', { name: 'Phones' });
    await createSubnet(org.api, '172.16.0.0/24', { name: 'Branch A', folder_id: folder.id });
    await page.goto('/subnets');
    await page.getByLabel('Filter by network or name').fill('print');
    await row(page, '10.30.1.0/24').waitFor();
    expect(await page.locator('tbody tr').count()).toBe(2); // the match and its parent
    expect(new URL(page.url()).searchParams.get('q')).toBe('print');
    await page.reload();
    await row(page, '10.30.1.0/24').waitFor();
    expect(await page.getByLabel('Filter by network or name').inputValue()).toBe('print');
    await page.getByLabel('Filter by network or name').fill('');
    await page.getByLabel('Folder').selectOption({ label: 'Branches' });
    await row(page, '172.16.0.0/24').waitFor();
    await row(page, '10.30.0.0/16').waitFor({ state: 'detached' });
    expect(new URL(page.url()).searchParams.get('folder_id')).toBe(folder.id);
  });

  it('shows a viewer the tree and a subnet’s page with no write control', async () => {
    const org = await t.server.newOrg();
    const top = await createSubnet(org.api, '10.34.0.0/16');
    const child = await createSubnet(org.api, '10.34.1.0/24');
    await allocate(org, child.id, 2);
    const viewer = await org.member('viewer');
    const page = await pageWith(viewer.session);
    const buttons = () => page.getByRole('main').getByRole('button').allInnerTexts();

    await page.goto('/subnets');
    await row(page, '10.34.0.0/16').waitFor();
    expect(await buttons()).toEqual(['▸']); // the toggle of 10.34.0.0/16, nothing else
    await expectAccessible(page);

    await page.goto(`/subnets/${child.id}`);
    await page.getByRole('cell', { name: '10.34.1.2', exact: true }).waitFor();
    expect(await buttons()).toEqual(['Find free blocks', 'Find the first free address', 'Previous page', 'Next page']);
    expect(await page.getByRole('main').getByRole('textbox').count()).toBe(0);
    expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
    await expectAccessible(page);
    expect(top.id).not.toBe(child.id);
  });

  it('fits a phone’s 375 px without scrolling the page sideways, on the tree and on a subnet’s page', async () => {
    const org = await t.server.newOrg({ role: 'editor' });
    await createSubnet(org.api, '10.35.0.0/16', { name: 'A long name for a campus network' });
    const child = await createSubnet(org.api, '10.35.1.0/24', { name: 'Servers' });
    await allocate(org, child.id, 3);
    const page = await pageWith(org.session, { width: 375, height: 740 });
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await page.goto('/subnets');
    await row(page, '10.35.0.0/16').waitFor();
    expect(await overflow()).toBe(0);
    await page.goto(`/subnets/${child.id}`);
    await page.getByRole('cell', { name: '10.35.1.3', exact: true }).waitFor();
    expect(await overflow()).toBe(0);
    await expectAccessible(page);
  });

  it('takes the screenshots of a small tree and of a subnet’s page', async () => {
    const org = await t.server.newOrg({ role: 'editor' });
    const api = org.api;
    const blue = expectStatus(await api.call('createVrf', { body: { name: 'customer-blue' } }), 201);
    const campus = await createSubnet(api, '10.10.0.0/16', { name: 'Campus Frankfurt' });
    const servers = await createSubnet(api, '10.10.1.0/24', { name: 'Servers', gateway: '10.10.1.1' });
    await createSubnet(api, '10.10.2.0/24', { name: 'Clients' });
    await createSubnet(api, '10.10.3.0/24', { name: 'Voice' });
    await createSubnet(api, '10.10.1.128/26', { name: 'Kubernetes nodes' });
    await createSubnet(api, '192.168.0.0/22', { name: 'Branch Munich' });
    await createSubnet(api, '2001:db8::/48', { name: 'IPv6 campus' });
    await createSubnet(api, '100.64.0.0/20', { name: 'Blue transit', vrf_id: blue.id });
    await allocate(org, servers.id, 40);
    await allocate(org, campus.id, 12);
    const page = await pageWith(org.session);
    await page.goto('/subnets');
    await page.getByRole('button', { name: 'Expand 10.10.0.0/16 (3 inside)' }).click();
    await page.getByRole('button', { name: 'Expand 10.10.1.0/24 (1 inside)' }).click();
    await row(page, '10.10.1.128/26').waitFor();
    await expectAccessible(page);
    await page.mouse.move(0, 0); // no row under the pointer's hover
    await screenshot(page, 'subnets');
    await page.goto(`/subnets/${servers.id}`);
    await page.getByRole('cell', { name: '10.10.1.41', exact: true }).waitFor();
    await screenshot(page, 'subnet');
  });
});
