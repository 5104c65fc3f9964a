/**
 * Import and export: CSV pasted or uploaded, read in the browser and imported with every row's result shown;
 * the 1,000-row limit kept before sending; the exports downloaded; a viewer's export-only page.
 */
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSubnet } from '../support/factories';
import { expectStatus } from '../support/observed';
import type { TestOrg } from '../support/server';
import { browserMissing, expectAccessible, screenshot } from './support/browser';
import { useConsole } from './support/console';

/** Each row of the results table as its cells' texts. */
const resultRows = (page: Page) =>
  page
    .getByRole('table', { name: 'Result of each row of the import' })
    .getByRole('row')
    .evaluateAll((rows) => rows.slice(1).map((row) => [...row.querySelectorAll('td')].map((td) => td.innerText)));

/** Chooses a .csv file holding `text`; answers once the page has read it into the text box. */
async function upload(page: Page, text: string) {
  await page
    .getByLabel('CSV file')
    .setInputFiles({ name: 'rows.csv', mimeType: 'text/csv', buffer: Buffer.from(text) });
  await expect.poll(() => page.getByLabel('CSV', { exact: true }).inputValue()).toBe(text);
}

/** The file a click downloads: its name and text. */
async function download(page: Page, link: string) {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: link }).click()]);
  return { name: file.suggestedFilename(), text: await readFile((await file.path()) ?? '', 'utf8') };
}

describe.skipIf(browserMissing)(`import and export${browserMissing}`, () => {
  const t = useConsole();

  /** A person of a new organisation (an admin), on the page once `seed` has run. */
  async function open(seed?: (org: TestOrg) => unknown) {
    const org = await t.server.newOrg();
    await seed?.(org);
    const page = await t.pageAs(org.session);
    await page.goto('/import-export');
    await page.getByRole('heading', { name: 'Import and export' }).waitFor();
    return { org, page };
  }

  it('imports pasted CSV and shows each row created, skipped or refused with the reason', async () => {
    const { org, page } = await open((org) => createSubnet(org.web, '10.1.0.0/24'));
    await expectAccessible(page);
    await page
      .getByLabel('CSV', { exact: true })
      .fill(
        'network,name,vlan,is_pool\r\n10.2.0.0/24,"Office, 2nd floor",120,true\r\n10.1.0.0/24,Again,,\r\nnot-a-cidr,Bad,,\r\n',
      );
    await page.getByRole('button', { name: 'Import subnets' }).click();
    await page.getByRole('status').filter({ hasText: '3 rows: 1 created, 1 skipped, 1 with an error.' }).waitFor();
    const rows = await resultRows(page);
    expect(rows.map((row) => row.slice(0, 4))).toEqual([
      ['1', '2', '10.2.0.0/24', 'created'],
      ['2', '3', '10.1.0.0/24', 'skipped'],
      ['3', '4', 'not-a-cidr', 'error'],
    ]);
    expect(rows[2]?.[4]).toMatch(/^network: must be a CIDR/);
    await expectAccessible(page);
    await page.getByRole('heading', { name: 'Results' }).evaluate((heading) => heading.scrollIntoView());
    await screenshot(page, 'import');

    await page.goto('/subnets');
    await page.getByText('10.2.0.0/24').first().waitFor();
    const [created] = expectStatus(await org.web.call('listSubnets'), 200).filter((s) => s.network === '10.2.0.0/24');
    expect([created?.name, created?.vlan_number, created?.is_pool]).toEqual(['Office, 2nd floor', 120, true]);
  });

  it('imports the addresses of an uploaded .csv file', async () => {
    const { org, page } = await open();
    const subnet = await createSubnet(org.web, '10.1.0.0/24');
    await page.getByRole('radio', { name: 'Addresses' }).check();
    const csv = 'ip,subnet,hostname,status\n10.1.0.5,10.1.0.0/24,"web ""primary""",reserved\n';
    await upload(page, csv);
    await page.getByRole('button', { name: 'Import addresses' }).click();
    await page.getByRole('status').filter({ hasText: '1 row: 1 created, 0 skipped, 0 with an error.' }).waitFor();
    const [address] = expectStatus(await org.web.call('listSubnetAddresses', { params: { id: subnet.id } }), 200);
    expect([address?.ip, address?.hostname, address?.status]).toEqual(['10.1.0.5', 'web "primary"', 'reserved']);
  });

  it('sends 1,000 rows and refuses 1,001 before sending anything', async () => {
    const { page } = await open();
    let imports = 0;
    page.on('request', (request) => {
      if (request.url().includes('/api/v1/import/')) imports++;
    });
    // Rows the API refuses one by one without looking anything up: what counts here is that they are sent.
    // Uploaded: typing a thousand lines into the text box takes the browser seconds.
    const rows = (n: number) => `network\n${'x\n'.repeat(n)}`;
    await upload(page, rows(1001));
    await page.getByRole('button', { name: 'Import subnets' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'There are 1,001 rows: an import takes at most 1,000. Split the file and import each part.' })
      .waitFor();
    expect(imports).toBe(0);
    await expectAccessible(page);

    await upload(page, rows(1000));
    await page.getByRole('button', { name: 'Import subnets' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: '1,000 rows: 0 created, 0 skipped, 1,000 with an error.' })
      .waitFor();
    expect(imports).toBe(1);
  });

  it('names the column an import does not take, before sending', async () => {
    const { page } = await open();
    await page.getByLabel('CSV', { exact: true }).fill('network,colour\n10.0.0.0/24,red\n');
    await page.getByRole('button', { name: 'Import subnets' }).click();
    await page.getByRole('alert').filter({ hasText: 'Line 1: the subnets import has no column “colour”.' }).waitFor();
  });

  it('downloads the subnets, and the addresses of one subnet, as CSV with their header rows', async () => {
    const { page } = await open(async (org) => {
      const folder = expectStatus(await org.web.call('createFolder', { body: { name: 'Lab' } }), 201);
      await createSubnet(org.web, '10.1.0.0/24', { folder_id: folder.id });
      const other = await createSubnet(org.web, '10.2.0.0/24');
      const body = { ip: '10.2.0.9', hostname: 'nas' };
      expectStatus(await org.web.call('createAddress', { params: { id: other.id }, body }), 201);
    });

    await page.getByLabel('Subnets of').selectOption({ label: 'Folder Lab' });
    const subnets = await download(page, 'Download subnets CSV');
    expect(subnets.name).toMatch(/^subnets-.+\.csv$/);
    expect(subnets.text.split('\r\n').slice(0, 2)).toEqual([
      'network,name,description,folder,vlan,vrf,location,gateway,dns_primary,dns_secondary,is_pool,scan_enabled,tracked,tags,custom_fields',
      '10.1.0.0/24,,,Lab,,,,,,,false,false,true,,',
    ]);

    await page.getByLabel('Addresses of').selectOption({ label: '10.2.0.0/24' });
    const addresses = await download(page, 'Download addresses CSV');
    expect(addresses.text).toBe(
      'ip,subnet,hostname,mac_address,description,status,owner,ptr_record,vrf,tags,custom_fields\r\n10.2.0.9,10.2.0.0/24,nas,,,assigned,,,,,\r\n',
    );
  });

  it('shows a viewer the exports and no import', async () => {
    const org = await t.server.newOrg();
    const page = await t.pageAs((await org.member('viewer')).session);
    await page.goto('/import-export');
    await page.getByRole('heading', { name: 'Export', exact: true }).waitFor();
    expect(await page.getByRole('heading', { name: 'Import', exact: true }).count()).toBe(0);
    expect(await page.getByRole('main').getByRole('button').count()).toBe(0);
    expect(await page.getByRole('main').getByRole('textbox').count()).toBe(0);
    expect((await download(page, 'Download subnets CSV')).text).toMatch(/^network,/);
    await expectAccessible(page);
  });
});
