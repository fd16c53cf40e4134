/**
 * The record page in real Chromium on a 390 px phone: Arabic lays out right to left, axe finds
 * no serious or critical problem on a first visit or a return visit (with the details form and
 * the signature badge open), nothing is wider than the screen, and a returning person hears
 * their recording and deletes it.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
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

async function person(settings: Record<string, unknown>, recorded = false) {
  const collection = await t.request({
    method: 'POST',
    url: '/v1/collections',
    key,
    json: {
      name: 'Convocation 2027',
      deadline: '2027-03-15',
      branding: { organisation_name: 'Riverside University', privacy_note: 'Only the ceremony team hears it.' },
      ...settings,
    },
  });
  const collectionId = collection.json<{ id: string }>().id;
  const user = await t.request({
    method: 'POST',
    url: `/v1/collections/${collectionId}/users`,
    key,
    json: { email: `${Math.random()}@example.com`, first_name: 'Siobhán', last_name: 'Ní Bhriain' },
  });
  const { id, record_url } = user.json<{ id: string; record_url: string }>();
  if (recorded) {
    const res = await t.request({
      method: 'PUT',
      url: `/v1/collections/${collectionId}/users/${id}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    expect(res.statusCode, res.body).toBe(200);
  }
  return `${t.url}${new URL(record_url).pathname}`;
}

async function phonePage(locale = 'en-GB'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale, permissions: [] });
  return context.newPage();
}

const widerThanScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

describe('record page in Chromium at 390 px', () => {
  it('is right-to-left in Arabic, with the script speaking Arabic too', async () => {
    const page = await phonePage('ar');
    await page.goto(await person({ language: 'ar' }));
    expect(await page.getAttribute('html', 'dir')).toBe('rtl');
    expect(await page.getAttribute('html', 'lang')).toBe('ar');
    expect(await page.textContent('h1')).toBe('Siobhán Ní Bhriain');
    expect(await page.textContent('#deadline')).toContain('يُرجى التسجيل قبل');
    // The upload fallback's own message comes from the Arabic catalogue.
    await page.click('#upload-box summary');
    await page.click('#upload');
    await expect.poll(() => page.textContent('#status')).toBe('اختر ملفًا صوتيًا أولًا.');
    // The text starts at the right: the eyebrow's words end at the right margin, not the left.
    const words = await page.evaluate(() => {
      const range = document.createRange();
      range.selectNodeContents(document.querySelector('.eyebrow') as Element);
      const box = range.getBoundingClientRect();
      return { left: box.left, right: box.right };
    });
    expect(words.right).toBeGreaterThan(360);
    expect(words.left).toBeGreaterThan(100);
    expect(await widerThanScreen(page)).toBe(false);
    await expectNoSeriousAxeViolations(page);
    await page.context().close();
  });

  it('has no serious accessibility problem on a first visit, and fits the screen', async () => {
    const page = await phonePage();
    await page.goto(await person({}));
    await page.click('#upload-box summary');
    await page.click('#details summary');
    expect(await widerThanScreen(page)).toBe(false);
    await expectNoSeriousAxeViolations(page);
    await page.context().close();
  });

  it('lets a returning person hear, copy and delete their recording', async () => {
    const page = await phonePage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    await page.goto(await person({}, true));
    const audio = page.locator('.current audio');
    await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.readyState)).toBe(0);
    await audio.evaluate((el: HTMLAudioElement) => el.play());
    await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.duration), { timeout: 10_000 }).toBeGreaterThan(0.5);

    await page.click('button[data-copy="own-play-link"]');
    await expect.poll(() => page.textContent('button[data-copy="own-play-link"]')).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await page.inputValue('#own-play-link'));

    await page.click('.signature summary');
    expect(await page.inputValue('#signature-html')).toContain('/badge.png?scale=2');
    expect(await widerThanScreen(page)).toBe(false);
    await expectNoSeriousAxeViolations(page);

    await page.click('.current details:not(.signature) summary');
    await Promise.all([page.waitForURL(/\?deleted=1$/), page.click('button.danger')]);
    expect(await page.textContent('#notice')).toBe('Your recording is deleted.');
    expect(await page.locator('.current').count()).toBe(0);
    await page.context().close();
  });
});
