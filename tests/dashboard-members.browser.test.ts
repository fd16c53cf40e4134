/**
 * Members in real Chromium: an owner invites someone with the form, the invitee follows the
 * mailed link on a 390 px phone and joins, the owner changes their role; the members, audit and
 * organisation pages fit a 390 px screen without sideways scrolling.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';
import { lastInvitationLink } from './helpers/dashboard.js';

let t: TestApp & { url: string };
let browser: Browser;
const PHONE = { width: 390, height: 844 };

beforeAll(async () => {
  t = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

async function signIn(email: string, viewport = PHONE): Promise<Page> {
  const page = await (await browser.newContext({ viewport })).newPage();
  await signInByLink(page, t, email);
  return page;
}

const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('members in Chromium', () => {
  it('invites, joins from the mailed link on a phone, changes the role; pages fit 390 px', async () => {
    const owner = await signIn('owner@example.com');
    await owner.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Members', exact: true }).click();
    await owner.getByLabel('E-mail address').fill('new.colleague.with.a.long.address@example.com');
    await owner.getByLabel('Role', { exact: true }).selectOption('viewer');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    await owner.getByText('The invitation is on its way.').waitFor();
    expect(await owner.locator('tr[data-invitation="new.colleague.with.a.long.address@example.com"]').count()).toBe(1);
    expect(await noSidewaysScroll(owner)).toBe(true);

    const invitee = await (await browser.newContext({ viewport: PHONE })).newPage();
    await invitee.goto(lastInvitationLink(t, 'new.colleague.with.a.long.address@example.com'));
    await invitee.getByRole('heading', { name: 'Join owner@example.com?' }).waitFor();
    expect(await noSidewaysScroll(invitee)).toBe(true);
    await invitee.getByRole('button', { name: /Join and sign in/ }).click();
    await invitee.getByRole('heading', { name: 'Overview' }).waitFor();
    expect(await invitee.locator('#organisation').textContent()).toBe('owner@example.com · viewer');
    expect(await invitee.locator('#viewer-note').isVisible()).toBe(true);
    expect(await noSidewaysScroll(invitee)).toBe(true);

    await owner.reload();
    await owner.getByLabel('Role of new.colleague.with.a.long.address@example.com').selectOption('admin');
    await owner
      .locator('tr[data-member="new.colleague.with.a.long.address@example.com"]')
      .getByRole('button', { name: 'Change role' })
      .click();
    await owner.getByText('The role is changed.').waitFor();
    await invitee.reload();
    expect(await invitee.locator('#organisation').textContent()).toBe('owner@example.com · admin');

    await owner.goto(`${t.url}/dashboard/audit`);
    expect(await owner.locator('tr[data-action="member.role_changed"]').count()).toBe(1);
    expect(await owner.locator('tr[data-action="member.invited"]').count()).toBe(1);
    expect(await noSidewaysScroll(owner)).toBe(true);
    await owner.goto(`${t.url}/dashboard/organisations`);
    expect(await noSidewaysScroll(owner)).toBe(true);
  });

  it('renames the organisation from the members page; a refused name is shown at the field; axe finds nothing serious', async () => {
    const owner = await signIn('renamer@example.com');
    await owner.goto(`${t.url}/dashboard/members`);
    const name = owner.getByLabel('Name', { exact: true });
    await name.fill('Tab\there');
    await owner.getByRole('button', { name: 'Rename', exact: true }).click();
    await owner.locator('#organisation-name-error').waitFor();
    expect(await owner.locator('#organisation-name-error').textContent()).toContain('cannot contain control characters');
    expect(await noSidewaysScroll(owner)).toBe(true);
    await expectNoSeriousAxeViolations(owner);

    await name.fill('Riverside University Registry');
    await owner.getByRole('button', { name: 'Rename', exact: true }).click();
    await owner.getByText('The organisation is renamed.').waitFor();
    expect(await owner.locator('#organisation').textContent()).toBe('Riverside University Registry · owner');
    await expectNoSeriousAxeViolations(owner);
    await owner.goto(`${t.url}/dashboard/organisations`);
    expect(await owner.locator('#organisations strong').textContent()).toBe('Riverside University Registry');
    expect(await noSidewaysScroll(owner)).toBe(true);
  });
});
