/**
 * The recorder page end to end in real Chromium, with a fake microphone that plays a speech
 * WAV: open record_url, record, listen, submit; then the API and the stored MP3 agree.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { decodeAudio, generated, speechWav } from './helpers/audio.js';
import { ffmpegPath } from './helpers/binaries.js';
import { launchBrowser } from './helpers/browser.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';

let t: TestApp & { url: string };
let browser: Browser;
let key: string;
let collectionId: string;
let fakeMic: string;
/** Length of the spoken part of the fake microphone's WAV (ms), measured by ffmpeg's silencedetect. */
let spokenMs: number;

// The fake device starts playing when the page opens the microphone; the page then counts down
// 3 s before recording, so the speech starts at 5 s and silence follows for a long while
// (Chromium loops the file).
const SPEECH_AT_S = 5;

function measureSpokenMs(file: string): number {
  const run = spawnSync(ffmpegPath(), ['-hide_banner', '-i', file, '-af', 'silencedetect=noise=-50dB:d=0.4', '-f', 'null', '-']);
  const log = run.stderr.toString();
  const ends = [...log.matchAll(/silence_end: ([\d.]+)/g)].map((m) => Number(m[1]));
  const starts = [...log.matchAll(/silence_start: ([\d.]+)/g)].map((m) => Number(m[1]));
  const speechStart = ends[0] as number;
  const speechEnd = starts.find((s) => s > speechStart) as number;
  return (speechEnd - speechStart) * 1000;
}

beforeAll(async () => {
  t = await startTestServer();
  ({ key } = await t.newAccount());
  collectionId = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Browser' } })).json().id;
  fakeMic = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-mic-')), 'mic.wav');
  execFileSync(ffmpegPath(), [
    '-hide_banner',
    '-v',
    'error',
    '-y',
    '-i',
    speechWav('Siobhan Ni Bhriain'),
    '-af',
    // The resampling comes first so that pad_len counts 48 kHz samples (20 s); the ffmpeg of
    // @ffmpeg-installer/ffmpeg predates apad's pad_dur.
    `aresample=48000,adelay=${SPEECH_AT_S * 1000},apad=pad_len=${20 * 48_000}`,
    '-ar',
    '48000',
    '-ac',
    '1',
    fakeMic,
  ]);
  spokenMs = measureSpokenMs(fakeMic);
  browser = await launchBrowser({ fakeMicrophoneWav: fakeMic });
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function newUser(extra: Record<string, unknown> = {}) {
  const res = await t.request({
    method: 'POST',
    url: `/v1/collections/${collectionId}/users`,
    key,
    json: { email: `b${Math.random()}@example.com`, first_name: 'Siobhán', last_name: 'Ní Bhriain', ...extra },
  });
  expect(res.statusCode).toBe(201);
  return res.json();
}

const state = (page: Page) => page.locator('#recorder').getAttribute('data-state');
const waitForState = (page: Page, value: string, timeout = 20_000) =>
  page.waitForSelector(`#recorder[data-state="${value}"]`, { timeout });

describe('recorder page in Chromium', () => {
  it('records with the microphone, lets the person listen, and submits a clean MP3', async () => {
    const user = await newUser();
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(user.record_url);
    expect(await page.locator('h1').textContent()).toBe('Siobhán Ní Bhriain');
    await page.fill('#phonetic', 'shiv-AWN nee VREE-in');

    // Keyboard only: focus the Start button and press Enter.
    await page.focus('#start');
    await page.keyboard.press('Enter');
    await waitForState(page, 'countdown', 5_000);
    await waitForState(page, 'recording', 10_000);
    // Real time on purpose: the fake microphone plays in real time. Recording starts about 3 s
    // after it opened and the speech at 5 s, so stop once the page's own timer shows the take
    // has run 4.5 s ("5 s left" of 10), past the end of the speech.
    await page.waitForSelector('#timer:text-is("5 s left")', { timeout: 15_000 });
    await page.keyboard.press('Enter'); // Stop has the focus while recording
    await waitForState(page, 'review');

    expect(await page.locator('#preview').getAttribute('src')).toMatch(/^blob:/);
    await page.click('#listen');
    await page.waitForFunction(() => (document.getElementById('preview') as HTMLAudioElement).currentTime > 0.2, null, {
      timeout: 5_000,
    });

    await page.click('#submit');
    await waitForState(page, 'done');
    const shownLink = await page.locator('#play-link').textContent();

    const fetched = (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${user.id}`, key })).json();
    expect(fetched.has_recording).toBe(true);
    expect(fetched.phonetic_spelling).toBe('shiv-AWN nee VREE-in');
    const link = await t.deps.db.kysely
      .selectFrom('play_links')
      .selectAll()
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(shownLink).toBe(`${t.url}/p/${link.token}`);

    const row = await t.deps.db.kysely
      .selectFrom('recordings')
      .selectAll()
      .where('user_id', '=', user.id)
      .executeTakeFirstOrThrow();
    const mp3 = (await t.deps.blobs.get(row.blob_key)) as Buffer;
    const decoded = decodeAudio(mp3);
    expect(decoded.sampleRate).toBe(44_100);
    expect(decoded.meanDb).toBeGreaterThan(-30); // not silent
    expect(Math.abs(decoded.durationMs - spokenMs)).toBeLessThan(300);
    await page.close();
  }, 60_000);

  it('labels the input-level meter in the page language and gives its level while recording', async () => {
    const user = await newUser({ language: 'es' });
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await page.goto(user.record_url);
      await page.click('#start');
      await waitForState(page, 'countdown', 5_000);
      const meter = page.getByRole('meter', { name: 'Nivel del micrófono' });
      expect(await meter.isVisible()).toBe(true);
      expect(await meter.getAttribute('aria-valuemin')).toBe('0');
      expect(await meter.getAttribute('aria-valuemax')).toBe('100');
      await waitForState(page, 'recording', 10_000);
      // The speech starts about 2 s into the take: the meter's value follows the voice.
      await expect.poll(async () => Number(await meter.getAttribute('aria-valuenow')), { timeout: 10_000 }).toBeGreaterThan(20);
      await expectNoSeriousAxeViolations(page);
      await page.click('#stop');
      await waitForState(page, 'review');
      expect(await meter.isVisible()).toBe(false);
    } finally {
      await page.close();
    }
  });

  it('uploads a file instead, and says plainly when the take was silent', async () => {
    const user = await newUser();
    const page = await browser.newPage();
    await page.goto(user.record_url);
    await page.click('#upload-box summary');
    await page.setInputFiles('#file', generated('browser-silence', 'anullsrc=r=44100:cl=mono', 2));
    await page.click('#upload');
    await waitForState(page, 'error');
    expect(await page.locator('#status').textContent()).toMatch(/silent/i);

    await page.setInputFiles('#file', speechWav());
    await page.click('#upload');
    await waitForState(page, 'done');
    expect(await state(page)).toBe('done');
    const fetched = (await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users/${user.id}`, key })).json();
    expect(fetched.has_recording).toBe(true);
    await page.close();
  }, 30_000);
});

describe('recorder page over HTTP', () => {
  it('escapes the name, is private and strict, and 404s for unknown tokens', async () => {
    const user = await newUser({ display_name: '<script>alert(1)</script>', phonetic_spelling: '"><img src=x>' });
    const res = await fetch(user.record_url);
    expect(res.status).toBe(200);
    const body = await res.text();
    expect(body).not.toContain('<script>alert(1)</script>');
    expect(body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(body).not.toContain('"><img src=x>');
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(res.headers.get('x-robots-tag')).toContain('noindex');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect((await fetch(`${t.url}/r/${'x'.repeat(32)}`)).status).toBe(404);
    const upload = await fetch(`${t.url}/r/${'x'.repeat(32)}/recording`, {
      method: 'POST',
      headers: { 'content-type': 'audio/wav' },
      body: fs.readFileSync(speechWav()),
    });
    expect(upload.status).toBe(404);
    expect((await upload.json()).error.code).toBe('resource_missing');
  });

  it('answers the upload endpoint with the play-link object or a clear error', async () => {
    const user = await newUser();
    const path_ = new URL(user.record_url).pathname;
    const bad = await fetch(`${t.url}${path_}/recording`, {
      method: 'POST',
      headers: { 'content-type': 'audio/webm' },
      body: 'nope',
    });
    expect(bad.status).toBe(415);
    expect((await bad.json()).error).toMatchObject({ code: 'audio_unsupported_format' });
    const big = await fetch(`${t.url}${path_}/recording`, {
      method: 'POST',
      headers: { 'content-type': 'audio/webm' },
      body: Buffer.alloc(5 * 1024 * 1024 + 1),
    });
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe('audio_too_large');
    const ok = await fetch(`${t.url}${path_}/recording?phonetic_spelling=${'p'.repeat(100)}`, {
      method: 'POST',
      headers: { 'content-type': 'audio/wav' },
      body: fs.readFileSync(speechWav()),
    });
    expect(ok.status).toBe(200);
    expect(Object.keys(await ok.json()).sort()).toEqual(
      ['display_name', 'duration_seconds', 'embed_html', 'play_link', 'play_url', 'recorded_at', 'status'].sort(),
    );
    const tooLong = await fetch(`${t.url}${path_}/recording?phonetic_spelling=${'p'.repeat(101)}`, {
      method: 'POST',
      headers: { 'content-type': 'audio/wav' },
      body: fs.readFileSync(speechWav()),
    });
    expect(tooLong.status).toBe(400);
  });
});
