/**
 * The import's name order in Chromium, on a desktop and a 390 px phone: a file of Chinese and
 * Korean names previews with the hint and its "check again" button, which previews and imports
 * them family name first; the form and both previews have no serious axe violation and do not
 * scroll sideways on the phone.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';

let t: TestApp & { url: string };
let browser: Browser;
const EMAIL = 'name-order@example.com';
let key: string;

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const CJK = [
  'email,first_name,last_name',
  'wei@example.com,伟,张',
  'minjun@example.com,민준,김',
  'ada@example.com,Ada,Lovelace',
].join('\r\n');

const overflows = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

async function signedIn(width: number): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  await signInByLink(page, t, EMAIL);
  key ??= (await t.newAccount(EMAIL)).key;
  return page;
}

describe('family-name-first names in the dashboard import', () => {
  for (const width of [1280, 390]) {
    it(`hints, re-checks family name first and imports (${width} px), without serious axe violations`, async () => {
      const page = await signedIn(width);
      const created = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: `Class ${width}` } });
      const id = created.json<{ id: string }>().id;
      const fits = async (what: string) => expect(await overflows(page), what).toBe(false);

      await page.goto(`${t.url}/dashboard/collections/${id}/import`);
      await expect(page.getByRole('radio', { name: /Given name first/ }).isChecked()).resolves.toBe(true);
      await expectNoSeriousAxeViolations(page);
      await fits('the upload form');
      // The radio sits beside its words, not stretched across the phone's width.
      expect((await page.locator('#name-order-family').boundingBox())?.width).toBeLessThan(40);

      await page.getByLabel(/^CSV file/).setInputFiles({ name: 'class.csv', mimeType: 'text/csv', buffer: Buffer.from(CJK) });
      await page.getByRole('button', { name: 'Check the file' }).click();
      const hint = page.locator('#import-name-order-hint');
      await hint.getByRole('heading', { name: '2 names look family name first' }).waitFor();
      await expectNoSeriousAxeViolations(page);
      await fits('the preview with the hint');

      await hint.getByRole('button', { name: 'Check again with the family name first' }).click();
      await page.locator('#import-name-order').getByText('family name first').waitFor();
      expect(await page.locator('#import-name-order-hint').count()).toBe(0);
      await expect(page.locator('#import-preview').innerText()).resolves.toContain('张伟');
      await expectNoSeriousAxeViolations(page);
      await fits('the family-first preview');

      await page.getByRole('button', { name: 'Import 3 people' }).click();
      await page.getByRole('heading', { name: 'Import done' }).waitFor();
      const people = await t.request({ method: 'GET', url: `/v1/collections/${id}/users`, key });
      const names = people.json<{ data: { display_name: string }[] }>().data.map((p) => p.display_name);
      expect(names.sort()).toEqual(['Lovelace Ada', '张伟', '김민준']);
      await page.context().close();
    });
  }
});
