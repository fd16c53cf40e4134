/**
 * The ceremony reader in real Chromium with the network cut (`context.setOffline`): once it says
 * everything is saved, a reload, a change of order and playing (a recording, a computer's guess)
 * all work offline; one kept page serves every order, each in the server's order for it, and a
 * load fetches the page once, not once per order; a rejected recording is skipped for the guide,
 * also when it was rejected after the device kept the page; the full-screen presenter view
 * with keys and a clicker's Page Up / Page Down; Space never reaches the browser; another script
 * brings a person up with `voicenameReader.showPerson`; no serious axe violation at 390 px and on
 * a desktop; signing out clears what the browser kept.
 */
import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';

import { runJobsLater } from './helpers/jobs.js';

let t: TestApp & { url: string };
let browser: Browser;
let context: BrowserContext;
let page: Page;
let readerPath: string;
let users: string;
let api: (method: string, url: string, body: unknown, contentType?: string) => Promise<{ id: string }>;
const ids: Record<string, string> = {};
const EMAIL = 'stage-registrar@example.com';
/** Every request for a page of the reader (any `?order=`) that reached the server, by path. */
const serverHits: string[] = [];

beforeAll(async () => {
  t = await startTestServer();
  t.app.server.on('request', (request: { url?: string }) => serverHits.push((request.url ?? '').split('?')[0] as string));
  browser = await launchBrowser();
  const { key } = await t.newAccount(EMAIL);
  api = async (method: string, url: string, body: unknown, contentType = 'application/json') => {
    const res = await fetch(`${t.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
      body: contentType === 'application/json' ? JSON.stringify(body) : new Uint8Array(body as Buffer),
    });
    expect(res.status, url).toBeLessThan(300);
    return res.json() as Promise<{ id: string }>;
  };
  const collection = await api('POST', '/v1/collections', {
    name: 'Class of 2027',
    custom_fields: [{ key: 'seat', label: 'Seat', type: 'number', required: false }],
  });
  for (const [first, seat] of [
    ['Ada', 3],
    ['Bo', 1],
    ['Cy', 2],
  ] as const) {
    const person = await api('POST', `/v1/collections/${collection.id}/users`, {
      email: `${first.toLowerCase()}@example.com`,
      first_name: first,
      last_name: 'Okafor',
      custom_fields: { seat },
    });
    ids[first] = person.id;
  }
  await runJobsLater(t.deps, 0);
  users = `/v1/collections/${collection.id}/users`;
  for (const first of ['Ada', 'Bo']) {
    await api('PUT', `${users}/${ids[first]}/recording`, fs.readFileSync(speechWav()), 'audio/wav');
  }
  // Bo's recording said the wrong name: the reader must never play it.
  await api('POST', `${users}/${ids.Bo}/review`, { decision: 'request_rerecord', note: 'Wrong name' });
  readerPath = `/dashboard/collections/${collection.id}/reader`;

  context = await browser.newContext();
  page = await context.newPage();
  await signInByLink(page, t, EMAIL);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const current = () => page.locator('.person.current');
const position = () => page.locator('#position').textContent();
const playState = (state: 'playing' | 'ended') =>
  page.waitForFunction((wanted) => document.getElementById('play')?.dataset.state === wanted, state, { timeout: 15_000 });

/** Every Space key press the page saw, and whether the reader kept it from the browser. */
async function watchSpace() {
  await page.evaluate(() => {
    const seen: boolean[] = [];
    (window as unknown as { spaces: boolean[] }).spaces = seen;
    document.addEventListener('keydown', (event) => {
      if (event.key === ' ') seen.push(event.defaultPrevented);
    });
  });
  return () => page.evaluate(() => (window as unknown as { spaces: boolean[] }).spaces);
}

describe('the reader on stage', () => {
  it('keeps everything on the device: reload, change order and play with the network off; a rejected recording skipped', async () => {
    await page.goto(`${t.url}${readerPath}`);
    await page.waitForFunction(() => document.body.dataset.offline === 'ready', undefined, { timeout: 30_000 });
    expect(await page.locator('#load-status').textContent()).toBe(
      'All 3 recordings and voices are saved on this device: the reader works without a network, even after a reload or a change of order.',
    );

    await context.setOffline(true);
    await page.reload();
    await page.locator('body.reader-live').waitFor();
    expect(await page.locator('h1').textContent()).toBe('Reader: Class of 2027');
    expect(await position()).toBe('1 of 3');

    // A new order, chosen with the page's own form, offline: the current person stays current.
    await page.locator('#reader-order').selectOption('custom:seat');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/order=custom%3Aseat/);
    expect(await current().locator('.name').textContent()).toBe('Ada Okafor');
    expect(await current().locator('.seq').textContent()).toBe('3 of 3 · Seat: 3');
    await page.keyboard.press('Home');
    expect(await current().locator('.name').textContent()).toBe('Bo Okafor');
    expect(await current().locator('.seq').textContent()).toBe('1 of 3 · Seat: 1');
    // Bo's rejected recording is not played: the computer's guess is, labelled as one.
    expect(await current().locator('.withheld').textContent()).toBe('No approved recording (an organiser asked for a new one)');
    expect(await current().locator('.ipa').textContent()).toMatch(/^\/.+\/$/);
    expect(await page.locator('#play').textContent()).toBe('▶ Play (computer guess, not checked)');
    const spaces = await watchSpace();
    const scrolled = await page.evaluate(() => window.scrollY);
    await page.keyboard.press('Space');
    await playState('playing');
    expect(await page.evaluate(() => window.scrollY)).toBe(scrolled);
    await playState('ended');

    await page.keyboard.press('PageDown');
    await page.keyboard.press('ArrowRight');
    expect(await current().locator('.name').textContent()).toBe('Ada Okafor');
    expect(await page.locator('#play').textContent()).toBe('▶ Play (their voice)');
    await page.keyboard.press('Space');
    await playState('playing');
    expect(await spaces()).toEqual([true, true]);

    // Back to the order as imported, and the address without an order, still offline.
    await page.locator('#reader-order').selectOption('import');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/order=import/);
    expect(await current().locator('.name').textContent()).toBe('Ada Okafor');
    expect(await current().locator('.seq').textContent()).toBe('1 of 3');
    await page.goto(`${t.url}${readerPath}#person-2`);
    await page.locator('body.reader-live').waitFor();
    expect(await current().locator('.name').textContent()).toBe('Bo Okafor');
    await context.setOffline(false);
  }, 90_000);

  it('one kept page serves every order offline, each in the order the server renders; a load fetches the page once', async () => {
    // Names, accents, case, numbers and missing values, so that every order differs.
    const collection = await api('POST', '/v1/collections', {
      name: 'Orders',
      custom_fields: [
        { key: 'seat', label: 'Seat', type: 'number', required: false },
        { key: 'faculty', label: 'Faculty', type: 'text', required: false },
      ],
    });
    const people: Record<string, string> = {};
    for (const [first, last, fields] of [
      ['Zoë', 'Adams', { seat: 2, faculty: 'Law' }],
      ['émile', 'Zola', { seat: 10, faculty: 'Arts' }],
      ['Ana', 'Mbeki', { seat: 1 }],
      ['Bartholomew', 'Ekwueme', { faculty: 'Medicine' }],
      ['Chen', 'Li', { seat: 3, faculty: 'arts' }],
    ] as const) {
      const person = await api('POST', `/v1/collections/${collection.id}/users`, {
        email: `${last.toLowerCase()}@example.com`,
        first_name: first,
        last_name: last,
        custom_fields: fields,
      });
      people[first] = person.id;
    }
    await runJobsLater(t.deps, 0);
    const path = `/dashboard/collections/${collection.id}/reader`;
    const orders = ['import', 'display_name', 'last_name', 'custom:seat', 'custom:faculty'];
    // What the server renders online for each order, fetched before the reader is opened.
    const online: Record<string, string[]> = {};
    for (const order of orders) {
      const body = await (await page.request.get(`${t.url}${path}?order=${encodeURIComponent(order)}`)).text();
      online[order] = [...body.matchAll(/data-person-id="([^"]+)"/g)].map((match) => match[1] as string);
    }
    expect(new Set(Object.values(online).map((ids) => ids.join()))).toHaveProperty('size', orders.length);
    const shown = () => page.$$eval('li.person', (items) => items.map((item) => (item as HTMLElement).dataset.personId));
    const pageHits = () => serverHits.filter((hit) => hit === path).length;

    // The first visit: the page, and one copy of it for the device (the worker was not there yet).
    let before = pageHits();
    await page.goto(`${t.url}${path}`);
    await page.waitForFunction(() => document.body.dataset.offline === 'ready', undefined, { timeout: 30_000 });
    expect(pageHits() - before).toBe(2);
    // Every visit after it: the page once, kept by the worker on its way; not once per order.
    before = pageHits();
    await page.reload();
    await page.waitForFunction(() => document.body.dataset.offline === 'ready', undefined, { timeout: 30_000 });
    expect(pageHits() - before).toBe(1);
    // Online, a new order re-orders in place: nothing is fetched.
    before = pageHits();
    await page.locator('#reader-order').selectOption('last_name');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/order=last_name/);
    expect(await shown()).toEqual(online.last_name);
    expect(pageHits() - before).toBe(0);

    await context.setOffline(true);
    await page.reload();
    await page.locator('body.reader-live').waitFor();
    expect(await shown()).toEqual(online.last_name);
    for (const order of orders) {
      await page.locator('#reader-order').selectOption(order);
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL((url) => url.searchParams.get('order') === order);
      expect(await shown(), order).toEqual(online[order]);
      await page.keyboard.press('Home');
      expect(await position()).toBe('1 of 5');
    }
    expect(await current().locator('.seq').textContent()).toBe('1 of 5 · Faculty: Arts');
    // Stage sync and the keys follow the new order: Ana, without a faculty, is last.
    expect(await page.evaluate((id) => window.voicenameReader.showPerson(id), people.Ana as string)).toBe(true);
    expect(await position()).toBe('5 of 5');
    await page.keyboard.press('PageUp');
    expect(await current().getAttribute('data-person-id')).toBe(online['custom:faculty']?.[3]);
    await page.keyboard.press('f');
    await page.locator('body.presenting').waitFor();
    expect(await current().locator('.name').isVisible()).toBe(true);
    await page.keyboard.press('f');
    await page.waitForFunction(() => !document.body.classList.contains('presenting'));
    // An address in another order, loaded offline: the one kept page, put in that order.
    await page.goto(`${t.url}${path}?order=custom%3Aseat#person-2`);
    await page.locator('body.reader-live').waitFor();
    expect(await shown()).toEqual(online['custom:seat']);
    expect(await current().locator('.name').textContent()).toBe('Zoë Adams');
    expect(await current().locator('.seq').textContent()).toBe('2 of 5 · Seat: 2');
    expect(await page.locator('#reader-order').inputValue()).toBe('custom:seat');
    // Playing works offline (the computer's guess, kept on the device).
    await page.keyboard.press('Space');
    await playState('playing');
    await context.setOffline(false);
  }, 90_000);

  it('the presenter view: full screen, large name and guide, clicker keys, Space plays; showPerson; axe at 390 px and desktop', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${t.url}${readerPath}?order=custom:seat`);
    await page.locator('body.reader-live').waitFor();
    await expectNoSeriousAxeViolations(page);

    await page.getByRole('button', { name: 'Presenter view' }).click();
    await page.waitForFunction(() => document.fullscreenElement === document.documentElement);
    expect(await page.locator('body').getAttribute('class')).toContain('presenting');
    expect(await page.locator('.reader-bar').isVisible()).toBe(false);
    const nameSize = await current()
      .locator('.name')
      .evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize));
    expect(nameSize).toBeGreaterThanOrEqual(100);
    expect(await current().locator('.respelling').isVisible()).toBe(true);
    await expectNoSeriousAxeViolations(page);

    // A presentation clicker sends Page Down / Page Up.
    await page.keyboard.press('PageDown');
    expect(await current().locator('.name').textContent()).toBe('Cy Okafor');
    await page.keyboard.press('PageDown');
    expect(await current().locator('.name').textContent()).toBe('Ada Okafor');
    await page.keyboard.press('PageUp');
    expect(await position()).toBe('2 of 3');
    await page.keyboard.press('PageDown');
    await page.keyboard.press('Space');
    await playState('playing');

    // Stage sync brings a person up by id.
    expect(await page.evaluate((id) => window.voicenameReader.showPerson(id), ids.Bo as string)).toBe(true);
    expect(await current().locator('.name').textContent()).toBe('Bo Okafor');
    expect(await page.evaluate(() => window.voicenameReader.showPerson('not-in-this-reader'))).toBe(false);
    expect(await position()).toBe('1 of 3');

    await page.keyboard.press('f');
    await page.waitForFunction(() => document.fullscreenElement === null);
    expect(await page.locator('body').getAttribute('class')).not.toContain('presenting');

    // On a phone, which may refuse full screen, the presenter view still fills the page.
    await page.setViewportSize({ width: 390, height: 844 });
    await expectNoSeriousAxeViolations(page);
    await page.getByRole('button', { name: 'Presenter view' }).click();
    await page.locator('body.presenting').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    await expectNoSeriousAxeViolations(page);
    await page.getByRole('button', { name: 'Exit presenter view' }).click();
    await page.waitForFunction(() => !document.body.classList.contains('presenting'));
  }, 60_000);

  it("an organiser's rejection reaches the device on the next visit online: offline, the rejected recording is not played", async () => {
    await page.goto(`${t.url}${readerPath}`);
    await page.waitForFunction(() => document.body.dataset.offline === 'ready', undefined, { timeout: 30_000 });
    const ada = page.locator(`li[data-person-id="${ids.Ada}"]`);
    expect(await ada.getAttribute('data-source')).toBe('recording');
    await api('POST', `${users}/${ids.Ada}/review`, { decision: 'request_rerecord', note: 'Wrong name' });
    await page.reload();
    await page.waitForFunction(() => document.body.dataset.offline === 'ready', undefined, { timeout: 30_000 });

    await context.setOffline(true);
    await page.reload();
    await page.locator('body.reader-live').waitFor();
    expect(await ada.locator('.withheld').textContent()).toBe('No approved recording (an organiser asked for a new one)');
    expect(await ada.getAttribute('data-source')).toBe('unchecked_guess');
    expect(await page.evaluate((id) => window.voicenameReader.showPerson(id), ids.Ada as string)).toBe(true);
    expect(await page.locator('#play').textContent()).toBe('▶ Play (computer guess, not checked)');
    await context.setOffline(false);
  }, 60_000);

  it('signing out clears the kept pages and audio and the worker: the reader is gone offline', async () => {
    await page.goto(`${t.url}${readerPath}`);
    await page.waitForFunction(() => document.body.dataset.offline === 'ready', undefined, { timeout: 30_000 });
    // One cache per collection's reader: this one and the orders' collection.
    expect(await page.evaluate(() => caches.keys())).toHaveLength(2);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/dashboard\/sign-in/);
    expect(await page.evaluate(() => caches.keys())).toEqual([]);
    expect(await page.evaluate(() => navigator.serviceWorker.getRegistrations().then((r) => r.length))).toBe(0);
    await context.setOffline(true);
    await expect(page.goto(`${t.url}${readerPath}`)).rejects.toThrow(/ERR_INTERNET_DISCONNECTED/);
    await context.setOffline(false);
  }, 60_000);
});

declare global {
  interface Window {
    voicenameReader: { showPerson(personId: string): boolean };
  }
}
