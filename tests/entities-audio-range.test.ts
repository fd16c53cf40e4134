/**
 * Byte ranges on `/e/<slug>/name.mp3` follow RFC 9110 exactly as the play-link audio does (both
 * use src/http/range.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { publishEntity, validBody } from './helpers/entities.js';

let t: TestApp;
let url: string;
let whole: Buffer;
let etag: string;

beforeAll(async () => {
  t = await createTestApp({ env: { SITE_URL: 'http://agents.localhost:3000' } });
  const { paid } = await publishEntity(t, validBody());
  url = new URL(paid.json().entity.audio_url).pathname;
  const full = await t.app.inject({ url });
  whole = full.rawPayload;
  etag = String(full.headers.etag);
});
afterAll(() => t.close());

const get = (headers: Record<string, string>) => t.app.inject({ url, headers });

describe('/e/<slug>/name.mp3 ranges', () => {
  it('serves a suffix longer than the file as the whole file, 206', async () => {
    const res = await get({ range: `bytes=-${whole.length + 500}` });
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-${whole.length - 1}/${whole.length}`);
    expect(res.headers['content-length']).toBe(String(whole.length));
    expect(res.rawPayload.equals(whole)).toBe(true);
  });

  it('serves a suffix, an open-ended range and a range cut at the end', async () => {
    const tail = await get({ range: 'bytes=-10' });
    expect(tail.statusCode).toBe(206);
    expect(tail.headers['content-range']).toBe(`bytes ${whole.length - 10}-${whole.length - 1}/${whole.length}`);
    expect(tail.rawPayload.equals(whole.subarray(whole.length - 10))).toBe(true);
    const open = await get({ range: `bytes=${whole.length - 5}-` });
    expect(open.statusCode).toBe(206);
    expect(open.rawPayload.equals(whole.subarray(whole.length - 5))).toBe(true);
    const cut = await get({ range: `bytes=5-${whole.length * 2}` });
    expect(cut.statusCode).toBe(206);
    expect(cut.headers['content-range']).toBe(`bytes 5-${whole.length - 1}/${whole.length}`);
  });

  it('answers 416 with the size when the range starts beyond the end', async () => {
    for (const range of [`bytes=${whole.length}-`, 'bytes=-0']) {
      const res = await get({ range });
      expect(res.statusCode).toBe(416);
      expect(res.headers['content-range']).toBe(`bytes */${whole.length}`);
    }
  });

  it('serves the whole file for malformed, reversed or multiple ranges, and a stale If-Range', async () => {
    const cases: Record<string, string>[] = [
      { range: 'bytes=abc' },
      { range: 'bytes=9-1' },
      { range: 'bytes=0-1,5-9' },
      { range: 'bytes=0-9', 'if-range': '"other"' },
    ];
    for (const headers of cases) {
      const res = await get(headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(200);
      expect(res.rawPayload.equals(whole)).toBe(true);
    }
    const current = await get({ range: 'bytes=0-9', 'if-range': etag });
    expect(current.statusCode).toBe(206);
  });
});
