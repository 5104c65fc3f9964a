/**
 * A subnet's page in the console (/subnets/:id): its fields, usage, children and addresses (paged), and what
 * an editor does there: allocate addresses and subnets, find free space, split, edit, delete, each saying
 * what it does first and showing the API's refusals next to the field.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expectStatus } from '../support/observed';
import { browserMissing, expectAccessible } from './support/browser';
import { useConsole } from './support/console';
import { allocate, createSubnet, describedBy, networkHelpers, row } from './support/network';

describe.skipIf(browserMissing)(`a subnet’s page${browserMissing}`, () => {
  const t = useConsole();
  const { asEditor } = networkHelpers(t);
  const usageText = (page: Page) => page.locator('.usage').innerText();

  it('allocates an address and then 3 more: the utilisation changes on the page and in the tree', async () => {
    const { org, page } = await asEditor();
    await createSubnet(org.api, '10.23.0.0/16', { name: 'Campus' });
    const servers = await createSubnet(org.api, '10.23.1.0/24', { name: 'Servers' });
    await page.goto(`/subnets/${servers.id}`);
    await page.getByRole('heading', { name: '10.23.1.0/24', level: 1 }).waitFor();
    await expect.poll(() => usageText(page)).toContain('0 of 254');

    await page.getByRole('button', { name: 'Allocate addresses' }).click();
    await page.getByRole('status').filter({ hasText: 'Allocated the address: 10.23.1.1' }).waitFor();
    await expect.poll(() => usageText(page)).toContain('1 of 254');
    await page.getByLabel('How many addresses').fill('3');
    await page.getByRole('button', { name: 'Allocate addresses' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Allocated 3 addresses: 10.23.1.2, 10.23.1.3, 10.23.1.4' })
      .waitFor();
    await expect.poll(() => usageText(page)).toContain('4 of 254');
    await page.getByRole('cell', { name: '10.23.1.4', exact: true }).waitFor();
    await expectAccessible(page);

    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Subnets' }).click();
    await page.getByRole('button', { name: 'Expand 10.23.0.0/16 (1 inside)' }).click();
    expect(await row(page, '10.23.1.0/24').innerText()).toContain('4 of 254 (1.6%)');
    expect(await row(page, '10.23.0.0/16').innerText()).toContain('4 of 65,534');
  });

  it('allocates a /28 inside a /24, past its addresses, and lists it among the children', async () => {
    const { org, page } = await asEditor();
    const subnet = await createSubnet(org.api, '10.24.1.0/24');
    await allocate(org, subnet.id, 4);
    await page.goto(`/subnets/${subnet.id}`);
    await page.getByLabel('Prefix length of the new subnets').fill('28');
    await page.getByRole('button', { name: 'Allocate subnets' }).click();
    await page.getByRole('status').getByRole('link', { name: '10.24.1.16/28' }).waitFor();
    const children = page.getByRole('region', { name: /Child subnets/ });
    await children.getByRole('link', { name: '10.24.1.16/28' }).waitFor();
    expect(await children.getByRole('heading').innerText()).toBe('Child subnets (1)');
  });

  it('finds the free blocks of a chosen prefix length and the first free address', async () => {
    const { org, page } = await asEditor();
    const subnet = await createSubnet(org.api, '10.25.1.0/24');
    await allocate(org, subnet.id, 4);
    await createSubnet(org.api, '10.25.1.16/28');
    await page.goto(`/subnets/${subnet.id}`);
    await page.getByLabel('Prefix length', { exact: true }).fill('26');
    await page.getByRole('button', { name: 'Find free blocks' }).click();
    const blocks = page.getByRole('status').filter({ hasText: 'free /26 blocks' });
    await blocks.waitFor();
    expect(await blocks.getByRole('listitem').allInnerTexts()).toEqual([
      '10.25.1.64/26',
      '10.25.1.128/26',
      '10.25.1.192/26',
    ]);
    expect(await blocks.getByRole('paragraph').innerText()).toBe('3 free /26 blocks:');
    await page.getByRole('button', { name: 'Find the first free address' }).click();
    await page.getByRole('status').filter({ hasText: 'The first free address is 10.25.1.5.' }).waitFor();
    await expectAccessible(page);
  });

  it('shows a free-blocks prefix the API refuses (not longer than the subnet’s) next to the field', async () => {
    const { org, page } = await asEditor();
    const subnet = await createSubnet(org.api, '10.26.1.0/24');
    await page.goto(`/subnets/${subnet.id}`);
    const field = page.getByLabel('Prefix length', { exact: true });
    await field.fill('24');
    await page.getByRole('button', { name: 'Find free blocks' }).click();
    await expect.poll(() => field.getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(page, 'Prefix length')).toMatch(/longer/);
  });

  it('splits a subnet into 4, saying first that it and its addresses are deleted, then shows the parts', async () => {
    const { org, page } = await asEditor();
    const subnet = await createSubnet(org.api, '10.27.0.0/24', { name: 'Lab' });
    await allocate(org, subnet.id, 2);
    await page.goto(`/subnets/${subnet.id}`);
    await page.getByRole('button', { name: 'Split subnet 10.27.0.0/24' }).click();
    const dialog = page.getByRole('dialog', { name: 'Split 10.27.0.0/24' });
    expect(await dialog.getByLabel('Parts').inputValue()).toBe('4');
    await dialog.getByText('10.27.0.0/24 is deleted, and with it its own 2 address records').waitFor();
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Split 10.27.0.0/24 into 4' }).click();
    await page.getByRole('heading', { name: '10.27.0.0/24 was split' }).waitFor();
    const parts = page.getByRole('region', { name: 'The parts' }).getByRole('link');
    expect(await parts.allInnerTexts()).toEqual(['10.27.0.0/26', '10.27.0.64/26', '10.27.0.128/26', '10.27.0.192/26']);
    await expectAccessible(page);
  });

  it('deletes a subnet after a confirmation stating the child subnets and addresses that go with it', async () => {
    const { org, page } = await asEditor();
    const top = await createSubnet(org.api, '10.28.0.0/16');
    const first = await createSubnet(org.api, '10.28.1.0/24');
    await createSubnet(org.api, '10.28.2.0/24');
    await allocate(org, top.id, 1);
    await allocate(org, first.id, 3);
    await page.goto(`/subnets/${top.id}`);
    await page.getByRole('cell', { name: '10.28.0.1', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete subnet 10.28.0.0/16' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete 10.28.0.0/16?' });
    const said = await dialog.innerText();
    expect(said).toContain('its 1 own address record;');
    expect(said).toContain(
      'its 2 child subnets (10.28.1.0/24, 10.28.2.0/24), every subnet inside them, and all their addresses: 4 addresses in all',
    );
    // The server's own count, from a dry run of the delete, which deleted nothing.
    await dialog.getByText('In all, this deletes 3 subnets and 4 address records.').waitFor();
    expectStatus(await org.api.call('getSubnet', { params: { id: first.id } }), 200);
    await expectAccessible(page);
    await dialog.getByRole('button', { name: 'Delete subnet 10.28.0.0/16' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted 10.28.0.0/16 and everything inside it.' }).waitFor();
    await page.getByText('No subnets yet.').waitFor();
    expect(new URL(page.url()).pathname).toBe('/subnets');
  });

  it('shows a subnet’s fields, usage and children, with links to the children and the parent', async () => {
    const { org, page } = await asEditor();
    const top = await createSubnet(org.api, '10.31.0.0/16', { name: 'Campus' });
    const child = await createSubnet(org.api, '10.31.1.0/24', { name: 'Servers', gateway: '10.31.1.1' });
    await page.goto(`/subnets/${top.id}`);
    await page
      .getByRole('region', { name: /Child subnets/ })
      .getByRole('link', { name: '10.31.1.0/24' })
      .click();
    await page.getByRole('heading', { name: '10.31.1.0/24', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/subnets/${child.id}`);
    const details = await page.getByRole('region', { name: 'Details' }).innerText();
    expect(details).toContain('Gateway\n10.31.1.1');
    expect(details).toContain('VRF\nGlobal space');
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: '10.31.0.0/16' }).click();
    await page.getByRole('heading', { name: '10.31.0.0/16', level: 1 }).waitFor();
  });

  it('edits a subnet: VLAN by number and VRF by name, a refused VLAN shown next to its field', async () => {
    const { org, page } = await asEditor();
    const subnet = await createSubnet(org.api, '10.32.1.0/24');
    await page.goto(`/subnets/${subnet.id}`);
    await page.getByRole('button', { name: 'Edit subnet 10.32.1.0/24' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit 10.32.1.0/24' });
    await dialog.getByLabel('VLAN number').fill('5000');
    await dialog.getByRole('button', { name: 'Save subnet' }).click();
    await expect.poll(() => dialog.getByLabel('VLAN number').getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(page, 'VLAN number')).toContain('must be a VLAN number from 1 to 4094');
    await expectAccessible(page);
    await dialog.getByLabel('VLAN number').fill('120');
    await dialog.getByLabel('VRF name').fill('green');
    await dialog.getByLabel('Name', { exact: true }).fill('Lab');
    await dialog.getByRole('button', { name: 'Save subnet' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const details = page.getByRole('region', { name: 'Details' });
    await expect.poll(() => details.innerText()).toContain('VLAN\n120');
    expect(await details.innerText()).toContain('VRF\ngreen');
    await page.getByText('Lab', { exact: true }).waitFor();
  });

  it('pages the addresses with the page in the URL, and adds, edits and deletes one', async () => {
    const { org, page } = await asEditor();
    const subnet = await createSubnet(org.api, '10.33.0.0/24');
    const ips = Array.from({ length: 60 }, (_, i) => `10.33.0.${i + 10}`);
    expectStatus(await org.api.call('batchCreateAddresses', { params: { id: subnet.id }, body: { ips } }), 200);
    await page.goto(`/subnets/${subnet.id}`);
    const pager = page.getByRole('navigation', { name: 'Addresses pages' });
    await pager.getByText('Rows 1–50 of 60').waitFor();
    await pager.getByRole('button', { name: 'Next page' }).click();
    await pager.getByText('Rows 51–60 of 60').waitFor();
    expect(new URL(page.url()).searchParams.get('offset')).toBe('50');
    await page.reload();
    await page.getByRole('cell', { name: '10.33.0.69', exact: true }).waitFor();
    expect(await page.getByRole('cell', { name: '10.33.0.10', exact: true }).count()).toBe(0);

    await page.getByLabel('IP address').fill('10.33.0.2');
    await page.getByLabel('MAC address').fill('not a mac');
    await page.getByRole('button', { name: 'Add address' }).click();
    await expect.poll(() => page.getByLabel('MAC address').getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(page, 'MAC address')).toContain('must be a MAC address');
    await expectAccessible(page);
    await page.getByLabel('MAC address').fill('aa:bb:cc:dd:ee:ff');
    await page.getByLabel('Hostname').fill('printer-2f');
    await page.getByRole('button', { name: 'Add address' }).click();
    await page.getByRole('status').filter({ hasText: 'Added 10.33.0.2.' }).waitFor();
    await pager.getByText('Rows 51–61 of 61').waitFor();

    await pager.getByRole('button', { name: 'Previous page' }).click();
    await page.getByRole('button', { name: 'Edit address 10.33.0.2', exact: true }).click();
    const edit = page.getByRole('dialog', { name: 'Edit 10.33.0.2' });
    await edit.getByLabel('Owner').fill('facilities');
    await expectAccessible(page);
    await edit.getByRole('button', { name: 'Save address 10.33.0.2' }).click();
    await page.getByRole('row', { name: /10\.33\.0\.2 printer-2f aa:bb:cc:dd:ee:ff assigned facilities/ }).waitFor();

    await page.getByRole('button', { name: 'Delete address 10.33.0.2', exact: true }).click();
    const remove = page.getByRole('dialog', { name: 'Delete 10.33.0.2?' });
    await remove.getByText('The record of 10.33.0.2 (printer-2f) is deleted and the address is free again.').waitFor();
    await remove.getByRole('button', { name: 'Delete address 10.33.0.2' }).click();
    await page.getByRole('cell', { name: '10.33.0.2', exact: true }).waitFor({ state: 'detached' });
    await pager.getByText('Rows 1–50 of 60').waitFor();
  });
});
