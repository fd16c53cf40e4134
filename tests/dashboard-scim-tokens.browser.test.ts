/**
 * The API keys page with its "Provisioning (SCIM)" card in real Chromium, on a desktop and on a
 * 390 px phone: create a token (shown once, with the tenant URL), see it listed by prefix, revoke
 * it; axe finds nothing serious on any of these pages, and no page scrolls sideways.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';

let t: TestApp & { url: string };
let browser: Browser;

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function expectNoSidewaysScroll(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth, new URL(page.url()).pathname).toBeLessThanOrEqual(clientWidth);
}

async function signIn(page: Page, email: string) {
  await signInByLink(page, t, email);
}

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 900 }],
  ['390 px phone', { width: 390, height: 844 }],
] as const) {
  describe(`the SCIM card on a ${label}`, () => {
    it('creates a token shown once, lists it by prefix and revokes it, accessibly', async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await signIn(page, `scim-${viewport.width}@university.example`);
      await page.goto(`${t.url}/dashboard/api-keys`);
      await page.getByRole('heading', { name: 'Provisioning (SCIM)' }).waitFor();
      await expectNoSeriousAxeViolations(page);
      await expectNoSidewaysScroll(page);

      await page.getByLabel(/^Token name/).fill('Entra ID');
      await page.getByRole('button', { name: 'Create SCIM token' }).click();
      await page.getByRole('heading', { name: /Your new SCIM token/ }).waitFor();
      const token = await page.getByLabel('Secret token').inputValue();
      expect(token).toMatch(/^vnscim_/);
      expect(await page.getByLabel('Tenant URL').inputValue()).toBe(`${t.url}/scim/v2`);
      await expectNoSeriousAxeViolations(page);
      await expectNoSidewaysScroll(page);

      await page.getByRole('link', { name: 'I have copied it' }).click();
      const row = page.locator('#scim-tokens tbody tr', { hasText: 'Entra ID' });
      await row.waitFor();
      expect(await page.content()).not.toContain(token);
      await expectNoSidewaysScroll(page);
      await row.getByRole('link', { name: 'Revoke…' }).click();
      await expectNoSeriousAxeViolations(page);
      await page.getByRole('button', { name: 'Revoke token' }).click();
      await page.getByText('The SCIM token was revoked').waitFor();
      await row.getByText('Revoked').waitFor();
      await expectNoSeriousAxeViolations(page);
      const res = await fetch(`${t.url}/scim/v2/Users`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(401);
      await context.close();
    });
  });
}
