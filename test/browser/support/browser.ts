/**
 * Debian's Chromium driven by playwright-core (never a downloaded browser), headless, kept off the network:
 * every name but the loopback address resolves to nothing, and background networking is off.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Why the browser tests cannot run here, or '' when they can: without Chromium they skip, saying so, except
 * under CI (which installs it), where they fail.
 */
export const browserMissing =
  existsSync(CHROMIUM) || process.env.CI ? '' : ` (skipped: Chromium is not installed at ${CHROMIUM})`;
if (browserMissing) console.warn(`browser tests not run${browserMissing}; Debian: apt-get install chromium`);

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The serious and critical accessibility violations axe-core finds on the page as it is now. */
export async function seriousViolations(page: Page) {
  // Evaluated through the DevTools protocol, which the page's Content-Security-Policy does not govern.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run()).violations as { id: string; impact: string; help: string; nodes: { target: unknown }[] }[];
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}

/** Fails with axe-core's own words when the page has a serious or critical violation. */
export async function expectAccessible(page: Page) {
  expect(await seriousViolations(page)).toEqual([]);
}

/** Where the README's screenshots go when SCREENSHOTS=1 (`npm run screenshots`); otherwise nothing is written. */
export async function screenshot(page: Page, name: string) {
  if (process.env.SCREENSHOTS !== '1') return;
  await page.screenshot({ path: `docs/screenshots/${name}.png`, fullPage: false });
}
