/**
 * The public play-link pages in real Chromium: playback to the end, the slow toggle, a one-name
 * person with preferred name and pronouns at phone width, the embed
 * inside an iframe on another origin, the page without JavaScript, and the QR code.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import jsQRModule from 'jsqr';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushPlayCounts } from '../src/features/play-links/play-counts.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { launchBrowser } from './helpers/browser.js';
import { addRecordedUser, createCollection } from './helpers/play-link-fixtures.js';

// jsqr is CommonJS with a `default` property; its types describe the ES default export.
const jsQR = jsQRModule.default;

let t: TestApp & { url: string };
let browser: Browser;
let host: http.Server;
let hostUrl = '';
let token = '';
let embedHtml = '';
let oneNameToken = '';

beforeAll(async () => {
  [t, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  const { key } = await t.newAccount();
  const collectionId = await createCollection(t, key);
  const user = await addRecordedUser(t, collectionId, { displayName: 'Siobhan O’Sullivan', phoneticSpelling: 'shi-VAWN' });
  token = user.token;
  const link = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${user.userId}/play-link`, key });
  embedHtml = link.json().embed_html;
  // A one-name person who goes by another name, with long pronouns text.
  const oneName = await addRecordedUser(t, collectionId, {
    firstName: 'Oluwaseunfunmilayo',
    lastName: '',
    displayName: 'Oluwaseunfunmilayo',
  });
  oneNameToken = oneName.token;
  await t.request({
    method: 'PATCH',
    url: `/v1/collections/${collectionId}/users/${oneName.userId}`,
    key,
    json: { preferred_name: 'Seunfunmilayo-Adebayo', pronouns: 'she/her or they/them' },
  });
  // A customer's page on another origin (localhost vs 127.0.0.1, another port) embedding the widget.
  host = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><body style="margin:20px"><p>Our team</p>${embedHtml}</body></html>`);
  });
  await new Promise<void>((resolve) => host.listen(0, '127.0.0.1', resolve));
  hostUrl = `http://localhost:${(host.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => host?.close(resolve));
  await t?.close();
});

async function openPage(javaScriptEnabled = true): Promise<Page> {
  const context = await browser.newContext({ javaScriptEnabled });
  return context.newPage();
}

const audioState = (page: Page) =>
  page.evaluate(() => {
    const audio = document.getElementById('audio') as HTMLAudioElement;
    return { ended: audio.ended, rate: audio.playbackRate, paused: audio.paused, currentTime: audio.currentTime };
  });

describe('player page in Chromium', () => {
  it('plays the recording to the end with the big play button', async () => {
    const page = await openPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('response', (res) => res.status() >= 400 && errors.push(`${res.status()} ${res.url()}`));
    await page.goto(`${t.url}/p/${token}`);
    await expect(page.locator('#play').isVisible()).resolves.toBe(true);
    await page.click('#play');
    await page.waitForFunction(() => (document.getElementById('audio') as HTMLAudioElement).ended, null, { timeout: 15_000 });
    const state = await audioState(page);
    expect(state.currentTime).toBeGreaterThan(0.5);
    expect(errors).toEqual([]);
    await expect(page.context().cookies()).resolves.toEqual([]);
    await page.context().close();
  });

  it('shows a one-name person with their preferred name and pronouns, readable at 390 px without sideways scrolling', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto(`${t.url}/p/${oneNameToken}`);
    expect(await page.locator('h1').innerText()).toBe('Oluwaseunfunmilayo');
    expect(await page.locator('.person-details').innerText()).toBe(
      'Goes by Seunfunmilayo-Adebayo · Pronouns: she/her or they/them',
    );
    expect(await page.locator('.person-details').isVisible()).toBe(true);
    const widths = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    await context.close();
  });

  it('slows playback to 0.75x with the toggle, and back', async () => {
    const page = await openPage();
    await page.goto(`${t.url}/p/${token}`);
    await page.click('#slow');
    expect(await page.getAttribute('#slow', 'aria-pressed')).toBe('true');
    await page.click('#play');
    await page.waitForFunction(() => (document.getElementById('audio') as HTMLAudioElement).currentTime > 0.1);
    expect((await audioState(page)).rate).toBe(0.75);
    await page.click('#slow');
    expect((await audioState(page)).rate).toBe(1);
    expect(await page.getAttribute('#slow', 'aria-pressed')).toBe('false');
    await page.context().close();
  });

  it('works without JavaScript: native audio controls play the recording', async () => {
    const page = await openPage(false);
    await page.goto(`${t.url}/p/${token}`);
    expect(await page.locator('#controls').isVisible()).toBe(false);
    expect(await page.locator('h1').textContent()).toBe('Siobhan O’Sullivan');
    expect(await page.locator('#link-field').inputValue()).toBe(`${t.url}/p/${token}`);
    const audio = page.locator('audio#audio');
    expect(await audio.isVisible()).toBe(true);
    const box = await audio.boundingBox();
    expect(box && box.width > 100 && box.height > 20).toBe(true);
    // Press the native play button (left end of the control bar) like a person would.
    const audioResponse = page.waitForResponse((res) => res.url().includes(`/p/${token}/audio/`));
    if (!box) throw new Error('audio has no box');
    await page.mouse.click(box.x + 20, box.y + box.height / 2);
    expect([200, 206]).toContain((await audioResponse).status());
    // waitForFunction needs page scripts; poll from the test instead.
    await expect.poll(async () => (await audioState(page)).ended, { timeout: 15_000, interval: 200 }).toBe(true);
    await page.context().close();
  });

  it('shows a QR code that decodes to the play link', async () => {
    const svg = await (await fetch(`${t.url}/p/${token}/qr.svg`)).text();
    const page = await openPage();
    await page.setContent('<canvas id="c"></canvas>');
    // Bounded work that no clock decides: the image is drawn once it is known to be decoded, its
    // pixels (200x200, a few pixels per module) come back as one base64 string rather than an
    // array of 160,000 numbers, and jsQR reads them once, in dark-on-light only.
    const side = 200;
    const rgba = await page.evaluate(
      async ({ source, side }) => {
        const image = new Image();
        image.src = `data:image/svg+xml;base64,${btoa(source)}`;
        await image.decode();
        const canvas = document.getElementById('c') as HTMLCanvasElement;
        canvas.width = side;
        canvas.height = side;
        const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
        ctx.fillStyle = '#fff';
        ctx.fillRect(0, 0, side, side);
        ctx.drawImage(image, 0, 0, side, side);
        const data = ctx.getImageData(0, 0, side, side).data;
        let binary = '';
        for (let i = 0; i < data.length; i += 0x8000) binary += String.fromCharCode(...data.subarray(i, i + 0x8000));
        return btoa(binary);
      },
      { source: svg, side },
    );
    const pixels = Buffer.from(rgba, 'base64');
    const code = jsQR(new Uint8ClampedArray(pixels.buffer, pixels.byteOffset, pixels.length), side, side, {
      inversionAttempts: 'dontInvert',
    });
    expect(code?.data).toBe(`${t.url}/p/${token}`);
    await page.context().close();
  });
});

describe('embed in an iframe on another origin', () => {
  it('renders at 200x40, labels its button, and plays', async () => {
    await flushPlayCounts(t.deps);
    const before = (await t.request({ method: 'GET', url: `/p/${token}/meta` })).json().play_count;
    const page = await openPage();
    await page.goto(hostUrl);
    const iframe = page.locator('iframe');
    const box = await iframe.boundingBox();
    expect(box).toMatchObject({ width: 200, height: 40 });
    const frame = page.frames().find((f) => f.url().endsWith(`/p/${token}/embed`));
    if (!frame) throw new Error('embed frame not loaded');
    expect(new URL(frame.url()).origin).not.toBe(new URL(hostUrl).origin);
    await frame.waitForSelector('#b');
    const widget = await frame.locator('.w').boundingBox();
    expect(widget).toMatchObject({ width: 200, height: 40 });
    expect(await frame.getAttribute('#b', 'aria-label')).toBe('Play pronunciation of Siobhan O’Sullivan');
    expect(await frame.locator('.n').textContent()).toBe('Siobhan O’Sullivan');
    expect(await frame.locator('#b').isVisible()).toBe(true);
    await frame.click('#b');
    await frame.waitForFunction(() => (document.getElementById('a') as HTMLAudioElement).ended, null, { timeout: 15_000 });
    // The embed's play went through /p/<token>.mp3 and was counted.
    expect((await t.request({ method: 'GET', url: `/p/${token}/meta` })).json().play_count).toBe(before + 1);
    await page.context().close();
  });
});
