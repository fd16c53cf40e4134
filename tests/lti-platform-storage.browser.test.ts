/**
 * An LTI launch inside the platform's frame, in real Chromium, with the tool's cookie withheld:
 * the mock platform's course page (tests/helpers/lti-platform.ts) is opened under the host name
 * `lms.test` (mapped to loopback), so the tool on http://127.0.0.1 is a third-party frame and
 * Chromium neither sends its state cookie with the platform's cross-site form post nor keeps it
 * (a SameSite=Lax cookie in a cross-site frame, which is what blocked third-party cookies do to
 * the SameSite=None cookie over https). The launch completes through the platform's storage
 * (postMessage put_data/get_data with the course page's `post_message_forwarding` frame).
 */
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccountWithEmail } from '../src/features/accounts/service.js';
import { createRegistration } from '../src/features/lti/registration-service.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { launchBrowser } from './helpers/browser.js';
import { type MockPlatform, type NextLaunch, ROLES, startMockPlatform } from './helpers/lti-platform.js';

const LMS_HOST = 'lms.test';
let t: TestApp & { url: string };
let platform: MockPlatform;
let browser: Browser;
let lmsOrigin: string;

const learner: NextLaunch['user'] = {
  sub: 'frame-learner-1',
  givenName: 'Saoirse',
  familyName: 'Doyle',
  email: 'saoirse@uni.example',
  roles: [ROLES.learner],
};

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  platform = await startMockPlatform({ toolJwksUrl: () => `${t.url}/lti/jwks`, toolOrigin: () => t.url });
  lmsOrigin = platform.url.replace('127.0.0.1', LMS_HOST);
  await t.newAccount('registrar@uni.example');
  const account = await findAccountWithEmail(t.deps, 'registrar@uni.example');
  if (!account) throw new Error('no account');
  await createRegistration(t.deps, account.id, {
    issuer: platform.issuer,
    client_id: platform.clientId,
    deployment_ids: platform.deploymentId,
    // The browser meets the platform as lms.test; the tool's server reads its keys on loopback.
    auth_url: `${lmsOrigin}/auth`,
    token_url: platform.tokenUrl,
    jwks_url: platform.jwksUrl,
  });
  browser = await launchBrowser({ loopbackHosts: [LMS_HOST] });
});
afterAll(async () => {
  await browser?.close();
  await platform?.close();
  await t?.close();
});

/** Opens the course page, whose frame starts the tool's login with platform storage. */
async function launchInCoursePage(page: Page) {
  platform.nextLaunch({
    user: learner,
    context: { id: 'course-frame', title: 'Phonology 301' },
    returnUrl: `${lmsOrigin}/courses/course-frame`,
  });
  const login = `${t.url}/lti/login?${new URLSearchParams({
    iss: platform.issuer,
    login_hint: learner.sub,
    target_link_uri: `${t.url}/lti/launch`,
    client_id: platform.clientId,
    lti_deployment_id: platform.deploymentId,
    lti_storage_target: 'post_message_forwarding',
  })}`;
  const launchRequests: Request[] = [];
  page.on('request', (request) => {
    if (request.url() === `${t.url}/lti/launch` && request.method() === 'POST') launchRequests.push(request);
  });
  await page.goto(platform.coursePageUrl(lmsOrigin, login));
  return launchRequests;
}

describe('LTI launch in the platform’s frame with the tool’s cookie withheld', () => {
  it('completes through the platform’s storage and sends the learner to their record page', async () => {
    platform.storage.forgeGetData = false;
    const context = await browser.newContext();
    const page = await context.newPage();
    const landed = page.waitForResponse((response) => /\/r\/[A-Za-z0-9_-]+$/.test(response.url()), { timeout: 20_000 });
    const launchRequests = await launchInCoursePage(page);
    const record = await landed;
    expect(record.status()).toBe(200);
    // The course's site may frame its record pages: the learner sees theirs inside the course page.
    const recordFrame = () => page.frames().find((frame) => frame.url() === record.url());
    await expect.poll(recordFrame, { timeout: 10_000 }).toBeDefined();
    await expect.poll(async () => recordFrame()?.locator('h1').textContent(), { timeout: 10_000 }).toContain('Saoirse Doyle');
    // The launch really came without the tool's cookie: the storage did the binding.
    expect(launchRequests).toHaveLength(1);
    expect((await launchRequests[0]?.allHeaders())?.cookie ?? '').not.toContain('vn_lti_state');
    expect(platform.storage.requests).toEqual(
      expect.arrayContaining([
        'org.imsglobal.lti.capabilities ',
        expect.stringMatching(/^org\.imsglobal\.lti\.put_data state_/),
        expect.stringMatching(/^org\.imsglobal\.lti\.put_data nonce_/),
        expect.stringMatching(/^org\.imsglobal\.lti\.get_data state_/),
      ]),
    );
    await context.close();
  }, 60_000);

  it('refuses a completion whose state the storage does not confirm, with a 4xx page', async () => {
    platform.storage.forgeGetData = true;
    const context = await browser.newContext();
    const page = await context.newPage();
    const completed = page.waitForResponse((response) => response.url() === `${t.url}/lti/launch/complete`, {
      timeout: 20_000,
    });
    await launchInCoursePage(page);
    const refused = await completed;
    expect(refused.status()).toBe(403);
    expect(refused.headers()['content-type']).toContain('text/html');
    platform.storage.forgeGetData = false;
    await context.close();
  }, 60_000);
});
