/**
 * The LTI path end to end in real Chromium against the mock platform (tests/helpers/lti-platform.ts):
 * an instructor launches from the course and lands in its new collection; the roster sync brings
 * the course's learners in; a learner launches, lands on their record page and records with a fake
 * microphone; the instructor sees the recording in the collection. The new pages pass axe on a
 * desktop and at 390 px.
 *
 * Platform and tool both listen on http://127.0.0.1 (one site), so the tool's state cookie is
 * SameSite=Lax without Secure and the platform's auto-submitted form post carries it.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccountWithEmail } from '../src/features/accounts/service.js';
import { createRegistration } from '../src/features/lti/registration-service.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { ffmpegPath } from './helpers/binaries.js';
import { launchBrowser } from './helpers/browser.js';
import { runJobsLater } from './helpers/jobs.js';
import { type MockPlatform, type NextLaunch, ROLES, startMockPlatform } from './helpers/lti-platform.js';

const COURSE = { id: 'course-browser', title: 'Phonetics 201' };
let t: TestApp & { url: string };
let platform: MockPlatform;
let browser: Browser;

const instructor: NextLaunch['user'] = {
  sub: 'i-1',
  givenName: 'Grace',
  familyName: 'Hopper',
  email: 'grace@uni.example',
  roles: [ROLES.instructor],
};
const learner: NextLaunch['user'] = {
  sub: 's-1',
  givenName: 'Siobhán',
  familyName: 'Ní Bhriain',
  email: 'siobhan@uni.example',
  roles: [ROLES.learner],
};

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  platform = await startMockPlatform({ toolJwksUrl: () => `${t.url}/lti/jwks` });
  await t.newAccount('registrar@uni.example');
  const account = await findAccountWithEmail(t.deps, 'registrar@uni.example');
  if (!account) throw new Error('no account');
  await createRegistration(t.deps, account.id, {
    issuer: platform.issuer,
    client_id: platform.clientId,
    deployment_ids: platform.deploymentId,
    auth_url: platform.authUrl,
    token_url: platform.tokenUrl,
    jwks_url: platform.jwksUrl,
  });
  platform.setMembers(COURSE.id, [
    {
      user_id: 'i-1',
      given_name: 'Grace',
      family_name: 'Hopper',
      name: 'Grace Hopper',
      email: 'grace@uni.example',
      roles: [ROLES.instructor],
    },
    {
      user_id: 's-1',
      given_name: 'Siobhán',
      family_name: 'Ní Bhriain',
      name: 'Siobhán Ní Bhriain',
      email: 'siobhan@uni.example',
      roles: [ROLES.learner],
    },
    {
      user_id: 's-2',
      given_name: 'Oisín',
      family_name: 'Walsh',
      name: 'Oisín Walsh',
      email: 'oisin@uni.example',
      roles: [ROLES.learner],
    },
  ]);
  // The fake microphone: silence, then the name at 5 s (the page counts down 3 s before recording).
  const fakeMic = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-mic-')), 'mic.wav');
  execFileSync(ffmpegPath(), [
    ...['-hide_banner', '-v', 'error', '-y', '-i', speechWav('Siobhan Ni Bhriain')],
    ...['-af', `aresample=48000,adelay=5000,apad=pad_len=${20 * 48_000}`, '-ar', '48000', '-ac', '1', fakeMic],
  ]);
  browser = await launchBrowser({ fakeMicrophoneWav: fakeMic });
});
afterAll(async () => {
  await browser?.close();
  await platform?.close();
  await t?.close();
});

/** The platform's third-party initiated login, as its course page sends the browser to the tool. */
async function launchFromCourse(page: Page, next: NextLaunch) {
  platform.nextLaunch(next);
  const query = new URLSearchParams({
    iss: platform.issuer,
    login_hint: next.user.sub,
    target_link_uri: `${t.url}/lti/launch`,
    client_id: platform.clientId,
    lti_deployment_id: platform.deploymentId,
  });
  await page.goto(`${t.url}/lti/login?${query}`);
}

describe('LTI launch in Chromium', () => {
  it('instructor launch → roster sync → learner records → the instructor sees the recording', async () => {
    const teacher = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const teacherPage = await teacher.newPage();
    await launchFromCourse(teacherPage, { user: instructor, context: COURSE });
    await teacherPage.waitForURL(/\/dashboard\/collections\/[0-9a-f-]{36}$/);
    expect(await teacherPage.locator('h1').first().textContent()).toContain(COURSE.title);
    const collectionUrl = teacherPage.url();

    expect(await runJobsLater(t.deps, 0)).toBeGreaterThan(0);
    await teacherPage.reload();
    const names = await teacherPage.locator('main').textContent();
    expect(names).toContain('Siobhán Ní Bhriain');
    expect(names).toContain('Oisín Walsh');
    expect(names).toMatch(/0 of 2 recorded/);

    const student = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const studentPage = await student.newPage();
    await launchFromCourse(studentPage, { user: learner, context: COURSE });
    await studentPage.waitForURL(/\/r\/[A-Za-z0-9_-]+$/);
    expect(await studentPage.locator('h1').textContent()).toBe('Siobhán Ní Bhriain');
    await studentPage.click('#start');
    await studentPage.waitForSelector('#recorder[data-state="recording"]', { timeout: 15_000 });
    await studentPage.waitForSelector('#timer:text-is("5 s left")', { timeout: 15_000 });
    await studentPage.click('#stop');
    await studentPage.waitForSelector('#recorder[data-state="review"]', { timeout: 20_000 });
    await studentPage.click('#submit');
    await studentPage.waitForSelector('#recorder[data-state="done"]', { timeout: 30_000 });

    await teacherPage.goto(collectionUrl);
    expect(await teacherPage.locator('main').textContent()).toMatch(/1 of 2 recorded/);
    await student.close();
    await teacher.close();
  }, 90_000);

  it('the LMS page, a refused launch and the Deep Linking picker pass axe on a desktop and at 390 px', async () => {
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      await launchFromCourse(page, { user: instructor, context: COURSE });
      await page.waitForURL(/\/dashboard\/collections\//);
      await page.goto(`${t.url}/dashboard/lti`);
      expect(await page.locator('#tool-login-url').textContent()).toBe(`${t.url}/lti/login`);
      await expectNoSeriousAxeViolations(page);

      await launchFromCourse(page, { user: learner, context: COURSE, withoutRoles: true });
      await page.waitForSelector('h1:text-is("Launch not accepted")');
      await expectNoSeriousAxeViolations(page);

      await launchFromCourse(page, { user: instructor, context: COURSE, messageType: 'LtiDeepLinkingRequest' });
      await page.waitForSelector('h1:has-text("Insert voicename into")');
      await expectNoSeriousAxeViolations(page);
      await page.click('button[type="submit"]');
      await page.waitForURL(`${platform.url}/deep-link-return`);
      expect(platform.log.deepLinks.length).toBeGreaterThan(0);
      await context.close();
    }
  }, 90_000);
});
