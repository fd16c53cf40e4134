/**
 * The root of the site: `GET /` is a product page for organisers (not a JSON 404) on both the
 * BASE_URL and the SITE_URL host, with the page security headers and links that lead somewhere;
 * its sample name is an MP3 asset answered in byte ranges; the favicons exist and are cached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_NAME } from '../src/features/site/sample-name.js';
import { generateGuide } from '../src/pronunciation/guide.js';
import { createTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
const BASE = 'http://localhost:3000';
const SITE = 'http://agents.localhost:3000';

beforeAll(async () => {
  t = await createTestApp({ env: { SITE_URL: SITE } });
});
afterAll(() => t.close());

const get = (url: string, host = 'localhost:3000', headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { host, ...headers } });
const hrefs = (page: string) => [...page.matchAll(/<a [^>]*href="([^"]+)"/g)].map((m) => m[1]);

describe('GET /', () => {
  it('is the product page, with the security headers of the other pages and no script', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<h1 id="hero-title">Hear how to say every name before you say it.</h1>');
    expect(res.body).toContain('recordings of people saying their own names');
    for (const audience of ['Registrars: graduation', 'HR: new colleagues', 'Event organisers: speakers']) {
      expect(res.body).toContain(audience);
    }
    expect(res.body).toContain(`${SITE}/e/your-agent`);
    expect(res.body).toContain('1.00 AUD');
    expect(res.body).not.toMatch(/<script/i);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; media-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('links to sign-in, the guides and the API docs on BASE_URL, and to the agent API on SITE_URL; each link answers', async () => {
    const links = hrefs((await get('/')).body);
    for (const expected of [
      `${BASE}/dashboard`,
      `${BASE}/docs`,
      `${BASE}/docs/pronunciation`,
      `${BASE}/docs/privacy`,
      `${SITE}/.well-known/service-agent-services.json`,
      `${SITE}/llms.txt`,
    ]) {
      expect(links).toContain(expected);
      const url = new URL(expected);
      const res = await get(url.pathname, url.host);
      expect([200, 302, 303], expected).toContain(res.statusCode);
    }
    const stylesheet = /<link rel="stylesheet" href="([^"]+)">/.exec((await get('/')).body)?.[1] as string;
    expect((await get(stylesheet)).statusCode).toBe(200);
  });

  it('leads organisers to the dashboard, and developers to their section one link away', async () => {
    const page = (await get('/')).body;
    expect(page).toMatch(
      new RegExp(`<a class="button primary" href="${BASE}/dashboard" id="start-collection">Start a collection</a>`),
    );
    expect(page).toContain(`<a class="button" href="${BASE}/dashboard" id="sign-in">Sign in</a>`);
    expect(page).toContain('<a href="#developers">For developers</a>');
    const developers = page.slice(page.indexOf('<section class="developers" id="developers"'));
    for (const id of ['api-docs', 'agent-discovery', 'llms-txt']) expect(developers).toContain(`id="${id}"`);
  });

  it('offers a sample name to hear, labelled as the computer voice reading its guide, with the respelling beside it', async () => {
    const page = (await get('/')).body;
    const src = /<audio controls preload="metadata" src="(\/assets\/sample-name\.[0-9a-f]+\.mp3)"/.exec(page)?.[1];
    expect(src).toBeTruthy();
    expect(page).toContain('<span>Siobhán Murphy</span> <span class="respelling">shiv-AWN MUR-fee</span>');
    expect(page).toContain('A pronunciation guide read by the computer voice: “Siobhán Murphy, shiv-AWN MUR-fee”.');
    // The label is the guide the product itself proposes (from its dictionaries: no engine runs).
    const noEngine = { phonemize: () => Promise.reject(new Error('not from the dictionaries')) };
    const guide = await generateGuide(noEngine, { given: SAMPLE_NAME.given, family: SAMPLE_NAME.family }, {});
    expect(guide.respelling).toBe(SAMPLE_NAME.respelling);
  });

  it('serves the sample as a small MP3 with a long cache, and answers byte ranges with 206', async () => {
    const src = /<audio [^>]*src="([^"]+)"/.exec((await get('/')).body)?.[1] as string;
    const whole = await get(src);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['content-type']).toBe('audio/mpeg');
    expect(whole.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(whole.headers['accept-ranges']).toBe('bytes');
    const size = whole.rawPayload.length;
    expect(size).toBeGreaterThan(1000);
    expect(size).toBeLessThan(16_000);
    // An MPEG audio frame starts the file (11 set sync bits), no ID3 tag.
    expect(whole.rawPayload[0]).toBe(0xff);
    expect(whole.rawPayload[1]! & 0xe0).toBe(0xe0);

    const part = await get(src, 'localhost:3000', { range: 'bytes=0-99' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 0-99/${size}`);
    expect(part.rawPayload.equals(whole.rawPayload.subarray(0, 100))).toBe(true);
    const rest = await get(src, 'localhost:3000', { range: 'bytes=100-' });
    expect(rest.statusCode).toBe(206);
    expect(rest.headers['content-range']).toBe(`bytes 100-${size - 1}/${size}`);
    expect(Buffer.concat([part.rawPayload, rest.rawPayload]).equals(whole.rawPayload)).toBe(true);
    const outside = await get(src, 'localhost:3000', { range: `bytes=${size}-` });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe(`bytes */${size}`);
    // A copy of another version (If-Range with another validator) gets the whole file.
    const changed = await get(src, 'localhost:3000', { range: 'bytes=0-99', 'if-range': '"other"' });
    expect(changed.statusCode).toBe(200);
    expect(changed.rawPayload.length).toBe(size);
  });

  it('answers the same on the SITE_URL host, and to HEAD', async () => {
    const onBase = await get('/');
    const onSite = await get('/', 'agents.localhost:3000');
    expect(onSite.statusCode).toBe(200);
    expect(onSite.body).toBe(onBase.body);
    const head = await t.app.inject({ method: 'HEAD', url: '/' });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('leaves other unknown paths a 404', async () => {
    expect((await get('/no-such-page')).statusCode).toBe(404);
  });
});

describe('favicons', () => {
  it('serves /favicon.ico (an ICO file) and /favicon.svg, cached for a day', async () => {
    const ico = await get('/favicon.ico');
    expect(ico.statusCode).toBe(200);
    expect(ico.headers['content-type']).toBe('image/x-icon');
    expect(ico.headers['cache-control']).toBe('public, max-age=86400');
    expect([...ico.rawPayload.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
    const svg = await get('/favicon.svg');
    expect(svg.statusCode).toBe(200);
    expect(svg.headers['content-type']).toBe('image/svg+xml');
    expect(svg.headers['cache-control']).toBe('public, max-age=86400');
    expect(svg.body).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
  });

  it('is linked from the heads of the pages', async () => {
    for (const url of ['/', '/dashboard/sign-in']) {
      expect((await get(url)).body, url).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
    }
  });
});
