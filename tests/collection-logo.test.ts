/**
 * A collection's logo through `/v1`: PNG, JPEG and WebP are re-encoded as a PNG of at most
 * 512x512 served content-addressed; anything else (SVG among them), a damaged file and a file
 * over 1 MB are refused in the error envelope; the record page shows it; removal; other
 * accounts' collections are 404.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { ffmpegPath } from './helpers/binaries.js';

let t: TestApp;
let key: string;
let dir: string;

beforeAll(async () => {
  t = await createTestApp();
  ({ key } = await t.newAccount());
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-logo-'));
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A test image of `width`x`height` in `format` (png, jpg, webp), made by ffmpeg. */
function image(format: 'png' | 'jpg' | 'webp', width: number, height: number): Buffer {
  const file = path.join(dir, `logo-${width}x${height}.${format}`);
  execFileSync(ffmpegPath(), [
    '-hide_banner',
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=${width}x${height}`,
    '-frames:v',
    '1',
    file,
  ]);
  return fs.readFileSync(file);
}

/** Width and height from a PNG's IHDR chunk. */
const pngSize = (png: Buffer) => ({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });

async function newCollection(k = key) {
  const res = await t.request({
    method: 'POST',
    url: '/v1/collections',
    key: k,
    json: { name: 'Logo test', branding: { organisation_name: 'Riverside' } },
  });
  return res.json<{ id: string }>().id;
}
const putLogo = (id: string, body: Buffer, type = 'image/png', k = key) =>
  t.request({ method: 'PUT', url: `/v1/collections/${id}/logo`, key: k, headers: { 'content-type': type }, payload: body });

describe('PUT /v1/collections/{id}/logo', () => {
  it('re-encodes a PNG, JPEG or WebP as a PNG of at most 512x512, served content-addressed and cached for ever', async () => {
    const id = await newCollection();
    for (const [format, type] of [
      ['png', 'image/png'],
      ['jpg', 'image/jpeg'],
      ['webp', 'image/webp'],
    ] as const) {
      const res = await putLogo(id, image(format, 1024, 600), type);
      expect(res.statusCode, res.body).toBe(200);
      const logoUrl = res.json<{ branding: { logo_url: string } }>().branding.logo_url;
      expect(logoUrl).toMatch(/^http:\/\/localhost:3000\/logos\/[0-9a-f]{64}\.png$/);
      const served = await t.request({ method: 'GET', url: new URL(logoUrl).pathname });
      expect(served.statusCode).toBe(200);
      expect(served.headers['content-type']).toBe('image/png');
      expect(served.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(served.headers['x-content-type-options']).toBe('nosniff');
      expect(pngSize(served.rawPayload)).toEqual({ width: 512, height: 300 });
    }
    const small = await putLogo(id, image('png', 120, 40));
    const url = new URL(small.json<{ branding: { logo_url: string } }>().branding.logo_url).pathname;
    expect(pngSize((await t.request({ method: 'GET', url })).rawPayload)).toEqual({ width: 120, height: 40 });
  });

  it('refuses SVG, other types, damaged files and files over 1 MB, in the error envelope', async () => {
    const id = await newCollection();
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const code = (res: { statusCode: number; json<T>(): T }) => [
      res.statusCode,
      res.json<{ error: { code: string } }>().error.code,
    ];
    expect(code(await putLogo(id, svg))).toEqual([415, 'image_unsupported_format']);
    expect((await putLogo(id, svg, 'image/svg+xml')).statusCode).toBe(415);
    const png = image('png', 64, 64);
    const damaged = Buffer.concat([png.subarray(0, 40), Buffer.alloc(200, 7)]);
    expect(code(await putLogo(id, damaged))).toEqual([422, 'image_corrupt']);
    expect(code(await putLogo(id, Buffer.alloc(0)))).toEqual([400, 'image_empty']);
    // The limit is 1 MB exactly: one byte more is 413 before anything is decoded.
    const atLimit = Buffer.concat([png, Buffer.alloc(1024 * 1024 - png.length)]);
    expect(code(await putLogo(id, Buffer.concat([atLimit, Buffer.from([0])])))).toEqual([413, 'payload_too_large']);
    const collection = (await t.request({ method: 'GET', url: `/v1/collections/${id}`, key })).json<{
      branding: { logo_url: null };
    }>();
    expect(collection.branding.logo_url, 'no refusal set a logo').toBeNull();
    expect((await putLogo(id, atLimit)).statusCode).toBe(200);
  });

  it("shows on the record page; DELETE removes it; another account's collection is 404", async () => {
    const id = await newCollection();
    const set = await putLogo(id, image('png', 200, 100));
    const logoUrl = set.json<{ branding: { logo_url: string } }>().branding.logo_url;
    const user = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/users`,
      key,
      json: { email: 'logo@example.com', first_name: 'Ada' },
    });
    const recordPath = new URL(user.json<{ record_url: string }>().record_url).pathname;
    expect((await t.request({ method: 'GET', url: recordPath })).body).toContain(
      `<img class="logo" src="${logoUrl}" alt="Riverside"`,
    );

    const other = await t.newAccount();
    expect((await putLogo(id, image('png', 10, 10), 'image/png', other.key)).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/v1/collections/${id}/logo`, key: other.key })).statusCode).toBe(404);

    const removed = await t.request({ method: 'DELETE', url: `/v1/collections/${id}/logo`, key });
    expect(removed.statusCode).toBe(200);
    expect(removed.json<{ branding: { logo_url: null } }>().branding.logo_url).toBeNull();
    expect((await t.request({ method: 'GET', url: recordPath })).body).not.toContain('class="logo"');
    expect((await t.request({ method: 'GET', url: '/logos/not-a-logo.png' })).statusCode).toBe(404);
  });

  it('shows on the player page, which follows a new logo at once', async () => {
    const id = await newCollection();
    const user = await t.request({
      method: 'POST',
      url: `/v1/collections/${id}/users`,
      key,
      json: { email: 'p@example.com', first_name: 'Ada' },
    });
    const recorded = await t.request({
      method: 'PUT',
      url: `/v1/collections/${id}/users/${user.json<{ id: string }>().id}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    const player = new URL(recorded.json<{ play_link: string }>().play_link).pathname;
    expect((await t.request({ method: 'GET', url: player })).body).not.toContain('class="logo"');
    for (const size of [100, 150]) {
      const logoUrl = (await putLogo(id, image('png', size, 50))).json<{ branding: { logo_url: string } }>().branding.logo_url;
      expect((await t.request({ method: 'GET', url: player })).body).toContain(`<img class="logo" src="${logoUrl}"`);
    }
  });
});
