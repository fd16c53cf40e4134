/**
 * Review at speed in real Chromium. On a desktop, review mode is run with the keyboard alone:
 * Space plays (and marks the recording as listened), A approves and moves to the next unreviewed,
 * J/K move, R opens the note and Enter sends it, N finds the one skipped. On a 390 px phone, the
 * people table's inline controls decide in place (no reload), a played recording is approved with
 * "approve the played", and nothing scrolls sideways. axe finds nothing serious on either page.
 */
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';

let t: TestApp & { url: string };
let browser: Browser;
let key: string;
const EMAIL = 'registrar-keys@example.com';

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const api = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return res.json() as Promise<Record<string, unknown>>;
};

/** A collection with review on, these people, and a recording of each but the last. */
async function collectionWith(names: string[]): Promise<{ id: string; ids: string[] }> {
  const { id } = (await api('POST', '/v1/collections', { name: `Class ${names[0]}`, review_required: true })) as { id: string };
  const users = names.map((name, i) => ({
    email: `${i}.${name.replace(/\W/g, '')}@example.com`,
    first_name: name.split(' ')[0],
    last_name: name.split(' ')[1],
  }));
  const { data } = (await api('POST', `/v1/collections/${id}/users/batch`, { users })) as { data: { id: string }[] };
  const ids = data.map((u) => u.id);
  for (const userId of ids.slice(0, -1)) {
    const res = await fetch(`${t.url}/v1/collections/${id}/users/${userId}/recording`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'audio/wav' },
      body: fs.readFileSync(speechWav()),
    });
    expect(res.status).toBe(200);
  }
  return { id, ids };
}

const userOf = (collectionId: string, userId: string) => api('GET', `/v1/collections/${collectionId}/users/${userId}`);

/** Polls the API until the person's field has the value (the page saves in the background). */
async function waitFor(collectionId: string, userId: string, field: string, check: (value: unknown) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = (await userOf(collectionId, userId))[field];
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`${field} of ${userId} is still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function signIn(page: Page) {
  await signInByLink(page, t, EMAIL);
  ({ key } = await t.newAccount(EMAIL));
}

const currentName = (page: Page) => page.locator('li.review-item[aria-current="true"] .review-name').textContent();

describe('review at speed in Chromium', () => {
  it('runs review mode with the keyboard alone on a desktop', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await signIn(page);
    const { id, ids } = await collectionWith(['Ada Obi', 'Bo Chen', 'Chidi Eze', 'Dana Roy', 'Eli Nash']);
    const [ada, bo, chidi, dana] = ids as [string, string, string, string];

    await page.goto(`${t.url}/dashboard/collections/${id}/review`);
    await expect.poll(() => currentName(page)).toBe('Ada Obi');
    expect(await page.locator('#review-keys').textContent()).toContain('next unreviewed');
    await expectNoSeriousAxeViolations(page);

    // Space plays Ada's recording: the page marks it as listened; A approves and moves on.
    await page.keyboard.press('Space');
    await waitFor(id, ada, 'listened_at', (v) => typeof v === 'string');
    await page.keyboard.press('a');
    await waitFor(id, ada, 'recording_status', (v) => v === 'approved');
    await expect.poll(() => currentName(page)).toBe('Bo Chen');
    expect(await page.locator(`#review-${ada} .badge`).textContent()).toBe('Approved');

    // J and K move without deciding.
    await page.keyboard.press('j');
    await expect.poll(() => currentName(page)).toBe('Chidi Eze');
    await page.keyboard.press('k');
    await expect.poll(() => currentName(page)).toBe('Bo Chen');

    // R asks again: type the note, Enter sends it, and the next unreviewed comes up.
    await page.keyboard.press('r');
    await expect.poll(() => page.evaluate(() => document.activeElement?.tagName)).toBe('TEXTAREA');
    await page.keyboard.type('Say the family name as at home, please.');
    await page.keyboard.press('Enter');
    await waitFor(id, bo, 'review_note', (v) => v === 'Say the family name as at home, please.');
    expect((await userOf(id, bo)).recording_status).toBe('needs_rerecord');
    await expect.poll(() => currentName(page)).toBe('Chidi Eze');

    // Skip Chidi, approve Dana: N (after A) comes back to the one skipped.
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => currentName(page)).toBe('Dana Roy');
    await page.keyboard.press('a');
    await waitFor(id, dana, 'recording_status', (v) => v === 'approved');
    await expect.poll(() => currentName(page)).toBe('Chidi Eze');
    await page.keyboard.press('a');
    await waitFor(id, chidi, 'recording_status', (v) => v === 'approved');
    await expect.poll(() => page.locator('#review-position').textContent()).toBe('Every recording on this page is decided.');
    await expectNoSeriousAxeViolations(page);

    // The audit log names each person with the decision and the note.
    await page.goto(`${t.url}/dashboard/audit`);
    const bosEntry = page.locator('#audit tr', { has: page.locator('.object-name', { hasText: 'Bo Chen' }) }).first();
    expect(await bosEntry.locator('td[data-label="Action"]').textContent()).toContain(
      'Asked for a new recording: Say the family name as at home, please.',
    );
    await context.close();
  });

  it('decides in place from the people table on a 390 px phone, and approves the played', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await signIn(page);
    const { id, ids } = await collectionWith(['Fay Ito', 'Gus Lund', 'Hana Sato', 'Ivo Kral']);
    const [fay, gus, hana] = ids as [string, string, string];
    await page.goto(`${t.url}/dashboard/collections/${id}?order=name`);
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
    const row = (name: string) => page.locator('#people tbody tr', { has: page.getByRole('link', { name }) });

    await row('Fay Ito').getByRole('button', { name: 'Approve the recording of Fay Ito' }).click();
    await expect.poll(() => row('Fay Ito').locator('.review-status .badge').textContent()).toBe('Approved');
    expect(await row('Fay Ito').locator('.review-message').textContent()).toBe('Approved.');
    expect((await userOf(id, fay)).recording_status).toBe('approved');

    await row('Gus Lund').getByText('Ask again').click();
    await row('Gus Lund')
      .getByLabel(/What should change/)
      .fill('Too quiet: closer to the microphone.');
    await row('Gus Lund').getByRole('button', { name: 'Ask for a new recording' }).click();
    await expect.poll(() => row('Gus Lund').locator('.review-status .badge').textContent()).toBe('Needs re-record');
    expect((await userOf(id, gus)).review_note).toBe('Too quiet: closer to the microphone.');
    // Both in place: the page never reloaded.
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)).toBe(false);
    await expectNoSeriousAxeViolations(page);

    // Hana's recording is played in the table, then approved with the other played ones.
    await row('Hana Sato')
      .locator('audio')
      .evaluate((audio: HTMLAudioElement) => audio.play());
    await waitFor(id, hana, 'listened_at', (v) => typeof v === 'string');
    await page.reload();
    await page.getByRole('button', { name: 'Approve the 1 played recording' }).click();
    await page.getByText('The played recordings awaiting a decision are approved.').waitFor();
    expect((await userOf(id, hana)).recording_status).toBe('approved');
    expect(await page.locator('#approve-played').count()).toBe(0);
    await context.close();
  });
});
