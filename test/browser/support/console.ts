/**
 * What a console test starts with: the real server (its API and the built console) on a real database,
 * listening on loopback with its own address as PUBLIC_URL and APP_URL, a real SMTP server catching the
 * mail, and Chromium. `signIn` goes through the magic-link flow as a person would.
 */
import { sql } from 'drizzle-orm';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { rowsOf } from '../../../server/db/connection';
import * as identity from '../../../server/modules/identity/identity.service';
import { SESSION_COOKIE } from '../../../server/modules/identity/tokens';
import type { Plan } from '../../../server/modules/plans/limits';
import { startSmtpServer } from '../../fixtures/smtp';
import { clientIp } from '../../support/client';
import { startTestServer, type TestServer, type TestServerOptions } from '../../support/server';
import { launchBrowser } from './browser';

export interface ConsoleFixture {
  server: TestServer;
  smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  browser: Browser;
  /**
   * A new browser context (its own cookies and client address: another person) and a page in it; viewport
   * 1280×800 unless told.
   */
  newPage(viewport?: { width: number; height: number }): Promise<Page>;
  /**
   * A new person (their own browser context) signed in with `session`'s cookie, a session the test server made
   * (`server.newOrg()`, `org.member(role)`): no mail round trip.
   */
  pageAs(session: string, viewport?: { width: number; height: number }): Promise<Page>;
  /** Signs in through the login page and the mailed link; lands on the start page. Answers the address. */
  signIn(page: Page, email?: string): Promise<string>;
  /** The organisation of a signed-in address, moved to `plan`. */
  setPlan(email: string, plan: Plan): Promise<void>;
  /** The sign-in link last mailed to `email`. */
  mailedLink(email: string, path?: string): string;
}

/** `options` may be a function, called when the server starts (after the suite's own earlier beforeAll hooks). */
export function useConsole(given: TestServerOptions | (() => TestServerOptions) = {}): ConsoleFixture {
  const t = {} as ConsoleFixture;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    const options = typeof given === 'function' ? given() : given;
    t.smtp = await startSmtpServer();
    t.server = await startTestServer({
      ...options,
      selfUrls: true,
      config: { smtpUrl: t.smtp.url, ...options.config },
    });
    t.browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await t.browser?.close();
    await t.server?.close();
    await t.smtp?.close();
  });

  t.newPage = async (viewport = { width: 1280, height: 800 }) => {
    // A client address of its own (the server trusts loopback proxies): sign-in routes are limited per IP.
    const context = await t.browser.newContext({
      viewport,
      baseURL: t.server.url,
      extraHTTPHeaders: { 'x-forwarded-for': clientIp() },
    });
    contexts.push(context);
    return context.newPage();
  };
  t.pageAs = async (session, viewport) => {
    const page = await t.newPage(viewport);
    await page.context().addCookies([{ name: SESSION_COOKIE, value: session, url: t.server.url }]);
    return page;
  };
  t.mailedLink = (email, path = '/api/v1/auth/verify') => {
    const mail = t.smtp.lastTo(email) ?? '';
    const match = new RegExp(`${t.server.url}${path.replace(/\//g, '\\/')}\\?token=[\\w-]+`).exec(mail);
    if (!match) throw new Error(`no link to ${path} mailed to ${email}`);
    return match[0];
  };
  t.signIn = async (page, email = `person-${Math.random().toString(36).slice(2)}@example.test`) => {
    await page.goto('/login');
    await page.getByLabel('Email address').fill(email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Check your mail' }).isVisible()).toBe(true);
    await page.goto(t.mailedLink(email));
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    return email;
  };
  t.setPlan = async (email, plan) => {
    await identity.setPlan(t.server.database.db, email, plan);
  };
  return t;
}

/** The id of the organisation of an address (for a test to reach it through the API). */
export async function orgIdOf(server: TestServer, email: string): Promise<string> {
  const rows = rowsOf<{ org_id: string }>(
    await server.database.db.execute(sql`SELECT org_id FROM users WHERE lower(email) = lower(${email})`),
  );
  const [row] = rows;
  if (!row) throw new Error(`no user ${email}`);
  return row.org_id;
}
