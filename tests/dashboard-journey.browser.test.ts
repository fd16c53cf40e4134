/**
 * An organiser runs a collection end to end in real Chromium, on a 390 px wide phone: signs in,
 * creates a collection, imports a CSV with an unknown column and a bad row (and sees every
 * error with its row), imports the fixed file, watches progress move as recordings arrive,
 * approves one recording and asks for another (the record page shows the note), downloads the
 * ZIP (read back with yauzl: the MP3s and the CSV) and steps through the reader by keyboard.
 * No page scrolls sideways.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';

import { readZip } from './helpers/zip.js';

let t: TestApp & { url: string };
let browser: Browser;
const EMAIL = 'organiser@example.com';

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const BAD_CSV = [
  'First Name;Surname;E-mail;Seat;Shoe size',
  'Ada;Obi;ada@example.com;2;40',
  'Bo;Lin;bo-at-example.com;one;41',
  'Sukarno;;sukarno@example.com;1;',
].join('\r\n');
const FIXED_CSV = BAD_CSV.replace('bo-at-example.com;one', 'bo@example.com;3');

/** Whether the page scrolls sideways at the current viewport. */
const overflows = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);

describe('the organiser’s journey in Chromium at 390 px', () => {
  it('import with errors, fix, progress, review, ZIP, reader; no sideways scroll', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, acceptDownloads: true });
    const page = await context.newPage();
    const fits = async (what: string) => expect(await overflows(page), what).toBe(false);

    await signInByLink(page, t, EMAIL);

    await page.goto(`${t.url}/dashboard/collections/new`);
    await page.getByLabel('Name', { exact: true }).fill('Class of 2027');
    await page.locator('#field-label-1').fill('Seat');
    await page.locator('#field-type-1').selectOption('number');
    await page.getByRole('button', { name: 'Create collection' }).click();
    await page.getByText('The collection is created.').waitFor();
    const collectionPath = new URL(page.url()).pathname;
    const collectionId = collectionPath.split('/').pop() as string;
    await fits('collection page');

    // Step 1 with a bad file: every error with its row, the ignored column, nothing written.
    await page.getByRole('link', { name: 'Import a CSV file', exact: true }).click();
    await fits('import form');
    await page.getByLabel(/^CSV file/).setInputFiles({ name: 'class.csv', mimeType: 'text/csv', buffer: Buffer.from(BAD_CSV) });
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.getByRole('heading', { name: 'Check the import' }).waitFor();
    const errors = await page.locator('#import-errors li').allTextContents();
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^Row 3, column “E-mail”: /);
    expect(errors[1]).toMatch(/^Row 3, column “Seat”: /);
    expect(await page.locator('#import-warnings').textContent()).toContain('Row 1, column “Shoe size”');
    expect(await page.locator('#import-preview tbody tr').count()).toBe(3);
    expect(await page.locator('#count-failed').textContent()).toBe('1');
    await fits('import preview');

    // Fixed and imported whole.
    await page.getByRole('link', { name: 'Upload a corrected file' }).click();
    await page.getByLabel(/^CSV file/).setInputFiles({ name: 'class.csv', mimeType: 'text/csv', buffer: Buffer.from(FIXED_CSV) });
    await page.getByRole('button', { name: 'Check the file' }).click();
    await page.getByRole('button', { name: 'Import 3 people' }).click();
    await page.getByRole('heading', { name: 'Import done' }).waitFor();
    expect(await page.locator('#count-created').textContent()).toBe('3');
    await fits('import result');
    await page.getByRole('link', { name: 'See the people' }).click();
    expect(await page.locator('#people tbody tr').count()).toBe(3);
    expect(await page.locator('.progress-text').textContent()).toContain('0 of 3 recorded');

    // Recordings arrive through the API; the progress bar moves.
    const { key } = await t.newAccount(EMAIL);
    const users = (await (
      await fetch(`${t.url}/v1/collections/${collectionId}/users?limit=10`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as { data: { id: string; email: string }[] };
    const idOf = (email: string) => users.data.find((u) => u.email === email)?.id as string;
    for (const email of ['ada@example.com', 'bo@example.com']) {
      const res = await fetch(`${t.url}/v1/collections/${collectionId}/users/${idOf(email)}/recording`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'audio/wav' },
        body: fs.readFileSync(speechWav()),
      });
      expect(res.status).toBe(200);
      await page.reload();
      expect(await page.locator('.progress-text').textContent()).toContain(`${email.startsWith('ada') ? 1 : 2} of 3 recorded`);
    }

    // Approve Ada; ask Bo for a new recording; Bo's record page shows the note.
    await page.getByRole('link', { name: 'Ada Obi' }).click();
    await page.getByRole('button', { name: 'Approve recording' }).click();
    await page.getByText('The recording is approved.').waitFor();
    expect(await page.locator('#recording-status').textContent()).toBe('Approved');
    await fits('person page');
    await page.goto(`${t.url}${collectionPath}/people/${idOf('bo@example.com')}`);
    await page.getByLabel(/^Ask for a new recording/).fill('Please record again somewhere quieter.');
    await page.getByRole('button', { name: 'Ask for a new recording' }).click();
    await page.getByText('A new recording is asked for.').waitFor();
    expect(await page.locator('#recording-status').textContent()).toBe('Needs re-record');
    await fits('person page after review');
    const recordLink = await page.locator('#record-link').inputValue();
    const recorder = await context.newPage();
    await recorder.goto(recordLink);
    expect(await recorder.locator('.review-note').textContent()).toBe('Please record again somewhere quieter.');
    await recorder.close();

    await page.goto(`${t.url}${collectionPath}?status=needs_rerecord`);
    expect(await page.locator('#people tbody tr').count()).toBe(1);
    await fits('people filtered');

    // The ZIP download: a valid archive with both MP3s and the CSV.
    const downloading = page.waitForEvent('download');
    await page.getByRole('button', { name: /^Download ZIP/ }).click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe('Class of 2027.zip');
    const entries = await readZip(fs.readFileSync(await download.path()));
    expect(entries.map((e) => e.name)).toEqual(['2-Ada Obi.mp3', '3-Bo Lin.mp3', 'people.csv']);
    for (const mp3 of entries.slice(0, 2)) expect(mp3.data.length).toBeGreaterThan(1000);
    expect(entries[2]?.data.toString('utf8')).toContain('needs_rerecord');

    // The reader, by seat: Sukarno (1), Ada (2), Bo (3), stepped through with the keyboard.
    await page.goto(`${t.url}${collectionPath}/reader?order=custom:seat`);
    await page.waitForFunction(() => document.body.dataset.audio === 'loaded');
    const position = page.locator('#position');
    const current = page.locator('.person.current .name');
    expect(await position.textContent()).toBe('1 of 3');
    expect(await current.textContent()).toBe('Sukarno');
    await page.keyboard.press('ArrowRight');
    expect(await current.textContent()).toBe('Ada Obi');
    await page.keyboard.press('ArrowRight');
    expect(await position.textContent()).toBe('3 of 3');
    await page.keyboard.press('ArrowLeft');
    expect(await current.textContent()).toBe('Ada Obi');
    await fits('reader');

    // The edit page with review and the custom fields form.
    await page.goto(`${t.url}${collectionPath}/edit`);
    await fits('edit page');
    await page.getByRole('checkbox', { name: /Review required/ }).check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('The collection is saved.').waitFor();
    expect(await page.locator('.progress-text').textContent()).toContain('1 of 3 recorded');
    await context.close();
  }, 120_000);
});
