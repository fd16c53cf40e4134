/**
 * The developer dashboard in real Chromium against a real listening server: sign in through the
 * e-mailed link (read from the development log mailer), create a key and see it exactly once,
 * use it on /v1, revoke it, re-enable an auto-disabled webhook, claim an agent profile, refuse
 * a form without its token, keep accounts apart, sign out.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { launchBrowser } from './helpers/browser.js';
import { lastSignInLink } from './helpers/dashboard.js';
import { publishEntity, validBody } from './helpers/entities.js';
import { fakeSpeech } from './helpers/fake-speech.js';

let t: TestApp & { url: string };
let browser: Browser;

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, overrides: fakeSpeech() });
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

/** A link of the dashboard's navigation bar. */
const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true });

const v1 = (key: string) => fetch(`${t.url}/v1/collections`, { headers: { authorization: `Bearer ${key}` } });

/** Signs in as a person would: the form, then the link from the (development) mailbox, in the same browser. */
async function signIn(email: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${t.url}/dashboard`);
  expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send sign-in link' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  // The development mailbox shows the same message the log mailer wrote.
  await page.locator('#dev-mailbox').click();
  const link = lastSignInLink(t, email);
  expect(await page.locator('a.mail-link').getAttribute('href')).toBe(link);
  await page.locator('a.mail-link').click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  expect(await page.locator('#signed-in-as').textContent()).toBe(email);
  return { context, page };
}

describe('dashboard in Chromium', () => {
  it('creates a key shown exactly once, which works on /v1 until it is revoked', async () => {
    const { context, page } = await signIn('dev@example.com');
    await nav(page, 'API keys').click();
    await page.getByLabel(/^Name/).fill('Laptop');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.locator('#new-key').inputValue();
    expect(key).toMatch(/^vn_[A-Za-z0-9_-]{44}$/);
    expect((await v1(key)).status).toBe(200);

    await page.getByRole('link', { name: 'I have copied it' }).click();
    expect(await page.content()).not.toContain(key);
    const row = page.locator(`tr[data-prefix="${key.slice(0, 15)}"]`);
    expect(await row.locator('td').first().textContent()).toBe('Laptop');
    await page.reload();
    expect(await page.content()).not.toContain(key);

    await row.getByRole('link', { name: 'Revoke…' }).click();
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('The key was revoked.').waitFor();
    expect(await row.locator('.badge').textContent()).toBe('Revoked');
    expect((await v1(key)).status).toBe(401);
    await context.close();
  });

  it('re-enables a webhook that was disabled after 10 consecutive failures', async () => {
    const { context, page } = await signIn('hooks@example.com');
    await nav(page, 'API keys').click();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.locator('#new-key').inputValue();
    const created = await fetch(`${t.url}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/receiver', events: ['recording.completed'] }),
    });
    const hook = (await created.json()) as { id: string };
    await t.deps.db.kysely
      .updateTable('webhooks')
      .set({
        status: 'disabled',
        consecutive_failures: 10,
        disabled_reason: 'consecutive_failures',
        disabled_at: new Date().toISOString(),
      })
      .where('id', '=', hook.id)
      .execute();

    await nav(page, 'Overview').click();
    await page.locator('#disabled-webhooks').getByRole('link', { name: 'Review webhooks' }).click();
    const card = page.locator(`article[data-webhook-id="${hook.id}"]`);
    expect(await card.getAttribute('data-status')).toBe('disabled');
    expect(await card.locator('.failures').textContent()).toBe('10');
    expect(await card.locator('.disabled-reason').textContent()).toContain('after 10 consecutive failed delivery attempts');
    await card.getByRole('button', { name: 'Re-enable' }).click();
    await page.getByText('The webhook is enabled again.').waitFor();
    expect(await card.getAttribute('data-status')).toBe('enabled');
    expect(await card.locator('.failures').textContent()).toBe('0');
    const api = await fetch(`${t.url}/v1/webhooks/${hook.id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await api.json()) as { status: string }).status).toBe('enabled');
    await context.close();
  });

  it('claims an agent profile with the receipt token; the profile shows the badge', async () => {
    const { paid } = await publishEntity(t, validBody());
    const { entity, receipt } = paid.json();
    const { context, page } = await signIn('operator@example.com');
    await nav(page, 'Agent profiles').click();
    await page.getByLabel('Profile URL or name in the URL').fill(entity.profile_url);
    await page.getByLabel('Deletion token from the receipt').fill(receipt.deletion_token);
    await page.getByRole('button', { name: 'Claim profile' }).click();
    await page.getByText('The profile is claimed by your account').waitFor();
    await page.locator('#profiles a').first().click();
    expect(new URL(page.url()).pathname).toBe(new URL(entity.profile_url).pathname);
    expect(await page.locator('#claim-badge').textContent()).toBe('Claimed by its publisher');
    await context.close();
  });

  it('refuses a form submitted without its token', async () => {
    const { context, page } = await signIn('csrf@example.com');
    await nav(page, 'API keys').click();
    await page.locator('form[action="/dashboard/api-keys"] input[name="csrf"]').evaluate((input) => input.remove());
    await page.getByLabel(/^Name/).fill('forged');
    const [response] = await Promise.all([
      page.waitForResponse(`${t.url}/dashboard/api-keys`),
      page.getByRole('button', { name: 'Create key' }).click(),
    ]);
    expect(response.status()).toBe(403);
    await page.getByRole('heading', { name: 'Form refused' }).waitFor();
    await page.goto(`${t.url}/dashboard/api-keys`);
    expect(await page.locator('#no-keys').isVisible()).toBe(true);
    await context.close();
  });

  it('keeps accounts apart: another session can neither see nor revoke your key (404)', async () => {
    const owner = await signIn('owner@example.com');
    await nav(owner.page, 'API keys').click();
    await owner.page.getByRole('button', { name: 'Create key' }).click();
    const key = await owner.page.locator('#new-key').inputValue();
    await owner.page.getByRole('link', { name: 'I have copied it' }).click();
    const revokeHref = (await owner.page.getByRole('link', { name: 'Revoke…' }).getAttribute('href')) as string;

    const intruder = await signIn('intruder@example.com');
    await nav(intruder.page, 'API keys').click();
    expect(await intruder.page.content()).not.toContain(key.slice(0, 15));
    const confirm = await intruder.page.goto(`${t.url}${revokeHref}`);
    expect(confirm?.status()).toBe(404);
    // Forge the revoke form on the intruder's own (valid) session: still 404.
    await intruder.page.goto(`${t.url}/dashboard/api-keys`);
    const csrf = (await intruder.page.locator('input[name="csrf"]').first().getAttribute('value')) as string;
    const forged = await intruder.context.request.post(`${t.url}${revokeHref}`, { form: { csrf }, maxRedirects: 0 });
    expect(forged.status()).toBe(404);
    expect((await v1(key)).status).toBe(200);
    await owner.context.close();
    await intruder.context.close();
  });

  it('signs out', async () => {
    const { context, page } = await signIn('leaving@example.com');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByText('You are signed out.').waitFor();
    expect((await context.cookies()).some((c) => c.name === 'vn_session')).toBe(false);
    await page.goto(`${t.url}/dashboard/api-keys`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await context.close();
  });
});
