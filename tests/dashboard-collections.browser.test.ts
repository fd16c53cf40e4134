/**
 * The collection pages in real Chromium against a real server: an organiser creates a
 * collection, adds people, sees the people table, copies a link, and steps through the ceremony
 * reader with the keyboard, which keeps playing after the network is cut. Every new page fits a
 * 390 px wide phone without sideways scrolling, and the reader prints the whole script.
 */
import fs from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';

import { runJobsLater } from './helpers/jobs.js';

let t: TestApp & { url: string };
let browser: Browser;
const EMAIL = 'registrar@example.com';

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function signIn(email: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
  const page = await context.newPage();
  await signInByLink(page, t, email);
  return { context, page };
}

async function addPerson(page: Page, person: { first: string; last: string; email: string; phonetic: string; seat: string }) {
  await page.getByRole('link', { name: 'Add a person' }).first().click();
  await page.getByLabel('First name', { exact: true }).fill(person.first);
  await page.getByLabel(/^Last name/).fill(person.last);
  await page.getByLabel('E-mail', { exact: true }).fill(person.email);
  await page.getByLabel(/^Phonetic spelling/).fill(person.phonetic);
  await page.getByLabel(/^Seat/).fill(person.seat);
  await page.getByRole('button', { name: 'Add person' }).click();
  await page.getByText('The person is added.').waitFor();
  return new URL(page.url()).pathname;
}

/** Whether the page scrolls sideways at the current viewport. */
const overflows = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

describe('collection pages in Chromium', () => {
  it('create, add people, table, copy, reader with keyboard and without network, 390 px, print', async () => {
    const { context, page } = await signIn(EMAIL);
    const visited: string[] = [];
    const visit = () => visited.push(new URL(page.url()).pathname + new URL(page.url()).search);

    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Collections', exact: true }).click();
    visit();
    await page.getByRole('link', { name: 'New collection' }).click();
    visit();
    await page.getByLabel('Name', { exact: true }).fill('Class of 2027');
    await page.getByLabel(/^Description/).fill('Graduation, main hall');
    await page.locator('#field-label-1').fill('Seat');
    await page.locator('#field-type-1').selectOption('number');
    await page.getByRole('button', { name: 'Create collection' }).click();
    await page.getByText('The collection is created.').waitFor();
    expect(await page.locator('#collection-name').textContent()).toBe('Class of 2027');
    const collectionPath = new URL(page.url()).pathname;
    const collectionId = collectionPath.split('/').pop() as string;

    const siobhan = await addPerson(page, {
      first: 'Siobhán',
      last: 'Ní Bhriain',
      email: 'siobhan@example.com',
      phonetic: 'shi-VAWN nee VREE-in',
      seat: '2',
    });
    visit();
    // The copy button appears with the script and copies the record link.
    const copy = page.getByRole('button', { name: /^Copy Record link/ });
    await copy.click();
    await expect.poll(() => copy.textContent()).toBe('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await page.locator('#record-link').inputValue());

    await page.goto(`${t.url}${collectionPath}`);
    await addPerson(page, { first: 'Tomás', last: 'Ó Briain', email: 'tomas@example.com', phonetic: 'toe-MAWS', seat: '1' });
    const { key } = await t.newAccount(EMAIL);
    const siobhanId = siobhan.split('/').pop() as string;
    const recorded = await fetch(`${t.url}/v1/collections/${collectionId}/users/${siobhanId}/recording`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'audio/wav' },
      body: fs.readFileSync(speechWav()),
    });
    expect(recorded.status).toBe(200);

    await page.goto(`${t.url}${collectionPath}`);
    visit();
    expect(await page.locator('#people tbody tr').count()).toBe(2);
    expect(await page.locator('.progress-text').textContent()).toContain('1 of 2 recorded');
    await page.getByLabel('Search name or e-mail').fill('TOMAS@');
    await page.getByRole('button', { name: 'Show' }).click();
    expect(await page.locator('#people tbody tr').count()).toBe(1);
    expect(await page.locator('#people tbody').textContent()).toContain('Tomás Ó Briain');
    visit();

    // The person page plays the recording through the session.
    await page.goto(`${t.url}${siobhan}`);
    const playable = await page.locator('#audio').evaluate(
      (audio: HTMLAudioElement) =>
        new Promise<number>((resolve) => {
          if (audio.readyState >= 1) resolve(audio.duration);
          else audio.addEventListener('loadedmetadata', () => resolve(audio.duration), { once: true });
        }),
    );
    expect(playable).toBeGreaterThan(0.3);

    // The reader, ordered by seat: Tomás (seat 1) first, without a recording; then Siobhán.
    await page.goto(`${t.url}${collectionPath}/reader?order=custom:seat`);
    visit();
    await page.waitForFunction(() => document.body.dataset.audio === 'loaded');
    expect(await page.locator('#load-status').textContent()).toContain('All 1 recordings and voices are saved on this device');
    const position = page.locator('#position');
    const current = page.locator('.person.current');
    expect(await position.textContent()).toBe('1 of 2');
    expect(await current.locator('.name').textContent()).toBe('Tomás Ó Briain');
    expect(await current.locator('.phonetic').textContent()).toBe('toe-MAWS');
    expect(await page.locator('#play').isDisabled()).toBe(true);
    await page.keyboard.press('ArrowRight');
    expect(await position.textContent()).toBe('2 of 2');
    expect(await current.locator('.name').textContent()).toBe('Siobhán Ní Bhriain');
    await page.keyboard.press('ArrowLeft');
    expect(await position.textContent()).toBe('1 of 2');
    await page.keyboard.press('ArrowRight');

    // The network drops: the preloaded audio still plays to the end, and nothing is fetched.
    const audioRequests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/audio')) audioRequests.push(request.url());
    });
    await context.setOffline(true);
    await page.keyboard.press('Space');
    await page.waitForFunction(() => document.getElementById('play')?.dataset.state === 'playing');
    await page.waitForFunction(() => document.getElementById('play')?.dataset.state === 'ended', undefined, { timeout: 15_000 });
    await page.keyboard.press('ArrowLeft');
    expect(await position.textContent()).toBe('1 of 2');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Space');
    await page.waitForFunction(() => document.getElementById('play')?.dataset.state === 'playing');
    expect(audioRequests).toEqual([]);
    await context.setOffline(false);

    // The print layout is the whole script.
    await page.emulateMedia({ media: 'print' });
    expect(await page.locator('#script > li.person:visible').count()).toBe(2);
    expect(await page.locator('#reader-controls').isVisible()).toBe(false);
    await page.emulateMedia({ media: 'screen' });

    // Every new page on a 390 px phone: no sideways scrolling.
    const personPath = siobhan;
    visited.push(
      `${collectionPath}/edit`,
      `${collectionPath}/archive`,
      `${collectionPath}/people/new`,
      `${personPath}/delete`,
      `${personPath}/delete-recording`,
      `${collectionPath}/reader`,
      `${collectionPath}?order=name`,
    );
    await page.setViewportSize({ width: 390, height: 844 });
    for (const path of visited) {
      const response = await page.goto(`${t.url}${path}`);
      expect(response?.status(), path).toBe(200);
      expect(await overflows(page), path).toBe(false);
    }
    // The reader's big buttons are there on a phone too, and a tap moves.
    await page.goto(`${t.url}${collectionPath}/reader`);
    await page.getByRole('button', { name: 'Next →' }).click();
    expect(await position.textContent()).toBe('2 of 2');
    expect(await overflows(page)).toBe(false);
    await context.close();
  }, 90_000);

  it('a person with only a guide on a 390 px phone: the reader says it plays a computer guess and speaks it; no serious axe violation', async () => {
    const email = 'guides-registrar@example.com';
    const { context, page } = await signIn(email);
    const { key } = await t.newAccount(email);
    const api = (method: string, url: string, json: unknown) =>
      fetch(`${t.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(json),
      }).then((res) => res.json() as Promise<{ id: string }>);
    const collection = await api('POST', '/v1/collections', { name: 'Guides only' });
    const person = await api('POST', `/v1/collections/${collection.id}/users`, {
      email: 'niamh@example.com',
      first_name: 'Niamh',
      last_name: 'Byrne',
    });
    await runJobsLater(t.deps, 0);
    await api('PATCH', `/v1/collections/${collection.id}/users/${person.id}`, {
      pronunciation: { respelling: 'NEEV BURN', not_like: 'nye-am' },
    });
    const collectionPath = `/dashboard/collections/${collection.id}`;
    await page.setViewportSize({ width: 390, height: 844 });

    await page.goto(`${t.url}${collectionPath}/reader`);
    const current = page.locator('.person.current');
    await current.waitFor();
    expect(await current.locator('.respelling').textContent()).toBe('NEEV BURN');
    expect(await current.locator('.not-like').textContent()).toBe('Not like “nye-am”');
    expect(await current.locator('.source-label').textContent()).toBe('computer guess, not checked');
    const play = page.locator('#play');
    expect(await play.textContent()).toBe('▶ Play (computer guess, not checked)');
    await play.click();
    await page.waitForFunction(() => document.getElementById('play')?.dataset.state === 'playing', undefined, {
      timeout: 15_000,
    });
    expect(await overflows(page)).toBe(false);
    await expectNoSeriousAxeViolations(page);

    for (const path of [collectionPath, `${collectionPath}?coverage=guide`, `${collectionPath}/people/${person.id}`]) {
      const response = await page.goto(`${t.url}${path}`);
      expect(response?.status(), path).toBe(200);
      expect(await overflows(page), path).toBe(false);
      await expectNoSeriousAxeViolations(page);
    }
    await context.close();
  }, 60_000);

  it('without JavaScript every page still works: the reader is a list with links to each recording', async () => {
    const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: await storageOf('nojs@example.com') });
    const plain = await noScript.newPage();
    await plain.goto(`${t.url}/dashboard/collections/new`);
    await plain.getByLabel('Name', { exact: true }).fill('No script');
    await plain.getByRole('button', { name: 'Create collection' }).click();
    await plain.getByText('The collection is created.').waitFor();
    await plain.getByRole('link', { name: 'Add a person' }).first().click();
    await plain.getByLabel('First name', { exact: true }).fill('Plain');
    await plain.getByLabel(/^Last name/).fill('Html');
    await plain.getByLabel('E-mail', { exact: true }).fill('plain@example.com');
    await plain.getByRole('button', { name: 'Add person' }).click();
    await plain.getByText('The person is added.').waitFor();
    expect(await plain.locator('#record-link').inputValue()).toMatch(/\/r\/[A-Za-z0-9_-]+$/);
    expect(await plain.locator('button[data-copy]').first().isVisible()).toBe(false);
    await plain.getByRole('link', { name: /^← No script/ }).click();
    await plain.getByRole('link', { name: 'Reader view' }).click();
    expect(await plain.locator('#script > li.person').count()).toBe(1);
    expect(await plain.locator('#reader-controls').isVisible()).toBe(false);
    await noScript.close();
  });
});

/** A signed-in browser's cookies, for a context that runs no scripts. */
async function storageOf(email: string) {
  const { context } = await signIn(email);
  const state = await context.storageState();
  await context.close();
  return state;
}
