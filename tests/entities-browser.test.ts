/**
 * Real Chromium: script and HTML injected through every agent-supplied text field of an entity
 * never executes on its profile page, and the text is shown exactly as sent.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from './helpers/app.js';
import { startTestServer } from './helpers/app.js';
import { launchBrowser } from './helpers/browser.js';
import { publishEntity, validBody } from './helpers/entities.js';
import { fakeSpeech } from './helpers/fake-speech.js';

let t: TestApp & { url: string };
let browser: Browser;
beforeAll(async () => {
  t = await startTestServer({ env: { ENTITY_UNPAID_RATE_LIMIT_PER_MINUTE: '1000' }, overrides: fakeSpeech() });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const PAYLOADS = [
  '<script>window.__pwned = "script"</script>',
  '"><img src=x onerror="window.__pwned=\'img\'">',
  "'><svg onload=\"window.__pwned='svg'\"></svg>",
  '</script><script>window.__pwned="jsonld"</script>',
  '</title><script>window.__pwned="title"</script>',
  '<iframe srcdoc="<script>parent.__pwned=\'iframe\'</script>"></iframe>',
  '{{constructor.constructor("window.__pwned=1")()}}',
  '<a href="javascript:window.__pwned=\'link\'">click</a>',
];

describe('profile page in Chromium', () => {
  it('injection through name, description, intro, operator and external_metadata never executes', async () => {
    const body = validBody({
      name: `Bot <img src=x onerror="window.__pwned='name'"> ${Date.now()}`,
      description: `Hello ${PAYLOADS.join(' ')}`,
      intro: PAYLOADS.slice(0, 4).join(' '),
      operator: '</span><script>window.__pwned="operator"</script>',
      external_metadata: {
        html: PAYLOADS[0],
        '</pre><script>window.__pwned="key"</script>': PAYLOADS[3],
        nested: { list: PAYLOADS.slice(1, 3) },
      },
      avatar_url: 'https://example.invalid/a.png" onerror="window.__pwned=\'avatar\'',
    });
    const avatarRejected = await t.app.inject({
      method: 'POST',
      url: '/api/entities/generate',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    expect(avatarRejected.statusCode).toBe(400);
    delete body.avatar_url;
    const { paid } = await publishEntity(t, body);
    expect(paid.statusCode).toBe(200);
    const profileUrl = paid.json().entity.profile_url as string;
    expect(profileUrl.startsWith(t.url)).toBe(true);

    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const response = await page.goto(profileUrl, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    // Nothing is left that could run later: no element carries an event handler or a javascript: link.
    const handlers = await page.evaluate(() =>
      [...document.querySelectorAll('*')].flatMap((element) =>
        [...element.attributes]
          .filter((attribute) => /^on/i.test(attribute.name) || /^\s*javascript:/i.test(attribute.value))
          .map((attribute) => `${element.tagName} ${attribute.name}`),
      ),
    );
    expect(handlers).toEqual([]);
    // Hover and click everything, in case a payload waits for interaction.
    for (const handle of await page.$$('body *')) await handle.hover({ timeout: 200 }).catch(() => undefined);

    expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(await page.locator('script:not([type="application/ld+json"])').count()).toBe(0);
    expect(await page.locator('iframe, svg, img[src="x"]').count()).toBe(0);
    // Shown as text, exactly as sent.
    expect(await page.locator('#entity-name').textContent()).toBe(body.name);
    expect(await page.locator('#entity-operator').textContent()).toBe(body.operator);
    expect(await page.locator('#entity-description').textContent()).toBe(body.description);
    expect(await page.locator('#entity-intro').textContent()).toBe(body.intro);
    expect(await page.title()).toContain(body.name as string);
    const metadataText = await page.locator('#entity-metadata pre').textContent();
    expect(JSON.parse(metadataText ?? '')).toEqual(body.external_metadata);
    // The JSON-LD island is intact, parseable data.
    const jsonLd = JSON.parse((await page.locator('script[type="application/ld+json"]').textContent()) ?? '');
    expect(jsonLd).toMatchObject({ name: body.name, description: body.description, creator: { name: body.operator } });
    expect(await page.locator('meta[property="og:title"]').getAttribute('content')).toBe(body.name);
    // The audio element points at our own MP3.
    expect(await page.locator('audio').getAttribute('src')).toBe(paid.json().entity.audio_url);
    await page.close();
  });
});
