/**
 * /docs served by the app: the landing page lists every guide and the reference, every guide has
 * a page, links between pages lead somewhere (and to an existing heading), commands name the
 * serving server's address, and Scalar's bundle is served compressed, revalidated by ETag and
 * cached for good.
 */
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUIDES } from '../src/features/docs/guides.js';
import { createTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

describe('/docs pages', () => {
  it('the landing page links to every guide and to the reference', async () => {
    const res = await get('/docs');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    for (const { slug } of GUIDES) expect(res.body).toContain(`href="/docs/${slug}"`);
    expect(res.body).toContain('href="/docs/reference"');
    expect((await get('/docs/')).body).toBe(res.body);
  });

  it('the guides people need first are there, titled from their markdown', async () => {
    for (const slug of ['quick-start', 'recordings', 'play-links', 'webhooks', 'entities', 'dashboard']) {
      const res = await get(`/docs/${slug}`);
      expect(res.statusCode, slug).toBe(200);
      expect(res.body).toMatch(/<h1>[^<]+<\/h1>/);
      expect(res.body).toContain(`<a href="/docs/${slug}" aria-current="page">`);
    }
    expect((await get('/docs/quick-start')).body).toContain('<title>Quick start · voicename docs</title>');
  });

  it("commands show the address of the server serving the docs, where the markdown says the reader's localhost:3000", async () => {
    const other = await createTestApp({ env: { BASE_URL: 'https://names.example.edu' } });
    try {
      const page = (await other.app.inject({ method: 'GET', url: '/docs/quick-start' })).body;
      expect(page).toContain('export BASE_URL=https://names.example.edu');
      expect(page).not.toContain('localhost:3000');
    } finally {
      await other.close();
    }
    expect((await get('/docs/quick-start')).body).toContain('export BASE_URL=http://localhost:3000');
  });

  it('an unknown guide is a 404 page with the navigation', async () => {
    const res = await get('/docs/no-such-guide');
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('href="/docs/quick-start"');
  });

  it('every link from one docs page to another answers, and its #fragment names a heading there', async () => {
    const pages = new Map<string, string>();
    const page = async (path: string) => {
      if (!pages.has(path)) pages.set(path, (await get(path)).body);
      return pages.get(path) as string;
    };
    const broken: string[] = [];
    for (const from of ['/docs', ...GUIDES.map((g) => `/docs/${g.slug}`)]) {
      for (const [, href] of (await page(from)).matchAll(/href="(\/docs[^"]*|#[^"]*)"/g)) {
        const [path, fragment] = (href as string).startsWith('#')
          ? [from, (href as string).slice(1)]
          : (href as string).split('#');
        const res = await get(path as string);
        if (res.statusCode !== 200) broken.push(`${from} → ${href} (${res.statusCode})`);
        else if (fragment && !(await page(path as string)).includes(`id="${fragment}"`))
          broken.push(`${from} → ${href} (no such id)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe("Scalar's bundle", () => {
  const bundleUrl = async () =>
    /src="(\/docs\/assets\/scalar\.[0-9a-f]+\.js)"/.exec((await get('/docs/reference')).body)?.[1] as string;

  it('is served brotli or gzip compressed when the browser accepts it, else as it is, and cached for good', async () => {
    const url = await bundleUrl();
    const plain = await get(url);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.vary).toBe('accept-encoding');
    expect(plain.rawPayload.length).toBeGreaterThan(1_000_000);

    const br = await get(url, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    expect(zlib.brotliDecompressSync(br.rawPayload).equals(plain.rawPayload)).toBe(true);

    const gz = await get(url, { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(gz.rawPayload).equals(plain.rawPayload)).toBe(true);
  });

  it('answers 304 to its ETag, and 404 under any other name', async () => {
    const url = await bundleUrl();
    const { etag } = (await get(url)).headers;
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    const again = await get(url, { 'if-none-match': etag as string });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect((await get('/docs/assets/scalar.0000000000000000.js')).statusCode).toBe(404);
  });
});
