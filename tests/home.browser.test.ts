/**
 * The product page `/` in Chromium, on a 390 px phone and a desktop: it fits without sideways
 * scrolling, axe finds nothing serious, the sample name's `<audio>` loads and plays under the
 * page's CSP (no script of ours), "Start a collection" leads to the dashboard's sign-in, and the
 * developers' links are one link away.
 */
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser } from './helpers/browser.js';

let t: TestApp & { url: string };
let browser: Browser;

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function openHome(viewport: { width: number; height: number }) {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error' && !message.text().includes('Cross-Origin-Opener-Policy')) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  const response = await page.goto(`${t.url}/`);
  expect(response?.status()).toBe(200);
  return { context, page, problems };
}

const sideways = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

describe('the product page in a browser', () => {
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 900 },
  ]) {
    it(`at ${viewport.width} px: fits, has no serious axe finding, and the sample name loads and plays`, async () => {
      const { context, page, problems } = await openHome(viewport);
      expect(await sideways(page)).toBeLessThanOrEqual(0);
      await expectNoSeriousAxeViolations(page);
      expect(await page.locator('script').count()).toBe(0);

      const audio = page.locator('#sample-audio');
      await expect(audio.isVisible()).resolves.toBe(true);
      // HAVE_METADATA: the browser fetched and understood the MP3 under the page's CSP.
      await page.waitForFunction(() => (document.getElementById('sample-audio') as HTMLAudioElement).readyState >= 1, null, {
        timeout: 10_000,
      });
      const duration = await audio.evaluate((element: HTMLAudioElement) => element.duration);
      expect(duration).toBeGreaterThan(0.5);
      expect(duration).toBeLessThan(5);
      await audio.evaluate((element: HTMLAudioElement) => element.play());
      await page.waitForFunction(() => (document.getElementById('sample-audio') as HTMLAudioElement).currentTime > 0.2, null, {
        timeout: 10_000,
      });
      const box = await audio.boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(viewport.width);
      await expect(page.locator('.sample-name').textContent()).resolves.toContain('shiv-AWN MUR-fee');

      expect(problems).toEqual([]);
      await context.close();
    });
  }

  it('"Start a collection" leads to the sign-in; "For developers" leads to the API docs, discovery document and llms.txt', async () => {
    const { context, page } = await openHome({ width: 390, height: 844 });
    await page.getByRole('link', { name: 'For developers' }).click();
    await page.waitForURL(`${t.url}/#developers`);
    const developers = page.locator('#developers');
    for (const name of ['API docs and guides', 'Discovery document', 'llms.txt']) {
      await expect(developers.getByRole('link', { name }).isVisible()).resolves.toBe(true);
    }
    await page.getByRole('link', { name: 'Start a collection' }).click();
    await page.getByRole('button', { name: 'Send sign-in link' }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/dashboard/);
    await context.close();
  });
});
