import type { Page } from 'playwright-core';

/**
 * How wide the page is laid out in a viewport `width` px wide (more than `width`: it scrolls sideways); the
 * viewport is put back as it was.
 */
export async function layoutWidthAt(page: Page, width: number): Promise<number> {
  const before = page.viewportSize();
  await page.setViewportSize({ width, height: before?.height ?? 800 });
  const laidOut = await page.evaluate(() => document.documentElement.scrollWidth);
  if (before) await page.setViewportSize(before);
  return laidOut;
}
