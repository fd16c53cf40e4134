/**
 * LTI Dynamic Registration in real Chromium against the mock platform (tests/helpers/lti-platform.ts):
 * an owner makes the registration URL on the LMS page; the platform's admin page opens it in a new
 * window and, for a second platform, in a frame; the administrator confirms; the last page posts
 * `org.imsglobal.lti.close` to the platform's window (its opener, or its parent). The LMS page's
 * card, the URL page and the confirmation page pass axe on a desktop and at 390 px.
 *
 * Platform and tool listen on two ports of 127.0.0.1: two origins, as a real platform and tool are.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';

import { type MockPlatform, startMockPlatform } from './helpers/lti-platform.js';

let t: TestApp & { url: string };
let browser: Browser;
const platforms: MockPlatform[] = [];

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  for (const platform of platforms) await platform.close();
  await t?.close();
});

async function signIn(page: Page, email: string) {
  await signInByLink(page, t, email);
}

/** Makes a registration URL on the LMS page (axe on the card and on the URL's page) and returns it. */
async function makeRegistrationUrl(page: Page): Promise<string> {
  await page.goto(`${t.url}/dashboard/lti`);
  await page.getByRole('heading', { name: 'Add by Dynamic Registration' }).waitFor();
  await expectNoSeriousAxeViolations(page);
  await page.getByRole('button', { name: 'Make a registration URL' }).click();
  await page.getByRole('heading', { name: 'Your registration URL' }).waitFor();
  await expectNoSeriousAxeViolations(page);
  return page.getByLabel('Registration URL').inputValue();
}

/** The platform's admin page, recording the messages its window receives. */
async function platformAdmin(page: Page, platform: MockPlatform) {
  await page.goto(`${platform.url}/admin`);
  await page.evaluate(() => {
    const received: unknown[] = [];
    (window as unknown as { received: unknown[] }).received = received;
    window.addEventListener('message', (event) => received.push({ data: event.data, origin: event.origin }));
  });
}

const received = (page: Page) => page.evaluate(() => (window as unknown as { received: unknown[] }).received);

const withPlatformParams = (url: string, platform: MockPlatform) =>
  `${url}?${new URLSearchParams({ openid_configuration: platform.openidConfigurationUrl, registration_token: platform.registrationToken })}`;

for (const [label, viewport] of [
  ['desktop', { width: 1280, height: 900 }],
  ['390 px phone', { width: 390, height: 844 }],
] as const) {
  describe(`Dynamic Registration on a ${label}`, () => {
    it('registers from a new window the platform opened, which is told to close', async () => {
      const platform = await startMockPlatform({ toolJwksUrl: () => `${t.url}/lti/jwks`, clientId: `popup-${viewport.width}` });
      platforms.push(platform);
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await signIn(page, `lms-${viewport.width}@uni.example`);
      const url = await makeRegistrationUrl(page);

      await platformAdmin(page, platform);
      const [popup] = await Promise.all([
        page.waitForEvent('popup'),
        page.evaluate((target) => void window.open(target, 'voicename-registration'), withPlatformParams(url, platform)),
      ]);
      await popup.getByRole('heading', { name: 'Register voicename with this platform' }).waitFor();
      expect(await popup.locator('main').textContent()).toContain(`lms-${viewport.width}@uni.example`);
      await expectNoSeriousAxeViolations(popup);
      await popup.getByRole('button', { name: 'Register voicename' }).click();
      await popup.getByRole('heading', { name: 'Registration complete, you can close this window' }).waitFor();
      await expect.poll(() => received(page)).toEqual([{ data: { subject: 'org.imsglobal.lti.close' }, origin: t.url }]);
      expect(platform.registrations.accepted).toHaveLength(1);
      await context.close();
    }, 60_000);

    it('registers inside a frame of the platform, which is told to close', async () => {
      const platform = await startMockPlatform({ toolJwksUrl: () => `${t.url}/lti/jwks`, clientId: `frame-${viewport.width}` });
      platforms.push(platform);
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await signIn(page, `frame-${viewport.width}@uni.example`);
      const url = await makeRegistrationUrl(page);

      await platformAdmin(page, platform);
      await page.evaluate(
        (target) => {
          const frame = document.createElement('iframe');
          frame.title = 'Register voicename';
          frame.src = target;
          frame.style.width = '100%';
          frame.style.height = '600px';
          document.body.append(frame);
        },
        withPlatformParams(url, platform),
      );
      const frame = page.frameLocator('iframe');
      await frame.getByRole('button', { name: 'Register voicename' }).click();
      await frame.getByRole('heading', { name: 'Registration complete, you can close this window' }).waitFor();
      await expect.poll(() => received(page)).toEqual([{ data: { subject: 'org.imsglobal.lti.close' }, origin: t.url }]);
      await context.close();
    }, 60_000);
  });
}
