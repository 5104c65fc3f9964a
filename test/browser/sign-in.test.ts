/** Signing in to the console: the magic link by mail, the page without a mail server, a used link's error. */
import { describe, expect, it } from 'vitest';
import { browserMissing, expectAccessible } from './support/browser';
import { useConsole } from './support/console';

describe.skipIf(browserMissing)(`signing in${browserMissing}`, () => {
  const t = useConsole();

  it('goes from the sign-in page through the mailed link to the start page of a new organisation', async () => {
    const page = await t.newPage();
    const email = await t.signIn(page);
    await expect.poll(() => page.url()).toBe(`${t.server.url}/`);
    await page.getByRole('heading', { name: 'Getting started' }).waitFor();
    expect(await page.getByText(email).isVisible()).toBe(true);
  });

  it('has no serious accessibility violation on the sign-in, check-your-mail and start pages', async () => {
    const page = await t.newPage();
    await page.goto('/login');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectAccessible(page);
    const email = `a11y-${Date.now()}@example.test`;
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByRole('heading', { name: 'Check your mail' }).waitFor();
    await expectAccessible(page);
    await page.goto(t.mailedLink(email));
    await page.getByRole('heading', { name: 'Getting started' }).waitFor();
    await expectAccessible(page);
  });

  it('shows why a link that was already used does not sign in, with the form to ask for another', async () => {
    const page = await t.newPage();
    const email = await t.signIn(page);
    const other = await t.newPage();
    await other.goto(t.mailedLink(email));
    await other.getByRole('alert').filter({ hasText: 'not valid any more' }).waitFor();
    expect(new URL(other.url()).pathname).toBe('/login');
    expect(await other.getByLabel('Email address').isVisible()).toBe(true);
  });

  it('signs out, and then sends the console back to the sign-in page', async () => {
    const page = await t.newPage();
    await t.signIn(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto('/subnets');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  });
});

describe.skipIf(browserMissing)(`signing in without a mail server${browserMissing}`, () => {
  const t = useConsole({ config: { smtpUrl: undefined } });

  it('says the link went to the server’s log', async () => {
    const page = await t.newPage();
    await page.goto('/login');
    await page.getByLabel('Email address').fill('laptop@example.test');
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByText('No mail server is configured on this server.').waitFor();
  });
});
