/**
 * The listener's pages in real Chromium: the player page at phone width with its share
 * disclosure, the preview card and badge as images a browser decodes, the embed inside a
 * customer's page, and axe-core on the player page, the embed (in a host page) and an agent
 * profile: no serious or critical violation.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser } from './helpers/browser.js';
import { publishEntity, validBody } from './helpers/entities.js';
import { fakeSpeech } from './helpers/fake-speech.js';
import { addRecordedUser, createCollection } from './helpers/play-link-fixtures.js';

let t: TestApp & { url: string };
let browser: Browser;
let host: http.Server;
let hostUrl = '';
let token = '';
let longToken = '';
let hostedEmbeds = '';

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer({ overrides: fakeSpeech() }), launchBrowser()]);
  const { key } = await t.newAccount();
  const collectionId = await createCollection(t, key);
  await t.request({
    method: 'PATCH',
    url: `/v1/collections/${collectionId}`,
    key,
    json: { branding: { organisation_name: 'Riverside University' } },
  });
  const user = await addRecordedUser(t, collectionId, {
    displayName: 'Siobhán Ní Bhriain',
    phoneticSpelling: 'shi-VAWN nee VREE-in',
  });
  token = user.token;
  await t.request({
    method: 'PATCH',
    url: `/v1/collections/${collectionId}/users/${user.userId}`,
    key,
    json: { pronouns: 'she/her' },
  });
  const long = await addRecordedUser(t, collectionId, {
    firstName: 'Wolfeschlegelsteinhausenbergerdorff',
    lastName: 'Oluwaseunfunmilayo-Adebayo',
    displayName: 'Wolfeschlegelsteinhausenbergerdorff Oluwaseunfunmilayo-Adebayo',
  });
  longToken = long.token;
  const embedOf = async (userId: string) =>
    (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${userId}/play-link`, key })).json()
      .embed_html as string;
  hostedEmbeds = `${await embedOf(user.userId)}<br>${await embedOf(long.userId)}`;
  // A customer's page on another origin embedding both widgets with the API's embed_html.
  host = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html lang="en"><head><title>Our team</title></head><body><main><h1>Our team</h1>${hostedEmbeds}</main></body></html>`,
    );
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://localhost:${(host.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => host?.close(resolve));
  await t?.close();
});

async function phonePage(locale?: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, ...(locale ? { locale } : {}) });
  return context.newPage();
}

const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

describe('player page', () => {
  it('leads with the name at 390 px; the share disclosure opens onto link, embed code, QR and signature badge, still without sideways scrolling', async () => {
    const page = await phonePage();
    await page.goto(`${t.url}/p/${token}`);
    expect(await page.locator('h1').innerText()).toBe('Siobhán Ní Bhriain');
    expect(await page.locator('.phonetic').innerText()).toContain('shi-VAWN nee VREE-in');
    expect(await page.locator('.pronouns').innerText()).toBe('Pronouns: she/her');
    expect(await page.locator('#play').isVisible()).toBe(true);
    expect(await page.locator('#slow').isVisible()).toBe(true);
    expect(await page.locator('#from').innerText()).toBe('From Riverside University');
    // Sharing waits behind the disclosure.
    expect(await page.locator('#link-field').isVisible()).toBe(false);
    expect(await page.locator('.qr img').isVisible()).toBe(false);
    expect(await noSidewaysScroll(page)).toBe(true);
    await page.click('#share summary');
    expect(await page.locator('#share').getAttribute('open')).toBe('');
    expect(await page.locator('#link-field').isVisible()).toBe(true);
    expect(await page.locator('#embed-field').isVisible()).toBe(true);
    expect(await page.locator('#signature-field').isVisible()).toBe(true);
    expect(await page.locator('#signature-field').inputValue()).toContain(
      `<img src="${t.url}/p/${token}/badge.png?scale=2" width="180" height="40"`,
    );
    // The badge preview and the QR code are images the browser decoded.
    const sizes = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLImageElement>('#share img')].map((img) => [img.naturalWidth, img.naturalHeight]),
    );
    expect(sizes).toEqual([
      [expect.any(Number), expect.any(Number)],
      [360, 80],
    ]);
    expect(sizes[0]?.[0]).toBeGreaterThan(0);
    expect(await noSidewaysScroll(page)).toBe(true);
    await expectNoSeriousAxeViolations(page);
    await page.context().close();
  });

  it('is right to left in Arabic, at 390 px without sideways scrolling, and passes axe', async () => {
    const page = await phonePage('ar');
    await page.goto(`${t.url}/p/${longToken}`);
    expect(await page.getAttribute('html', 'dir')).toBe('rtl');
    await page.click('#share summary');
    expect(await noSidewaysScroll(page)).toBe(true);
    await expectNoSeriousAxeViolations(page);
    await page.context().close();
  });

  it('has a preview card the browser decodes at 1200x630', async () => {
    const page = await phonePage();
    await page.goto(`${t.url}/p/${token}`);
    const card = await page.getAttribute('meta[property="og:image"]', 'content');
    const size = await page.evaluate(async (src) => {
      const image = new Image();
      image.src = src;
      await image.decode();
      return [image.naturalWidth, image.naturalHeight];
    }, card as string);
    expect(size).toEqual([1200, 630]);
    await page.context().close();
  });
});

describe('embed inside a host page', () => {
  it('has titled frames, fits a long name in smaller type with the full name as tooltip, and passes axe', async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(hostUrl);
    expect(await page.locator('iframe').first().getAttribute('title')).toBe('How to say Siobhán Ní Bhriain');
    const frame = page.frames().find((f) => f.url().endsWith(`/p/${longToken}/embed`));
    if (!frame) throw new Error('embed frame not loaded');
    await frame.waitForSelector('#b');
    const name = frame.locator('.n');
    expect(await name.getAttribute('title')).toBe('Wolfeschlegelsteinhausenbergerdorff Oluwaseunfunmilayo-Adebayo');
    const layout = await frame.evaluate(() => {
      const n = document.querySelector('.n') as HTMLElement;
      const w = document.querySelector('.w') as HTMLElement;
      return {
        fontSize: getComputedStyle(n).fontSize,
        widget: [w.offsetWidth, w.offsetHeight],
        nameBottom: n.getBoundingClientRect().bottom,
      };
    });
    expect(parseFloat(layout.fontSize)).toBeLessThan(13);
    expect(layout.widget).toEqual([200, 40]);
    expect(layout.nameBottom).toBeLessThanOrEqual(40);
    await expectNoSeriousAxeViolations(page);
    await page.context().close();
  });
});

describe('agent profile page', () => {
  it('passes axe', async () => {
    const { paid } = await publishEntity(t, validBody({ intro: 'Hello, I book your meetings.' }));
    const page = await (await browser.newContext()).newPage();
    await page.goto(paid.json().entity.profile_url.replace(t.config.siteUrl, t.url));
    await expectNoSeriousAxeViolations(page);
    await page.context().close();
  });
});
