/**
 * /docs in real Chromium, served under a plain-HTTP host name that is not localhost
 * (`http://docs.test:<port>`, resolved to loopback by the browser): the API reference draws the
 * OpenAPI document with Scalar without a single request to another origin and without a CSP
 * violation, and the landing page, a guide and the reference have no serious or critical axe
 * findings. A guide fits a 390 px phone without sideways scrolling.
 */
import type { Browser, BrowserContext, ConsoleMessage } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, freePort, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser } from './helpers/browser.js';

const HOST = 'docs.test';
let t: TestApp;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  const port = await freePort();
  origin = `http://${HOST}:${port}`;
  t = await createTestApp({ env: { BASE_URL: origin, SITE_URL: origin } });
  await t.app.listen({ port, host: '127.0.0.1' });
  browser = await launchBrowser({ loopbackHosts: [HOST] });
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A context that answers every request for another origin with an abort, and lists it. */
async function sealedContext(viewport = { width: 1280, height: 900 }) {
  const context: BrowserContext = await browser.newContext({ viewport });
  const elsewhere: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    elsewhere.push(url);
    return route.abort();
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message: ConsoleMessage) => {
    // Chromium's notice that it ignores our Cross-Origin-Opener-Policy on plain http: expected here.
    if (message.type() === 'error' && !message.text().includes('Cross-Origin-Opener-Policy')) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  return { context, page, elsewhere, problems };
}

describe('/docs in a browser, on a plain-HTTP host that is not localhost', () => {
  it('the API reference loads its script from our origin and draws the API, with nothing from elsewhere', async () => {
    const { context, page, elsewhere, problems } = await sealedContext();
    const scripts: { url: string; status: number }[] = [];
    page.on('response', (response) => {
      if (response.request().resourceType() === 'script') scripts.push({ url: response.url(), status: response.status() });
    });
    const response = await page.goto(`${origin}/docs/reference`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).not.toContain('upgrade-insecure-requests');
    // Scalar has read /v1/openapi.json and drawn an operation of it.
    await page.getByText('Create a collection').first().waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle');
    // Scalar's bundle and our script that labels its copy buttons, both from this origin.
    expect(scripts.map((s) => s.status)).toEqual([200, 200]);
    expect(scripts.every((s) => s.url.startsWith(`${origin}/`))).toBe(true);
    expect(scripts.map((s) => s.url)).toContainEqual(expect.stringMatching(/\/docs\/assets\/scalar\.[0-9a-f]+\.js$/));
    expect(elsewhere).toEqual([]);
    expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p))).toEqual([]);
    // No visible link off the site either (Scalar's hosted client, "Powered by").
    const offSite = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLAnchorElement>('a[href]')]
        .filter((a) => !a.href.startsWith(`${location.origin}/`) && a.offsetParent !== null)
        .map((a) => a.href),
    );
    expect(offSite).toEqual([]);
    await expectNoSeriousAxeViolations(page);
    await context.close();
  }, 90_000);

  it('the landing page and a guide: no serious accessibility findings, no script, nothing from elsewhere', async () => {
    const { context, page, elsewhere, problems } = await sealedContext();
    await page.goto(`${origin}/docs`);
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('voicename documentation');
    await expectNoSeriousAxeViolations(page);
    await page
      .getByRole('link', { name: /^Quick start/ })
      .first()
      .click();
    await page.waitForURL(`${origin}/docs/quick-start`);
    await expectNoSeriousAxeViolations(page);
    // Headings carry anchors that lead to themselves.
    const anchor = await page.locator('h2 a.anchor').first().getAttribute('href');
    expect(anchor).toMatch(/^#[\w-]+$/);
    expect(await page.locator(`h2[id="${anchor?.slice(1)}"]`).count()).toBe(1);
    expect(await page.locator('script').count()).toBe(0);
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('a guide with wide tables and long code fits a 390 px phone without sideways scrolling', async () => {
    const { context, page } = await sealedContext({ width: 390, height: 844 });
    for (const guide of ['quick-start', 'webhooks', 'events', 'recordings']) {
      await page.goto(`${origin}/docs/${guide}`);
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      expect(scrollWidth, guide).toBeLessThanOrEqual(clientWidth);
      // The event catalog is mostly long JSON: its own check, besides the last guide's.
      if (guide === 'events') await expectNoSeriousAxeViolations(page);
    }
    await expectNoSeriousAxeViolations(page);
    await context.close();
  });
});
