/**
 * Single sign-on in real Chromium against a real OpenID provider (`oidc-provider`, certified)
 * started on 127.0.0.1: an owner sets up the provider and a domain in the dashboard (axe on
 * desktop and at 390 px), a person of that domain signs in through the provider's own login and
 * consent pages and joins with the role their group maps to, their role follows a changed group
 * claim at the next sign-in, and "SSO required" turns the e-mailed link away.
 *
 * The provider runs over http on loopback, so the app runs with WEBHOOK_ALLOW_PRIVATE_URLS (the
 * development switch of the SSRF-safe client); the domain's DNS TXT proof is read from a resolver
 * the test passes, since no DNS can be published here.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSsoDomains, verifySsoDomain } from '../src/features/sso/domain-service.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';

import { startOidcProvider, type TestProvider } from './helpers/oidc-provider.js';

let t: TestApp & { url: string };
let idp: TestProvider;
let browser: Browser;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const OWNER = 'owner@university.test';
const ADA = 'ada@university.test';

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  idp = await startOidcProvider({ redirectUri: `${t.url}/dashboard/sso/callback` });
  idp.accounts.set(ADA, { email: ADA, email_verified: true, name: 'Ada Lovelace', groups: ['staff-admins'] });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await idp?.close();
  await t?.close();
});

async function ownerPage(email: string, viewport = DESKTOP): Promise<Page> {
  const page = await (await browser.newContext({ viewport })).newPage();
  await signInByLink(page, t, email);
  return page;
}

/** Signs in through the provider's login and consent pages; returns the page on the dashboard. */
async function signInWithSso(email: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: PHONE })).newPage();
  await page.goto(`${t.url}/dashboard/sign-in`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send sign-in link' }).click();
  await page.waitForURL((url) => url.origin === idp.issuer);
  await page.locator('input[name="login"]').fill(email);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return page;
}

describe('single sign-on in Chromium', () => {
  it('is set up by an owner, signs a new member in with the mapped role, follows a changed group, and SSO required refuses the link', async () => {
    const owner = await ownerPage(OWNER);
    await owner.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members', exact: true }).click();
    await owner.getByRole('link', { name: 'Set up single sign-on' }).click();
    expect(await owner.locator('#sso-redirect-uri').inputValue()).toBe(`${t.url}/dashboard/sso/callback`);
    await expectNoSeriousAxeViolations(owner);
    await owner.getByLabel('Issuer URL').fill(idp.issuer);
    await owner.getByLabel('Client id').fill(idp.clientId);
    await owner.getByLabel('Client secret').fill(idp.clientSecret);
    await owner.getByLabel(/Groups and roles/).fill('staff-admins = admin\nlibrary = viewer');
    await owner.getByLabel('Role of members in no mapped group').selectOption('viewer');
    await owner.getByRole('button', { name: 'Set up single sign-on' }).click();
    await owner.getByText('Single sign-on is saved.').waitFor();
    expect(await owner.content()).not.toContain(idp.clientSecret);
    await owner.getByLabel('Domain', { exact: true }).fill('university.test');
    await owner.getByRole('button', { name: 'Add domain' }).click();
    await owner.getByText('The domain is added.').waitFor();
    const accountId = (
      await t.deps.db.kysely.selectFrom('accounts').select('id').where('email', '=', OWNER).executeTakeFirstOrThrow()
    ).id;
    const [domain] = await listSsoDomains(t.deps, accountId);
    await verifySsoDomain(t.deps, accountId, domain!.id, { resolveTxt: async () => [[domain!.token]] });
    await owner.reload();
    await owner.locator('tr[data-domain="university.test"]').getByText('Verified').waitFor();
    await expectNoSeriousAxeViolations(owner);
    await owner.setViewportSize(PHONE);
    await expectNoSeriousAxeViolations(owner);
    expect(await owner.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

    const ada = await signInWithSso(ADA);
    expect(await ada.locator('#signed-in-as').textContent()).toBe(ADA);
    expect(await ada.locator('#organisation').textContent()).toBe(`${OWNER} · admin`);

    idp.accounts.set(ADA, { email: ADA, email_verified: true, name: 'Ada Lovelace', groups: ['library'] });
    const again = await signInWithSso(ADA);
    expect(await again.locator('#organisation').textContent()).toBe(`${OWNER} · viewer`);

    await owner.getByLabel(/Require single sign-on/).check();
    await owner.getByRole('button', { name: 'Save single sign-on' }).click();
    await owner.getByText('Single sign-on is saved.').waitFor();
    const link = await (await browser.newContext({ viewport: PHONE })).newPage();
    await link.goto(`${t.url}/dashboard/sign-in?link=1`);
    await link.getByLabel('E-mail address').fill(ADA);
    await link.getByRole('button', { name: 'Send sign-in link' }).click();
    await link.getByText('Your organisation requires single sign-on').waitFor();
    expect(t.deps.mailer.lastMessageTo(ADA)).toBeUndefined();

    // A callback this browser did not start is refused with a page that says why and leads back.
    await link.goto(`${t.url}/dashboard/sso/callback?code=forged&state=not-ours`);
    await link.getByRole('heading', { name: 'Single sign-on refused' }).waitFor();
    await expectNoSeriousAxeViolations(link);
    await link.getByRole('link', { name: 'Back to sign-in' }).click();
    await link.getByRole('heading', { name: 'Sign in to the developer dashboard' }).waitFor();
  });
});
