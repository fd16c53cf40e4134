/**
 * oEmbed for agent profiles: the profile page announces its oEmbed document, which describes the
 * profile as a `link` with its preview card as thumbnail (left out when it would not fit the
 * consumer's maxwidth/maxheight); unknown or foreign URLs are 404, deleted profiles 410, and a
 * format other than JSON is 501, as for play links.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from './helpers/app.js';
import { entityApps, publishEntity, validBody } from './helpers/entities.js';

const SITE = 'https://agents.voicename.test';
const apps = entityApps();
let t: TestApp;
let profileUrl: string;
let deletionToken: string;

beforeAll(async () => {
  t = await apps.app({ env: { SITE_URL: SITE } });
  const { paid } = await publishEntity(t, validBody({ name: `Orbit Embed ${Date.now()}`, operator: 'Example & Co' }));
  profileUrl = paid.json().entity.profile_url;
  deletionToken = paid.json().receipt.deletion_token;
});
afterAll(() => apps.closeAll());

const pathOf = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};
const oembed = (query: string) => t.app.inject({ url: `/e/oembed.json?${query}` });

describe('oEmbed for /e/<slug>', () => {
  it('the profile page links its oEmbed document, which describes the profile as a link with its card', async () => {
    const page = await t.app.inject({ url: pathOf(profileUrl) });
    const href = /<link rel="alternate" type="application\/json\+oembed" href="([^"]+)"/.exec(page.body)?.[1];
    expect(href).toBe(`${SITE}/e/oembed.json?url=${encodeURIComponent(profileUrl)}&amp;format=json`);
    const res = await t.app.inject({ url: pathOf(href!.replaceAll('&amp;', '&')) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    const body = res.json();
    // oEmbed 1.0 section 2.3.4: version and type always; the thumbnail's three fields together.
    expect(body).toMatchObject({
      version: '1.0',
      type: 'link',
      provider_name: 'voicename',
      provider_url: SITE,
      author_name: 'Example & Co',
      thumbnail_width: 1200,
      thumbnail_height: 630,
    });
    expect(body.title).toContain('Orbit Embed');
    const card = await t.app.inject({ url: pathOf(body.thumbnail_url) });
    expect(card.statusCode).toBe(200);
    expect(card.headers['content-type']).toBe('image/png');
  });

  it('leaves the thumbnail out when it does not fit maxwidth or maxheight', async () => {
    const url = encodeURIComponent(profileUrl);
    for (const limits of ['maxwidth=600', 'maxheight=300', 'maxwidth=600&maxheight=300']) {
      const body = (await oembed(`url=${url}&${limits}`)).json();
      expect(body.type, limits).toBe('link');
      expect(body.thumbnail_url, limits).toBeUndefined();
      expect(body.thumbnail_width, limits).toBeUndefined();
    }
    expect((await oembed(`url=${url}&maxwidth=1200&maxheight=630`)).json().thumbnail_width).toBe(1200);
  });

  it('answers 404 for unknown or foreign URLs, 400 without url, 501 for xml, 410 once deleted', async () => {
    const url = encodeURIComponent(profileUrl);
    expect((await oembed(`url=${url}&format=xml`)).statusCode).toBe(501);
    expect((await oembed('format=json')).statusCode).toBe(400);
    for (const other of [
      `${SITE}/e/no-such-entity`,
      `https://evil.example/e/${profileUrl.split('/e/')[1]}`,
      `${SITE}/p/x`,
      'nonsense',
    ]) {
      const res = await oembed(`url=${encodeURIComponent(other)}`);
      expect(res.statusCode, other).toBe(404);
    }
    const slug = decodeURIComponent(profileUrl.split('/e/')[1]!);
    const deleted = await t.app.inject({
      method: 'DELETE',
      url: `/api/entities/${encodeURIComponent(slug)}`,
      headers: { 'deletion-token': deletionToken },
    });
    expect(deleted.statusCode).toBe(200);
    expect((await oembed(`url=${url}`)).statusCode).toBe(410);
  });
});
