/**
 * "How to say my name" in real Chromium on a 390 px phone: the person edits the respelling, hears
 * it (an audio/mpeg answer that the page plays), is told when a letter is outside the key,
 * approves the computer voice and sees the approved state; axe finds nothing serious; in Arabic
 * the page is right-to-left while the respelling stays left-to-right. The fake speech engine
 * (a short silent MP3): the page, not the voice, is the subject.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser } from './helpers/browser.js';
import { fakeSpeech } from './helpers/fake-speech.js';
import { runJobsLater } from './helpers/jobs.js';

let t: TestApp & { url: string };
let browser: Browser;
let key: string;

beforeAll(async () => {
  t = await startTestServer({ overrides: fakeSpeech() });
  ({ key } = await t.newAccount());
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A person with a generated guide; their record page's URL and id. */
async function person(collectionSettings: Record<string, unknown> = {}) {
  const collection = await t.request({
    method: 'POST',
    url: '/v1/collections',
    key,
    json: { name: 'Convocation 2027', ...collectionSettings },
  });
  const collectionId = collection.json<{ id: string }>().id;
  const res = await t.request({
    method: 'POST',
    url: `/v1/collections/${collectionId}/users`,
    key,
    json: { email: `${Math.random()}@example.com`, first_name: 'Siobhan', last_name: 'Walsh' },
  });
  expect(res.statusCode, res.body).toBe(201);
  await runJobsLater(t.deps, 0);
  const { id, record_url } = res.json<{ id: string; record_url: string }>();
  return { id, collectionId, url: `${t.url}${new URL(record_url).pathname}` };
}

async function phonePage(locale = 'en-GB'): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale, permissions: [] });
  return context.newPage();
}

const widerThanScreen = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

describe('"How to say my name" in Chromium at 390 px', () => {
  it('edits the respelling, hears it, approves the computer voice and sees it approved', async () => {
    const { id, collectionId, url } = await person();
    const page = await phonePage();
    await page.goto(url);
    expect(await page.textContent('#guide-title')).toBe('How to say my name');
    await expectNoSeriousAxeViolations(page);

    // A letter outside the key: the page says so in its own words, and marks the field.
    await page.fill('#guide-input', 'shiv-AWNq');
    await page.click('#guide-hear');
    await expect.poll(() => page.textContent('#guide-status')).toContain('Some of those letters are not in the key');
    expect(await page.getAttribute('#guide-input', 'aria-invalid')).toBe('true');

    await page.fill('#guide-input', 'shiv-AWN WAHLSH');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/pronunciation/hear') && r.request().method() === 'POST'),
      page.click('#guide-hear'),
    ]);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('audio/mpeg');
    // The page reads the body into a blob, so the protocol may no longer hold it: the length
    // says it is not empty, and the player reaching its end says it is audio.
    expect(Number(response.headers()['content-length'])).toBeGreaterThan(0);
    expect(JSON.parse(response.request().postData() ?? '{}')).toEqual({ respelling: 'shiv-AWN WAHLSH' });
    // The page plays it to the end.
    await page.waitForSelector('#guide[data-heard="ended"]', { timeout: 10_000 });
    expect(await page.getAttribute('#guide-input', 'aria-invalid')).toBeNull();

    await page.fill('#guide-not-like', 'SHY-oh-ban');
    await Promise.all([page.waitForURL(/\?guide_approved=1$/), page.click('#guide-approve')]);
    expect(await page.textContent('#notice')).toBe('Approved: this computer voice will say your name.');
    expect(await page.isVisible('#guide-approved')).toBe(true);
    expect(await page.isVisible('#guide-withdraw')).toBe(true);
    expect(await page.textContent('#guide-respelling')).toBe('shiv-AWN WAHLSH');
    expect(await widerThanScreen(page)).toBe(false);
    await page.click('#guide-key summary');
    expect(await widerThanScreen(page)).toBe(false);
    await expectNoSeriousAxeViolations(page);

    const user = (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${id}`, key })).json();
    expect(user.pronunciation).toMatchObject({
      coverage: 'computer_voice',
      respelling: 'shiv-AWN WAHLSH',
      not_like: 'SHY-oh-ban',
      audio_url: expect.stringMatching(/\/pronunciations\/[\w-]+\.mp3$/),
    });

    await Promise.all([page.waitForURL(/\?guide_withdrawn=1$/), page.click('#guide-withdraw')]);
    expect(await page.isVisible('#guide-approve')).toBe(true);
    await page.context().close();
  }, 60_000);

  it('is right-to-left in Arabic, with the respelling left-to-right and the script speaking Arabic', async () => {
    const { url } = await person({ language: 'ar' });
    const page = await phonePage('ar');
    await page.goto(url);
    expect(await page.getAttribute('html', 'dir')).toBe('rtl');
    expect(await page.textContent('#guide-title')).toBe('كيف يُنطق اسمي');
    expect(await page.evaluate(() => getComputedStyle(document.getElementById('guide-input')!).direction)).toBe('ltr');
    expect(await page.evaluate(() => getComputedStyle(document.getElementById('guide')!).direction)).toBe('rtl');
    await page.fill('#guide-input', '');
    await page.click('#guide-hear-sentence');
    await expect
      .poll(() => page.textContent('#guide-status'))
      .toBe('بعض هذه الأحرف غير موجود في المفتاح. استخدم الأحرف الواردة في «كيف تُكتب الأصوات» أدناه.');
    await page.fill('#guide-input', 'shiv-AWN');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/pronunciation/hear')),
      page.click('#guide-hear-sentence'),
    ]);
    expect(response.status()).toBe(200);
    expect(response.headers()['content-type']).toBe('audio/mpeg');
    await page.waitForSelector('#guide[data-heard="ended"]', { timeout: 10_000 });
    expect(await widerThanScreen(page)).toBe(false);
    await expectNoSeriousAxeViolations(page);
    await page.context().close();
  }, 60_000);
});
