/**
 * The root of the site: `GET /` is a product page (not a JSON 404) on both the BASE_URL and the
 * SITE_URL host, with the page security headers and links that lead somewhere; the favicons exist
 * and are cached.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
const BASE = 'http://localhost:3000';
const SITE = 'http://agents.localhost:3000';

beforeAll(async () => {
  t = await createTestApp({ env: { SITE_URL: SITE } });
});
afterAll(() => t.close());

const get = (url: string, host = 'localhost:3000') => t.app.inject({ method: 'GET', url, headers: { host } });
const hrefs = (page: string) => [...page.matchAll(/<a [^>]*href="([^"]+)"/g)].map((m) => m[1]);

describe('GET /', () => {
  it('is the product page, with the security headers of the other pages and no script', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<h1>Hear how to say every name before you say it.</h1>');
    expect(res.body).toContain('recordings of people saying their own names');
    expect(res.body).toContain(`${SITE}/e/your-agent`);
    expect(res.body).toContain('1.00 AUD');
    expect(res.body).not.toMatch(/<script/i);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['content-security-policy']).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('links to sign-in and the API docs on BASE_URL, and to the agent API on SITE_URL; each link answers', async () => {
    const links = hrefs((await get('/')).body);
    for (const expected of [
      `${BASE}/dashboard`,
      `${BASE}/docs`,
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
