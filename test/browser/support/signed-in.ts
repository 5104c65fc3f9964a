/** A browser signed in as a person the test server made (`server.newOrg()`, `org.member(role)`): no mail round trip. */
import type { Page } from 'playwright-core';
import { SESSION_COOKIE } from '../../../server/modules/identity/tokens';
import type { ConsoleFixture } from './console';

/** A new person (their own browser context) holding `session`'s cookie. */
export async function pageAs(t: ConsoleFixture, session: string, viewport?: { width: number; height: number }) {
  const page: Page = await t.newPage(viewport);
  await page.context().addCookies([{ name: SESSION_COOKIE, value: session, url: t.server.url }]);
  return page;
}
