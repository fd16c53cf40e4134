/**
 * Dashboard layout in Chromium at 1280, 1024 and 800 px: the custom-field forms keep every
 * control under its own caption, and the people table wraps between words, never inside one
 * ("Recorde/d", "Suhart/o", an e-mail address over several lines). axe finds nothing serious.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';

let t: TestApp & { url: string };
let browser: Browser;
const EMAIL = 'layout-registrar@example.com';
const WIDTHS = [1280, 1024, 800];

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function signIn(): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await signInByLink(page, t, EMAIL);
  return page;
}

/** Each caption of a custom-field row with its control: the control's box starts under the caption, in the caption's column. */
const misplacedControls = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll<HTMLLabelElement>('.field-row label[for]:not(.check)')].flatMap((label) => {
      const control = document.getElementById(label.htmlFor);
      if (!control) return [`${label.htmlFor}: no control`];
      const caption = label.getBoundingClientRect();
      const box = control.getBoundingClientRect();
      const under = box.top >= caption.bottom - 1 && box.top - caption.bottom < 24;
      const sameColumn = Math.abs(box.left - caption.left) < 2;
      return under && sameColumn
        ? []
        : [`${label.htmlFor}: caption ${caption.left},${caption.bottom} control ${box.left},${box.top}`];
    }),
  );

/**
 * Words of the people table broken between two letters or digits ("Recorde/d", "Suhart/o").
 * Breaking after a hyphen or a dot of an address is ordinary line breaking.
 */
const brokenWords = (page: Page) =>
  page.evaluate(() => {
    const broken: string[] = [];
    for (const cell of document.querySelectorAll('table.people td')) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        const range = document.createRange();
        const lineOf = (i: number) => {
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          return Math.round(range.getBoundingClientRect().top);
        };
        for (let i = 1; i < text.length; i++) {
          const midWord = /[\p{L}\p{N}]/u.test(text[i - 1] as string) && /[\p{L}\p{N}]/u.test(text[i] as string);
          if (midWord && lineOf(i) !== lineOf(i - 1)) broken.push(text);
        }
      }
    }
    return broken;
  });

describe('dashboard layout in Chromium', () => {
  it('keeps custom-field controls under their captions and table words whole at 1280, 1024 and 800 px', async () => {
    const page = await signIn();
    const { key } = await t.newAccount(EMAIL);
    const created = await t.request({
      method: 'POST',
      url: '/v1/collections',
      key,
      json: {
        name: 'Class of 2027',
        custom_fields: [
          { key: 'seat', label: 'Seat', type: 'number' },
          { key: 'faculty', label: 'Faculty of study', type: 'text' },
        ],
      },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json<{ id: string }>().id;
    for (const [first, last, email] of [
      ['Suhartono', 'Wirjosandjojo', 'suhartono.wirjosandjojo.graduate-office@university-of-example.edu'],
      ['Siobhán', 'Ní Bhriain', 'siobhan@example.com'],
    ]) {
      const res = await t.request({
        method: 'POST',
        url: `/v1/collections/${id}/users`,
        key,
        json: { email, first_name: first, last_name: last },
      });
      expect(res.statusCode, res.body).toBe(201);
    }

    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`${t.url}/dashboard/collections/new`);
      expect(await misplacedControls(page), `new collection at ${width} px`).toEqual([]);
      await page.goto(`${t.url}/dashboard/collections/${id}/edit`);
      expect(await misplacedControls(page), `edit collection at ${width} px`).toEqual([]);
      if (width === 1280) await expectNoSeriousAxeViolations(page);
      await page.goto(`${t.url}/dashboard/collections/${id}`);
      await page.locator('table.people').waitFor();
      expect(await brokenWords(page), `people table at ${width} px`).toEqual([]);
    }
    await page.goto(`${t.url}/dashboard/collections/${id}/settings`);
    await expectNoSeriousAxeViolations(page);
    await page.setViewportSize({ width: 390, height: 800 });
    await expectNoSeriousAxeViolations(page);
  });
});
