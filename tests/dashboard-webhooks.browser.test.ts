/**
 * The dashboard's webhook pages and the site's root page in real Chromium, on a 390 px wide
 * phone screen against a real server and a real local receiver: add a webhook and copy its
 * secret, send a test event and read the receiver's answer as text, edit, rotate, replay,
 * delete; no page scrolls sideways.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';

import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';

let t: TestApp & { url: string };
let browser: Browser;
let receiver: Receiver;
const PHONE = { width: 390, height: 844 };

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '2000' } });
  receiver = await startReceiver();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await t?.close();
});

/** The page is no wider than the screen: nothing to scroll sideways to. */
async function expectNoSidewaysScroll(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth, new URL(page.url()).pathname).toBeLessThanOrEqual(clientWidth);
}

async function phone(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: PHONE, permissions: ['clipboard-read', 'clipboard-write'] });
  return { context, page: await context.newPage() };
}

async function signIn(page: Page, email: string) {
  await signInByLink(page, t, email);
}

describe('the root page at 390 px', () => {
  it('shows what voicename is and leads to sign-in, without sideways scrolling', async () => {
    const { context, page } = await phone();
    const res = await page.goto(`${t.url}/`);
    expect(res?.status()).toBe(200);
    await page.getByRole('heading', { level: 1, name: 'Hear how to say every name before you say it.' }).waitFor();
    expect(await page.locator('link[rel="icon"]').getAttribute('href')).toBe('/favicon.svg');
    await expectNoSidewaysScroll(page);
    expect(await page.locator('#llms-txt').getAttribute('href')).toBe(`${t.url}/llms.txt`);
    await page.locator('#sign-in').click();
    await page.getByRole('heading', { name: 'Sign in to the developer dashboard' }).waitFor();
    await context.close();
  });
});

describe('webhook pages at 390 px', () => {
  it('adds, tests, edits, rotates, replays and deletes a webhook', async () => {
    const { context, page } = await phone();
    await signIn(page, 'phone@example.com');
    await page.goto(`${t.url}/dashboard/webhooks`);
    await expectNoSidewaysScroll(page);

    // Add: the secret is shown once, and the copy button puts it on the clipboard.
    await page.getByRole('link', { name: 'Add a webhook' }).click();
    await expectNoSidewaysScroll(page);
    await page.getByLabel(/^Receiver URL/).fill(`${receiver.url}/phone-hook`);
    expect(await page.getByRole('checkbox', { name: /recording\.completed/ }).isChecked()).toBe(true);
    await page.getByRole('checkbox', { name: /recording\.deleted/ }).check();
    await page.getByLabel(/^Description/).fill('Registrar’s system\nsecond line');
    await page.getByRole('button', { name: 'Add webhook' }).click();
    await page.getByRole('heading', { name: /^Webhook added/ }).waitFor();
    const secret = await page.locator('#webhook-secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await expectNoSidewaysScroll(page);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await page.getByRole('link', { name: 'I have copied it' }).click();
    expect(await page.content()).not.toContain(secret);
    await expectNoSidewaysScroll(page);

    // Test event: the receiver's hostile answer is shown as text, not run.
    receiver.respond = () => ({ status: 200, body: '<script>window.owned = true</script><b>hi</b>' });
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('The test event was delivered').waitFor();
    expect(receiver.requests.at(-1)?.path).toBe('/phone-hook');
    const delivery = page.locator('article.delivery').first();
    await delivery.getByText('Response body').click();
    expect(await delivery.locator('.response-body').textContent()).toBe('<script>window.owned = true</script><b>hi</b>');
    expect(await page.evaluate(() => (window as unknown as { owned?: boolean }).owned)).toBeUndefined();
    await delivery.getByText('Request body').click();
    expect(JSON.parse((await delivery.locator('.request-body').textContent()) as string)).toMatchObject({
      event: 'webhook.test',
    });
    await expectNoSidewaysScroll(page);

    // Edit.
    await page.getByRole('link', { name: 'Edit' }).click();
    expect(await page.getByLabel(/^Description/).inputValue()).toBe('Registrar’s system\nsecond line');
    await page.getByLabel(/^Description/).fill('Registrar');
    await page.getByRole('checkbox', { name: /recording\.deleted/ }).uncheck();
    await expectNoSidewaysScroll(page);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('The webhook is saved.').waitFor();
    expect(await page.locator('.description').textContent()).toBe('Registrar');

    // Rotate: a new secret, shown once with its copy button.
    await page.getByRole('link', { name: 'Rotate secret…' }).click();
    await expectNoSidewaysScroll(page);
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('heading', { name: /^New signing secret/ }).waitFor();
    const rotated = await page.locator('#webhook-secret').inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(rotated);
    await expectNoSidewaysScroll(page);
    await page.getByRole('link', { name: 'I have copied it' }).click();

    // Replay the test event.
    receiver.respond = () => ({ status: 200, body: 'again' });
    const sent = receiver.requests.length;
    await page.locator('article.delivery').first().getByRole('button', { name: 'Replay' }).click();
    await page.getByText('The message was sent again and the receiver accepted it.').waitFor();
    expect(receiver.requests).toHaveLength(sent + 1);
    expect(await page.locator('article.delivery').first().locator('li[data-attempt]').count()).toBe(2);

    // Delete, after the confirmation page.
    await page.getByRole('link', { name: 'Delete…' }).click();
    await expectNoSidewaysScroll(page);
    await page.getByRole('button', { name: 'Delete webhook' }).click();
    await page.getByText('The webhook is deleted.').waitFor();
    expect(await page.locator('#no-webhooks').isVisible()).toBe(true);
    await context.close();
  });
});

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 900 }],
  ['390 px phone', { width: 390, height: 844 }],
] as const) {
  describe(`the webhook form's destination and payload on a ${label}`, () => {
    it('registers a Slack destination, and a refused thin Slack webhook says why next to the payload, accessibly', async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await signIn(page, `chat-${viewport.width}@example.com`);
      await page.goto(`${t.url}/dashboard/webhooks/new`);
      await expectNoSeriousAxeViolations(page);
      await expectNoSidewaysScroll(page);

      await page.getByLabel(/^Receiver URL/).fill(`${receiver.url}/slack-${viewport.width}`);
      await page.getByLabel('Destination').selectOption('slack');
      await page.getByLabel(/^Payload/).selectOption('thin');
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.locator('#payload-error').waitFor();
      await expectNoSeriousAxeViolations(page);
      await expectNoSidewaysScroll(page);

      await page.getByLabel(/^Payload/).selectOption('full');
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.getByRole('heading', { name: /^Webhook added/ }).waitFor();
      await page.getByRole('link', { name: 'I have copied it' }).click();
      await page.getByRole('link', { name: 'Edit' }).click();
      expect(await page.getByLabel('Destination').inputValue()).toBe('slack');
      await expectNoSeriousAxeViolations(page);
      await context.close();
    });
  });
}
