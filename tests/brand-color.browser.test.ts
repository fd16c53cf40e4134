/**
 * A collection's brand colour in real Chromium: it reaches the record page's buttons under the
 * page's CSP (no inline style allowed), and axe finds no serious or critical problem on the page
 * with it, on a 390 px phone and on a desktop.
 */
import type { Browser, ConsoleMessage } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser } from './helpers/browser.js';

let t: TestApp & { url: string };
let browser: Browser;
let key: string;

beforeAll(async () => {
  t = await startTestServer();
  ({ key } = await t.newAccount());
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function recordPageWith(brandColor: string | null) {
  const collection = await t.request({
    method: 'POST',
    url: '/v1/collections',
    key,
    json: { name: 'Convocation 2027', branding: { organisation_name: 'Riverside University', brand_color: brandColor } },
  });
  expect(collection.statusCode, collection.body).toBe(201);
  const user = await t.request({
    method: 'POST',
    url: `/v1/collections/${collection.json<{ id: string }>().id}/users`,
    key,
    json: { email: `${Math.random()}@example.com`, first_name: 'Siobhán', last_name: 'Ní Bhriain' },
  });
  return `${t.url}${new URL(user.json<{ record_url: string }>().record_url).pathname}`;
}

describe('brand colour on the record page in Chromium', () => {
  it.each([
    ['a 390 px phone', { width: 390, height: 844 }],
    ['a desktop', { width: 1280, height: 800 }],
  ])('colours the record button on %s, with no CSP refusal and no serious axe finding', async (_what, viewport) => {
    const context = await browser.newContext({ viewport, locale: 'en-GB' });
    try {
      const page = await context.newPage();
      const refusals: string[] = [];
      page.on('console', (message: ConsoleMessage) => {
        if (/Content Security Policy/i.test(message.text())) refusals.push(message.text());
      });
      await page.goto(await recordPageWith('#1a4d8f'));
      const start = page.locator('#start');
      expect(await start.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(26, 77, 143)');
      expect(await start.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(255, 255, 255)');
      expect(refusals).toEqual([]);
      await expectNoSeriousAxeViolations(page);
    } finally {
      await context.close();
    }
  });

  it('keeps the page’s own blue without a brand colour', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      await page.goto(await recordPageWith(null));
      expect(await page.locator('#start').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(36, 86, 211)');
    } finally {
      await context.close();
    }
  });
});
