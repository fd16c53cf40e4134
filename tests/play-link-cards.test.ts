/**
 * Preview cards and signature badges through real HTTP: `/p/<token>/card.png`,
 * `/p/<token>/badge.png` and `/e/<slug>/card.png` are PNGs of the right size, cached by content
 * (ETag, 304, immutable when the URL names the content), rate-limited; the link-preview tags of
 * the player and profile pages point at them; the pages and the images speak the right language.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { publishEntity, validBody } from './helpers/entities.js';
import { fakeSpeech } from './helpers/fake-speech.js';
import { addRecordedUser, createCollection } from './helpers/play-link-fixtures.js';
import { metaTags, pngSize } from './helpers/link-preview.js';

let t: TestApp;
let key: string;
let collectionId: string;

beforeAll(async () => {
  t = await createTestApp({ env: { TWITTER_SITE: '@voicename' }, overrides: fakeSpeech() });
  ({ key } = await t.newAccount());
  collectionId = await createCollection(t, key, 'Class of 2027');
});
afterAll(() => t.close());

const get = (url: string, headers: Record<string, string> = {}) => t.request({ method: 'GET', url, headers });
const local = (url: string) => url.replace(t.config.baseUrl, '');
const slugOf = (published: { entity: { profile_url: string } }) =>
  new URL(published.entity.profile_url).pathname.split('/').pop() as string;

describe('/p/<token>/card.png', () => {
  it('is a 1200x630 PNG whose ETag names its content: 304 on a match, immutable under its content URL', async () => {
    const { token } = await addRecordedUser(t, collectionId, { displayName: 'Siobhán Ní Bhriain', phoneticSpelling: 'shi-VAWN' });
    const page = metaTags((await get(`/p/${token}`)).body);
    const cardUrl = page.get('og:image') as string;
    expect(cardUrl).toMatch(new RegExp(`^${t.config.baseUrl}/p/${token}/card\\.png\\?v=[A-Za-z0-9_-]{22}$`));

    const plain = await get(`/p/${token}/card.png`);
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['content-type']).toBe('image/png');
    expect(pngSize(plain.rawPayload)).toEqual({ width: 1200, height: 630 });
    expect(plain.headers['cache-control']).toBe('public, max-age=300');
    const etag = String(plain.headers.etag);
    expect(etag).toBe(`"${new URL(cardUrl).searchParams.get('v')}"`);
    expect(plain.headers['cross-origin-resource-policy']).toBe('cross-origin');

    const addressed = await get(local(cardUrl));
    expect(addressed.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(addressed.rawPayload.equals(plain.rawPayload)).toBe(true);

    const revalidated = await get(`/p/${token}/card.png`, { 'if-none-match': etag });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.rawPayload.length).toBe(0);
    expect((await get(`/p/${token}/card.png`, { 'if-none-match': '"other"' })).statusCode).toBe(200);
    // A stale content URL still answers, with the current picture, but only briefly cacheable.
    const stale = await get(`/p/${token}/card.png?v=AAAAAAAAAAAAAAAAAAAAAA`);
    expect(stale.statusCode).toBe(200);
    expect(stale.headers['cache-control']).toBe('public, max-age=300');
  });

  it('changes URL and ETag when what it draws changes (name, phonetic spelling, organisation)', async () => {
    const { token, userId } = await addRecordedUser(t, collectionId, { displayName: 'Zoë Quinn', phoneticSpelling: 'ZOH-ee' });
    const before = (await get(`/p/${token}/card.png`)).headers.etag;
    const patched = await t.request({
      method: 'PATCH',
      url: `/v1/collections/${collectionId}/users/${userId}`,
      key,
      json: { phonetic_spelling: 'zoh-AY' },
    });
    expect(patched.statusCode).toBe(200);
    const after = await get(`/p/${token}/card.png`);
    expect(after.headers.etag).not.toBe(before);
    expect(metaTags((await get(`/p/${token}`)).body).get('og:image')).toContain(`v=${String(after.headers.etag).slice(1, -1)}`);
  });

  it('draws names in every shipped script and long names without failing', async () => {
    for (const displayName of [
      '王小明',
      'محمد بن سلمان',
      'अनन्या शर्मा',
      'Ярослава Ковальчук',
      'Ὀδυσσεύς',
      'x'.repeat(200),
      'A '.repeat(120).trim(),
    ]) {
      const { token } = await addRecordedUser(t, collectionId, { displayName, phoneticSpelling: null });
      const res = await get(`/p/${token}/card.png`);
      expect(res.statusCode, displayName).toBe(200);
      expect(pngSize(res.rawPayload)).toEqual({ width: 1200, height: 630 });
    }
  });

  it('answers 404 for unknown tokens, like the other public URLs', async () => {
    expect((await get('/p/unknownToken123/card.png')).statusCode).toBe(404);
    expect((await get('/p/unknownToken123/badge.png')).statusCode).toBe(404);
  });
});

describe('/p/<token>/badge.png', () => {
  it('is 180x40, 360x80 at scale=2, 540x120 at scale=3; dark differs from light; bad theme or scale is a 400', async () => {
    const { token } = await addRecordedUser(t, collectionId);
    const light = await get(`/p/${token}/badge.png`);
    expect(light.statusCode).toBe(200);
    expect(light.headers['content-type']).toBe('image/png');
    expect(pngSize(light.rawPayload)).toEqual({ width: 180, height: 40 });
    expect(light.headers['cache-control']).toBe('public, max-age=86400');
    expect(pngSize((await get(`/p/${token}/badge.png?scale=2`)).rawPayload)).toEqual({ width: 360, height: 80 });
    expect(pngSize((await get(`/p/${token}/badge.png?scale=3&utm_source=mail`)).rawPayload)).toEqual({ width: 540, height: 120 });
    const dark = await get(`/p/${token}/badge.png?theme=dark`);
    expect(pngSize(dark.rawPayload)).toEqual({ width: 180, height: 40 });
    expect(dark.rawPayload.equals(light.rawPayload)).toBe(false);
    expect(dark.headers.etag).not.toBe(light.headers.etag);
    expect((await get(`/p/${token}/badge.png`, { 'if-none-match': String(light.headers.etag) })).statusCode).toBe(304);
    for (const query of ['theme=blue', 'scale=4', 'scale=0', 'scale=1.5', 'theme=dark&theme=light']) {
      const res = await get(`/p/${token}/badge.png?${query}`);
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    }
  });

  it("speaks the collection's language, whatever the visitor's", async () => {
    const french = await createCollection(t, key, 'Promotion 2027');
    const { token } = await addRecordedUser(t, french);
    const english = await get(`/p/${token}/badge.png`);
    await t.request({ method: 'PATCH', url: `/v1/collections/${french}`, key, json: { language: 'fr' } });
    const inFrench = await get(`/p/${token}/badge.png`, { 'accept-language': 'de' });
    expect(inFrench.rawPayload.equals(english.rawPayload)).toBe(false);
    // The page is in the visitor's language; the signature HTML keeps the collection's.
    const page = (await get(`/p/${token}`, { 'accept-language': 'de' })).body;
    expect(page).toContain('<html lang="de" dir="ltr">');
    expect(page).toContain('Zur E-Mail-Signatur hinzufügen');
    expect(page).toContain('alt=&quot;Écoutez comment prononcer');
  });
});

describe('player page', () => {
  it('has the link-preview tags: Open Graph title, description, url, image (+ size, alt), Twitter card, site and player', async () => {
    const { token } = await addRecordedUser(t, collectionId, { displayName: 'Siobhan O’Sullivan', phoneticSpelling: 'shi-VAWN' });
    const link = `${t.config.baseUrl}/p/${token}`;
    const tags = metaTags((await get(`/p/${token}`)).body);
    expect(tags.get('og:title')).toBe('How to say Siobhan O’Sullivan');
    expect(tags.get('og:description')).toBe('Hear Siobhan O’Sullivan say their name (shi-VAWN).');
    expect(tags.get('og:url')).toBe(link);
    expect(tags.get('og:image')).toMatch(new RegExp(`^${link}/card\\.png\\?v=`));
    expect(tags.get('og:image:width')).toBe('1200');
    expect(tags.get('og:image:height')).toBe('630');
    expect(tags.get('og:image:type')).toBe('image/png');
    expect(tags.get('og:image:alt')).toBe('How to say Siobhan O’Sullivan');
    expect(tags.get('twitter:card')).toBe('summary_large_image');
    expect(tags.get('twitter:image')).toBe(tags.get('og:image'));
    expect(tags.get('twitter:site')).toBe('@voicename');
    expect(tags.get('twitter:player')).toBe(`${link}/embed`);
    expect(tags.get('og:audio')).toBe(`${link}.mp3`);
  });

  it('leads with the name; shares behind a disclosure with the signature badge HTML; says who it is from', async () => {
    const branded = await createCollection(t, key, 'Graduation 2027');
    await t.request({
      method: 'PATCH',
      url: `/v1/collections/${branded}`,
      key,
      json: { branding: { organisation_name: 'Riverside University' } },
    });
    const { token } = await addRecordedUser(t, branded, { displayName: 'Ana <Lima>', phoneticSpelling: 'AH-nah LEE-mah' });
    const link = `${t.config.baseUrl}/p/${token}`;
    const page = (await get(`/p/${token}`)).body;
    expect(page.indexOf('<h1 id="name" dir="auto">')).toBeLessThan(page.indexOf('<details class="share"'));
    expect(page.indexOf('id="play"')).toBeLessThan(page.indexOf('<details class="share"'));
    expect(page).toContain('<summary>Share</summary>');
    expect(page).toContain('<p class="from" id="from">From <bdi>Riverside University</bdi></p>');
    expect(page).toContain(
      `<img src="${link}/badge.png?scale=2" width="180" height="40" alt="Hear how to say Ana &lt;Lima&gt;">`,
    );
    // The copy-paste HTML, shown escaped in its text field, links the 2x badge to the player page.
    expect(page).toContain(
      `&lt;a href=&quot;${link}&quot;&gt;&lt;img src=&quot;${link}/badge.png?scale=2&quot; width=&quot;180&quot; height=&quot;40&quot; alt=&quot;Hear how to say Ana &amp;lt;Lima&amp;gt;&quot;`,
    );
    // Without branding, the collection's name says who it is from.
    const { token: plain } = await addRecordedUser(t, collectionId);
    expect((await get(`/p/${plain}`)).body).toContain('From <bdi>Class of 2027</bdi>');
  });

  it("is in the visitor's language, else the collection's, with lang and dir; Arabic is right to left", async () => {
    const german = await createCollection(t, key, 'Jahrgang 2027');
    await t.request({ method: 'PATCH', url: `/v1/collections/${german}`, key, json: { language: 'de' } });
    const { token } = await addRecordedUser(t, german);
    const byCollection = await get(`/p/${token}`);
    expect(byCollection.body).toContain('<html lang="de" dir="ltr">');
    expect(byCollection.body).toContain('<summary>Teilen</summary>');
    expect(byCollection.headers.vary).toContain('Accept-Language');
    const arabic = (await get(`/p/${token}`, { 'accept-language': 'ar-EG,ar;q=0.9' })).body;
    expect(arabic).toContain('<html lang="ar" dir="rtl">');
    expect(arabic).toContain('<summary>مشاركة</summary>');
    const chinese = (await get(`/p/${token}/embed`, { 'accept-language': 'zh-CN' })).body;
    expect(chinese).toContain('<html lang="zh-Hans" dir="ltr">');
    expect(chinese).toMatch(/aria-label="播放 .* 的读音"/);
    const missing = await get('/p/unknownToken123', { 'accept-language': 'fr' });
    expect(missing.body).toContain('Enregistrement introuvable');
  });
});

describe('embed', () => {
  it('gives long names smaller type and always the full name as tooltip', async () => {
    const long = 'Wolfeschlegelsteinhausenbergerdorff Oluwaseunfunmilayo';
    const { token } = await addRecordedUser(t, collectionId, { displayName: long });
    const body = (await get(`/p/${token}/embed`)).body;
    expect(body).toContain(
      `class="n longer" href="${t.config.baseUrl}/p/${token}" target="_blank" rel="noopener" title="${long}">${long}</a>`,
    );
    const { token: short } = await addRecordedUser(t, collectionId, { displayName: 'Zoë Quinn' });
    expect((await get(`/p/${short}/embed`)).body).toContain('<a class="n" href=');
  });
});

describe('/e/<slug> and its card', () => {
  it('has Open Graph and Twitter tags whose image is a 1200x630 PNG card, not the SVG avatar', async () => {
    const { paid } = await publishEntity(t, validBody({ name: 'Meeting Bot 王' }));
    const slug = slugOf(paid.json());
    const res = await get(`/e/${slug}`);
    expect(res.statusCode).toBe(200);
    const tags = metaTags(res.body);
    const profileUrl = `${t.config.siteUrl}/e/${slug}`;
    expect(tags.get('og:title')).toBe('Meeting Bot 王');
    expect(tags.get('og:description')).toBe('An agent that books meetings for small teams.');
    expect(tags.get('og:url')).toBe(profileUrl);
    expect(tags.get('og:image')).toMatch(new RegExp(`^${profileUrl}/card\\.png\\?v=[A-Za-z0-9_-]{22}$`));
    expect(tags.get('og:image:width')).toBe('1200');
    expect(tags.get('twitter:card')).toBe('summary_large_image');
    expect(tags.get('twitter:image')).toBe(tags.get('og:image'));
    expect(tags.get('twitter:site')).toBe('@voicename');
    const card = await get((tags.get('og:image') as string).replace(t.config.siteUrl, ''));
    expect(card.statusCode).toBe(200);
    expect(card.headers['content-type']).toBe('image/png');
    expect(card.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(pngSize(card.rawPayload)).toEqual({ width: 1200, height: 630 });
    expect((await get(`/e/${slug}/card.png`, { 'if-none-match': String(card.headers.etag) })).statusCode).toBe(304);
    expect((await get('/e/no-such-agent/card.png')).statusCode).toBe(404);
  });

  it("is in the visitor's language", async () => {
    const { paid } = await publishEntity(t, validBody());
    const page = (await get(`/e/${slugOf(paid.json())}`, { 'accept-language': 'fr' })).body;
    expect(page).toContain('<html lang="fr" dir="ltr">');
    expect(page).toContain('Non revendiqué · Non vérifié');
  });
});

describe('rate limit', () => {
  it('allows IMAGE_RATE_LIMIT_PER_MINUTE images per client address, then 429 with Retry-After', async () => {
    const limited = await createTestApp({ env: { IMAGE_RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const { key: limitedKey } = await limited.newAccount();
      const collection = await createCollection(limited, limitedKey);
      const { token } = await addRecordedUser(limited, collection);
      for (let i = 0; i < 3; i++) {
        expect((await limited.request({ method: 'GET', url: `/p/${token}/badge.png` })).statusCode).toBe(200);
      }
      const refused = await limited.request({ method: 'GET', url: `/p/${token}/card.png` });
      expect(refused.statusCode).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // The pages themselves are not counted.
      expect((await limited.request({ method: 'GET', url: `/p/${token}` })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
