/**
 * A collection's brand colour in real Chromium: it reaches the record page's buttons, the
 * player page's play button and the embed's under the pages' CSP (no inline style allowed), and axe finds no
 * serious or critical problem on them with it, on a 390 px phone and on a desktop.
 */
import fs from 'node:fs';
import type { Browser, ConsoleMessage } from 'playwright-core';
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

async function personWith(brandColor: string | null) {
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
  const { id, record_url } = user.json<{ id: string; record_url: string }>();
  return { collectionId: collection.json<{ id: string }>().id, userId: id, recordUrl: `${t.url}${new URL(record_url).pathname}` };
}

const recordPageWith = async (brandColor: string | null) => (await personWith(brandColor)).recordUrl;

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

  /** The path of a recorded person's play link, in a collection with `brandColor`. */
  async function playLinkPathWith(brandColor: string | null): Promise<string> {
    const { collectionId, userId } = await personWith(brandColor);
    const recorded = await t.request({
      method: 'PUT',
      url: `/v1/collections/${collectionId}/users/${userId}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    expect(recorded.statusCode, recorded.body).toBe(200);
    const link = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${userId}/play-link`, key });
    return new URL(link.json<{ play_link: string }>().play_link).pathname;
  }

  it('colours the player page’s play button, and axe finds nothing serious there', async () => {
    const path = await playLinkPathWith('#5b2a86');
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      await page.goto(`${t.url}${path}`);
      await page.locator('#play').waitFor();
      expect(await page.locator('#play').evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(91, 42, 134)');
      await expectNoSeriousAxeViolations(page);
    } finally {
      await context.close();
    }
  });

  it('colours the 200x40 embed’s play button, with no CSP refusal, and keeps its own blue without one', async () => {
    const branded = await playLinkPathWith('#5b2a86');
    const plain = await playLinkPathWith(null);
    const context = await browser.newContext({ viewport: { width: 200, height: 40 } });
    try {
      const page = await context.newPage();
      const refusals: string[] = [];
      page.on('console', (message: ConsoleMessage) => {
        if (/Content Security Policy/i.test(message.text())) refusals.push(message.text());
      });
      const buttonColour = async (path: string) => {
        await page.goto(`${t.url}${path}/embed`);
        await page.locator('#b').waitFor();
        return page.locator('#b').evaluate((el) => getComputedStyle(el).backgroundColor);
      };
      expect(await buttonColour(branded)).toBe('rgb(91, 42, 134)');
      await expectNoSeriousAxeViolations(page);
      expect(await buttonColour(plain)).toBe('rgb(53, 56, 205)');
      expect(refusals).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
