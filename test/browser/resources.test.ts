/**
 * The network's other pages: folders, VLANs, VRFs and locations (their lists and counts, creating, renaming
 * and deleting one, the API's refusals in place, a viewer's read-only view) and the search of the top bar.
 */
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../support/client';
import { defined } from '../support/defined';
import { createSubnet } from '../support/factories';
import { expectStatus } from '../support/observed';
import type { TestOrg } from '../support/server';
import { browserMissing, expectAccessible, screenshot } from './support/browser';
import { useConsole } from './support/console';

/** The texts an input's aria-describedby points to: its hint and its error. */
const description = (input: Locator) =>
  input.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );

/** The cells of the row whose header is `name`, as shown. */
const rowCells = (page: Page, name: string) =>
  page
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name, exact: true }) })
    .getByRole('cell')
    .allInnerTexts();

const location = async (api: ApiClient, body: { name: string; address?: string }) =>
  expectStatus(await api.call('createLocation', { body }), 201);
const vlan = async (api: ApiClient, body: { vlan_number: number; name?: string; location_id?: string }) =>
  expectStatus(await api.call('createVlan', { body }), 201);

describe.skipIf(browserMissing)(`folders, VLANs, VRFs, locations and search${browserMissing}`, () => {
  const t = useConsole();

  /** A person of a new organisation (an admin unless told), on `path` once `seed` has run. */
  async function open(
    path: string,
    options: Parameters<typeof t.server.newOrg>[0] = {},
    seed?: (org: TestOrg) => unknown,
  ) {
    const org = await t.server.newOrg(options);
    await seed?.(org);
    const page = await t.pageAs(org.session);
    await page.goto(path);
    await page.getByRole('heading', { level: 1 }).waitFor();
    return { org, page };
  }

  /** Creates one named Lab through its dialog, renames it Lab two, and deletes it. */
  async function createRenameDelete(page: Page, kind: { plural: string; noun: string; deletion: string }) {
    await page.getByText(`No ${kind.plural} yet.`).waitFor();
    await expectAccessible(page);
    await page.getByRole('button', { name: `New ${kind.noun}` }).click();
    const create = page.getByRole('dialog', { name: `New ${kind.noun}` });
    await create.getByLabel('Name').fill('Lab');
    await expectAccessible(page);
    await create.getByRole('button', { name: `Create ${kind.noun}` }).click();
    await page.getByRole('rowheader', { name: 'Lab', exact: true }).waitFor();
    await expectAccessible(page);

    await page.getByRole('button', { name: `Edit ${kind.noun} Lab` }).click();
    const edit = page.getByRole('dialog', { name: `Edit ${kind.noun} Lab` });
    expect(await edit.getByLabel('Name').inputValue()).toBe('Lab');
    await edit.getByLabel('Name').fill('Lab two');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('rowheader', { name: 'Lab two', exact: true }).waitFor();

    await page.getByRole('button', { name: `Delete ${kind.noun} Lab two` }).click();
    const confirm = page.getByRole('dialog', { name: `Delete ${kind.noun} Lab two` });
    await confirm.getByText(kind.deletion).waitFor();
    await expectAccessible(page);
    await confirm.getByRole('button', { name: `Delete ${kind.noun} Lab two` }).click();
    await page.getByText(`No ${kind.plural} yet.`).waitFor();
  }

  it('creates, renames and deletes a folder, saying its subnets are kept unfoldered', async () => {
    const { org, page } = await open('/folders');
    const deletion = 'Its subnets are kept and become unfoldered.';
    await createRenameDelete(page, { plural: 'folders', noun: 'folder', deletion });
    expect(expectStatus(await org.web.call('listFolders'), 200)).toEqual([]);
  });

  it('creates, renames and deletes a location, saying its subnets and VLANs lose it', async () => {
    const { org, page } = await open('/locations');
    const deletion = 'Its subnets and VLANs are kept, without a location.';
    await createRenameDelete(page, { plural: 'locations', noun: 'location', deletion });
    expect(expectStatus(await org.web.call('listLocations'), 200)).toEqual([]);
  });

  it('shows the API’s 400 next to a VLAN number out of range, then creates, renames and deletes the VLAN', async () => {
    const { page } = await open('/vlans', {}, (org) => location(org.web, { name: 'Berlin' }));
    await page.getByRole('button', { name: 'New VLAN' }).click();
    const create = page.getByRole('dialog', { name: 'New VLAN' });
    await create.getByLabel('Number').fill('5000');
    await create.getByRole('button', { name: 'Create VLAN' }).click();
    await expect.poll(() => create.getByLabel('Number').getAttribute('aria-invalid')).toBe('true');
    expect(await description(create.getByLabel('Number'))).toContain('4094');
    await expectAccessible(page);

    await create.getByLabel('Number').fill('120');
    await create.getByLabel('Name').fill('servers');
    await create.getByLabel('Location').selectOption({ label: 'Berlin' });
    await create.getByRole('button', { name: 'Create VLAN' }).click();
    await page.getByRole('rowheader', { name: '120', exact: true }).waitFor();
    expect((await rowCells(page, '120')).slice(0, 2)).toEqual(['servers', 'Berlin']);

    await page.getByRole('button', { name: 'Edit VLAN 120' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit VLAN 120' });
    await edit.getByLabel('Name').fill('servers-b1');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'servers-b1' }).waitFor();

    await page.getByRole('button', { name: 'Delete VLAN 120' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete VLAN 120' });
    await confirm.getByText('Its subnets are kept, without a VLAN.').waitFor();
    await confirm.getByRole('button', { name: 'Delete VLAN 120' }).click();
    await page.getByText('No VLANs yet.').waitFor();
  });

  it('refuses to delete a VRF that subnets use with the API’s message, and deletes it once unused', async () => {
    const { org, page } = await open('/vrfs');
    await page.getByRole('button', { name: 'New VRF' }).click();
    const create = page.getByRole('dialog', { name: 'New VRF' });
    await create.getByLabel('Name').fill('customer-a');
    await create.getByLabel('Route distinguisher').fill('65000:100');
    await create.getByRole('button', { name: 'Create VRF' }).click();
    await page.getByRole('rowheader', { name: 'customer-a', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Edit VRF customer-a' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit VRF customer-a' });
    await edit.getByLabel('Name').fill('customer-b');
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('rowheader', { name: 'customer-b', exact: true }).waitFor();

    const vrf = defined(expectStatus(await org.web.call('listVrfs'), 200)[0], 'the VRF');
    const subnet = await createSubnet(org.web, '10.0.0.0/24', { vrf_id: vrf.id });
    const refused = expectStatus(await org.web.call('deleteVrf', { params: { id: vrf.id } }), 400);
    expect(refused.code).toBe('in_use');
    await page.reload();
    await page.getByRole('button', { name: 'Delete VRF customer-b' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete VRF customer-b' });
    await confirm.getByRole('button', { name: 'Delete VRF customer-b' }).click();
    await confirm.getByRole('alert').filter({ hasText: refused.error }).waitFor();
    await expectAccessible(page);

    expectStatus(await org.web.call('deleteSubnet', { params: { id: subnet.id } }), 204);
    await confirm.getByRole('button', { name: 'Delete VRF customer-b' }).click();
    await page.getByText('No VRFs yet.').waitFor();
  });

  it('shows the subnet and VLAN counts the API computes', async () => {
    const { org, page } = await open('/');
    const berlin = await location(org.web, { name: 'Berlin', address: 'Alexanderplatz 1' });
    await location(org.web, { name: 'Hamburg' });
    const servers = await vlan(org.web, { vlan_number: 120, name: 'servers', location_id: berlin.id });
    await vlan(org.web, { vlan_number: 130, name: 'voice', location_id: berlin.id });
    const vrf = expectStatus(await org.web.call('createVrf', { body: { name: 'customer-a', rd: '65000:100' } }), 201);
    const at = { vlan_id: servers.id, location_id: berlin.id };
    await createSubnet(org.web, '10.0.0.0/24', { ...at, vrf_id: vrf.id });
    await createSubnet(org.web, '10.0.1.0/24', at);

    await page.goto('/locations');
    const locations = expectStatus(await org.web.call('listLocations'), 200);
    expect(locations.map((l) => [l.name, l.subnet_count, l.vlan_count])).toEqual([
      ['Berlin', 2, 2],
      ['Hamburg', 0, 0],
    ]);
    for (const { name, subnet_count, vlan_count } of locations) {
      await page.getByRole('rowheader', { name, exact: true }).waitFor();
      expect((await rowCells(page, name)).slice(1, 3)).toEqual([String(subnet_count), String(vlan_count)]);
    }

    await page.goto('/vrfs');
    await page.getByRole('rowheader', { name: 'customer-a' }).waitFor();
    const { subnet_count } = defined(expectStatus(await org.web.call('listVrfs'), 200)[0], 'the VRF');
    expect((await rowCells(page, 'customer-a'))[2]).toBe(String(subnet_count));

    await page.goto('/vlans');
    for (const { vlan_number, subnet_count } of expectStatus(await org.web.call('listVlans'), 200)) {
      await page.getByRole('rowheader', { name: String(vlan_number), exact: true }).waitFor();
      expect((await rowCells(page, String(vlan_number)))[3]).toBe(String(subnet_count));
    }
    await expectAccessible(page);
    await screenshot(page, 'resources');
  });

  it('shows a 402 with the way to upgrade when the plan’s folders are used up', async () => {
    const { page } = await open('/folders', { plan: 'free' }, async (org) => {
      for (let i = 1; i <= 5; i++)
        expectStatus(await org.web.call('createFolder', { body: { name: `Folder ${i}` } }), 201);
    });
    await page.getByRole('button', { name: 'New folder' }).click();
    const create = page.getByRole('dialog', { name: 'New folder' });
    await create.getByLabel('Name').fill('One too many');
    await create.getByRole('button', { name: 'Create folder' }).click();
    await create.getByRole('alert').filter({ hasText: 'Plan limit reached' }).waitFor();
    expect(await create.getByRole('link', { name: 'See plans and upgrade' }).isVisible()).toBe(true);
    await expectAccessible(page);
  });

  it('shows a viewer every list without a single write control', async () => {
    const org = await t.server.newOrg();
    expectStatus(await org.web.call('createFolder', { body: { name: 'Lab' } }), 201);
    await vlan(org.web, { vlan_number: 120 });
    expectStatus(await org.web.call('createVrf', { body: { name: 'customer-a' } }), 201);
    await location(org.web, { name: 'Berlin' });
    const page = await t.pageAs((await org.member('viewer')).session);
    for (const { path, name } of [
      { path: '/folders', name: 'Lab' },
      { path: '/vlans', name: '120' },
      { path: '/vrfs', name: 'customer-a' },
      { path: '/locations', name: 'Berlin' },
    ]) {
      await page.goto(path);
      await page.getByRole('rowheader', { name, exact: true }).waitFor();
      expect(await page.getByRole('main').getByRole('button').count()).toBe(0);
      await expectAccessible(page);
    }
  });

  it('fits a 375 px screen without scrolling the page sideways', async () => {
    const org = await t.server.newOrg();
    const site = await location(org.web, {
      name: 'Frankfurt am Main, Rechenzentrum Nord',
      address: 'Hanauer Landstraße 1',
    });
    await vlan(org.web, { vlan_number: 4094, name: 'a-rather-long-vlan-name', location_id: site.id });
    const page = await t.pageAs(org.session, { width: 375, height: 800 });
    for (const { path, text } of [
      { path: '/vlans', text: '4094' },
      { path: '/locations', text: 'Hanauer Landstraße 1' },
      { path: '/search?q=10.0', text: 'Nothing matches' },
    ]) {
      await page.goto(path);
      await page.getByText(text).first().waitFor();
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    }
  });

  it('finds from the top bar a subnet and an address, each linking to the subnet’s page, with the query in the URL', async () => {
    const { org, page } = await open('/');
    const subnet = await createSubnet(org.web, '10.9.8.0/24', { name: 'Berlin office' });
    const body = { ip: '10.9.8.7', hostname: 'printer-berlin' };
    expectStatus(await org.web.call('createAddress', { params: { id: subnet.id }, body }), 201);
    await page.getByLabel('Search subnets and addresses').fill('berlin');
    await page.getByLabel('Search subnets and addresses').press('Enter');
    await page.getByRole('status').filter({ hasText: '1 subnet and 1 address match “berlin”.' }).waitFor();
    expect(new URL(page.url()).search).toBe('?q=berlin');
    expect(await page.getByRole('link', { name: '10.9.8.0/24' }).getAttribute('href')).toBe(`/subnets/${subnet.id}`);
    await expectAccessible(page);
    await page.getByRole('link', { name: '10.9.8.7' }).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/subnets/${subnet.id}`);
  });

  it('says when a search finds nothing, the query kept in the top bar', async () => {
    const { page } = await open('/search?q=nothing-here');
    await page.getByRole('status').filter({ hasText: 'Nothing matches “nothing-here”.' }).waitFor();
    expect(await page.getByLabel('Search subnets and addresses').inputValue()).toBe('nothing-here');
    await expectAccessible(page);
  });

  it('searches 500 characters and shows the API’s 400 next to the field for 501', async () => {
    const { page } = await open(`/search?q=${'x'.repeat(500)}`);
    await page.getByRole('status').filter({ hasText: 'Nothing matches' }).waitFor();
    await page.getByLabel('Search for').fill('x'.repeat(501));
    await page.getByLabel('Search for').press('Enter');
    await expect.poll(() => page.getByLabel('Search for').getAttribute('aria-invalid')).toBe('true');
    expect(await description(page.getByLabel('Search for'))).toContain('must be at most 500 characters');
    await expectAccessible(page);
  });
});
