/**
 * Mutual TLS on the webhook forms in real Chromium, on a 390 px phone and a desktop: a refused
 * certificate is shown next to its field with the key field empty, a valid pair registers the
 * webhook, and the edit form says a certificate is set and removes it; no serious axe finding
 * and nothing to scroll sideways.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';

import { tlsFixtures } from './helpers/egress.js';

let t: TestApp & { url: string };
let browser: Browser;

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function signIn(page: Page, email: string) {
  await signInByLink(page, t, email);
}

async function expectFits(page: Page) {
  await expectNoSeriousAxeViolations(page);
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth, new URL(page.url()).pathname).toBeLessThanOrEqual(clientWidth);
}

describe('mutual TLS on the webhook forms', () => {
  it.each([
    ['a 390 px phone', { width: 390, height: 844 }],
    ['a desktop', { width: 1280, height: 800 }],
  ])('on %s: refuses an expired certificate next to it, registers a valid pair, removes it on edit', async (_what, viewport) => {
    const context = await browser.newContext({ viewport });
    try {
      const page = await context.newPage();
      await signIn(page, `mtls-${viewport.width}@example.com`);
      await page.goto(`${t.url}/dashboard/webhooks/new`);
      await expectFits(page);
      await page.getByLabel(/^Receiver URL/).fill('https://127.0.0.1:9/mtls');
      await page.getByLabel(/^Client certificate/).fill(tlsFixtures.expiredClientCert);
      await page.getByLabel(/^Private key/).fill(tlsFixtures.clientKey);
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.locator('#tls_client_certificate-error').getByText('The client certificate expired on').waitFor();
      expect(await page.getByLabel(/^Private key/).inputValue()).toBe('');
      expect(await page.getByLabel(/^Client certificate/).inputValue()).toBe(tlsFixtures.expiredClientCert.trimEnd() + '\n');
      await expectFits(page);

      await page.getByLabel(/^Client certificate/).fill(tlsFixtures.clientCert);
      await page.getByLabel(/^Private key/).fill(tlsFixtures.clientKey);
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.getByRole('heading', { name: /^Webhook added/ }).waitFor();
      await page.getByRole('link', { name: 'I have copied it' }).click();
      expect(await page.locator('dd.client-certificate').textContent()).toBe('A client certificate is set');

      await page.getByRole('link', { name: 'Edit' }).click();
      await page.getByText('A client certificate is set.').waitFor();
      await expectFits(page);
      await page.getByRole('checkbox', { name: 'Remove the client certificate' }).check();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('The webhook is saved.').waitFor();
      expect(await page.locator('dd.client-certificate').textContent()).toBe('No client certificate');
    } finally {
      await context.close();
    }
  });
});
