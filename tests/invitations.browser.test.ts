/**
 * Sending invitations with care in real Chromium, on a 390 px phone and a desktop: the people
 * table's form leads to the confirmation naming the count, the preview shows the mail in each
 * language, the test send reaches the organiser, and the batch goes on confirmation. No page
 * scrolls sideways on the phone, and axe finds nothing serious or critical on any of them.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';

let t: TestApp & { url: string };
let browser: Browser;

beforeAll(async () => {
  t = await startTestServer({ env: { MAIL_RATE_PER_MINUTE: '0' } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const overflows = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

async function checkPage(page: Page) {
  await expectNoSeriousAxeViolations(page);
  expect(await overflows(page), `${page.url()} scrolls sideways`).toBe(false);
}

describe('invitations with care in Chromium', () => {
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 900 },
  ]) {
    it(`confirms the count, previews per language and sends a test at ${viewport.width} px`, async () => {
      const email = `registrar-${viewport.width}@example.com`;
      const page = await (await browser.newContext({ viewport })).newPage();
      await signInByLink(page, t, email);

      const { key } = await t.newAccount(email);
      const created = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class of 2027' } });
      const collectionId = created.json<{ id: string }>().id;
      const users = [
        { email: `layla-${viewport.width}@example.com`, first_name: 'ليلى', last_name: 'حداد', language: 'ar' },
        { email: `a-very-long-address-of-someone-${viewport.width}@faculty-of-engineering.example.edu`, first_name: 'Siobhán' },
      ];
      const batch = await t.request({ method: 'POST', url: `/v1/collections/${collectionId}/users/batch`, key, json: { users } });
      expect(batch.statusCode, batch.body).toBe(201);

      await page.goto(`${t.url}/dashboard/collections/${collectionId}`);
      await page.getByRole('button', { name: 'Review and send…' }).click();
      await page.locator('#batch-count').waitFor();
      expect(await page.locator('#batch-count').textContent()).toBe('2 people will get an e-mail.');
      await checkPage(page);

      await page.getByRole('link', { name: 'العربية' }).click();
      await page.locator('#preview-subject').waitFor();
      expect(await page.locator('#mail-preview').getAttribute('lang')).toBe('ar');
      expect(await page.locator('#preview-sample').textContent()).toContain('ليلى حداد');
      await checkPage(page);
      await page.getByRole('button', { name: /Send this mail to me/ }).click();
      await page.locator('#test-sent').waitFor();
      expect(t.deps.mailer.lastMessageTo(email)?.html).toContain('<html lang="ar" dir="rtl">');
      await checkPage(page);

      await page.goBack();
      await page.goBack();
      await page.getByRole('button', { name: 'Send 2 e-mails' }).click();
      await page.getByText('The invitations are on their way.').waitFor();
    });
  }
});
