/**
 * SAML 2.0 single sign-on in real Chromium against the test IdP (tests/helpers/saml-idp.ts): an
 * owner sets up the IdP on the single sign-on page (axe on desktop and at 390 px), and a person of
 * the verified domain signs in: the sign-in page hands the browser to the IdP (HTTP-Redirect),
 * whose page posts the signed response to the ACS by itself. The IdP is reached as `localhost`
 * and the app as 127.0.0.1, two sites, so that post is cross-site as in production: the sign-in
 * completes through the same-site step that checks the browser's sign-in cookie.
 *
 * The domain's DNS TXT proof is read from a resolver the test passes, since no DNS can be
 * published here; WEBHOOK_ALLOW_PRIVATE_URLS lets the IdP's SSO URL be http:// on loopback.
 */
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSsoDomains, verifySsoDomain } from '../src/features/sso/domain-service.js';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';

import { startSamlIdp, type TestSamlIdp } from './helpers/saml-idp.js';

let t: TestApp & { url: string };
let idp: TestSamlIdp;
let browser: Browser;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const OWNER = 'owner@saml-university.test';
const ADA = 'ada@saml-university.test';

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
  idp = await startSamlIdp({
    acsUrl: `${t.url}/dashboard/sso/saml/acs`,
    spEntityId: `${t.url}/dashboard/sso/saml/metadata`,
    host: 'localhost',
  });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await idp?.close();
  await t?.close();
});

async function ownerPage(email: string): Promise<Page> {
  const page = await (await browser.newContext({ viewport: DESKTOP })).newPage();
  await signInByLink(page, t, email);
  return page;
}

describe('SAML single sign-on in Chromium', () => {
  it('is set up by an owner and signs a new member in through the IdP with the mapped role', async () => {
    const owner = await ownerPage(OWNER);
    await owner.goto(`${t.url}/dashboard/sso`);
    expect(await owner.locator('#saml-sp-entity-id').inputValue()).toBe(`${t.url}/dashboard/sso/saml/metadata`);
    expect(await owner.locator('#saml-sp-acs').inputValue()).toBe(`${t.url}/dashboard/sso/saml/acs`);
    await owner.getByLabel('IdP entity id (issuer)').fill(idp.entityId);
    await owner.getByLabel('IdP single sign-on URL').fill(idp.ssoUrl);
    await owner.getByLabel('IdP signing certificate (PEM)').fill(idp.certificate);
    await owner.getByLabel(/^E-mail attribute/).fill('email');
    await owner.getByLabel('Group attribute').fill('groups');
    await owner.getByLabel(/SAML groups and roles/).fill('staff-admins = admin\nlibrary = viewer');
    await owner.getByRole('button', { name: 'Use SAML single sign-on' }).click();
    await owner.getByText('Single sign-on is saved.').waitFor();
    await owner.getByLabel('Domain', { exact: true }).fill('saml-university.test');
    await owner.getByRole('button', { name: 'Add domain' }).click();
    await owner.getByText('The domain is added.').waitFor();
    const accountId = (
      await t.deps.db.kysely.selectFrom('accounts').select('id').where('email', '=', OWNER).executeTakeFirstOrThrow()
    ).id;
    const [domain] = await listSsoDomains(t.deps, accountId);
    await verifySsoDomain(t.deps, accountId, domain!.id, { resolveTxt: async () => [[domain!.token]] });
    await owner.reload();
    await owner.locator('#sso-protocol').getByText('SAML 2.0').waitFor();
    await expectNoSeriousAxeViolations(owner);
    await owner.setViewportSize(PHONE);
    await expectNoSeriousAxeViolations(owner);
    expect(await owner.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);

    idp.nextLogin = { email: ADA, groups: ['staff-admins'] };
    const ada = await (await browser.newContext({ viewport: PHONE })).newPage();
    const acsPosts: Request[] = [];
    ada.on('request', (request) => {
      if (request.url().endsWith('/dashboard/sso/saml/acs')) acsPosts.push(request);
    });
    await ada.goto(`${t.url}/dashboard/sign-in`);
    await ada.getByLabel('E-mail address').fill(ADA);
    await ada.getByRole('button', { name: 'Send sign-in link' }).click();
    await ada.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await ada.locator('#signed-in-as').textContent()).toBe(ADA);
    expect(await ada.locator('#organisation').textContent()).toBe(`${OWNER} · admin`);
    expect(idp.requests).toHaveLength(1);
    // The IdP's post reached the ACS without the sign-in cookie: the browser treated it as cross-site.
    expect(acsPosts).toHaveLength(1);
    expect((await acsPosts[0]!.allHeaders()).cookie ?? '').not.toContain('vn_signin');
  });
});
