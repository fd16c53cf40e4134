/**
 * The webhook page's "Recover failed messages" form in real Chromium, on a 390 px phone and a
 * desktop: the time picker (datetime-local, labelled as UTC) filled and sent queues the failed
 * messages; no serious axe finding and nothing to scroll sideways.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser } from './helpers/browser.js';
import { lastSignInLink } from './helpers/dashboard.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, deliverDue, dispatchDue, recordTestEvent } from './helpers/webhooks.js';

let t: TestApp & { url: string };
let browser: Browser;
let receiver: Receiver;

beforeAll(async () => {
  t = await startTestServer({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '2000' } });
  receiver = await startReceiver(() => ({ status: 500 }));
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
  await t?.close();
});

async function signIn(page: Page, email: string) {
  await page.goto(`${t.url}/dashboard`);
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'Send sign-in link' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  await page.goto(lastSignInLink(t, email));
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
}

describe('recovering failed messages in the dashboard', () => {
  it.each([
    ['a 390 px phone', { width: 390, height: 844 }],
    ['a desktop', { width: 1280, height: 800 }],
  ])('on %s: picks the start time, queues the failed messages, no serious axe finding', async (what, viewport) => {
    const context = await browser.newContext({ viewport, locale: 'en-GB' });
    try {
      const page = await context.newPage();
      const email = `recover-${viewport.width}@example.com`;
      await signIn(page, email);
      await page.goto(`${t.url}/dashboard/webhooks/new`);
      await page.getByLabel(/^Receiver URL/).fill(`${receiver.url}/hook`);
      await page.getByRole('button', { name: 'Add webhook' }).click();
      await page.getByRole('link', { name: 'I have copied it' }).click();
      const webhookId = /\/dashboard\/webhooks\/(wh_[0-9a-f]{32})/.exec(page.url())?.[1] ?? '';
      expect(webhookId, what).toMatch(/^wh_/);

      await recordTestEvent(t, await accountIdOf(t, email));
      await dispatchDue(t);
      while ((await deliverDue(t.deps)) > 0);
      await t.deps.db.kysely
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', next_attempt_at: null })
        .where('webhook_id', '=', webhookId)
        .execute();

      await page.reload();
      await page.getByRole('heading', { name: 'Recover failed messages' }).waitFor();
      await expectNoSeriousAxeViolations(page);
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      expect(scrollWidth).toBeLessThanOrEqual(clientWidth);

      await page.getByLabel('From (UTC)').fill(new Date(Date.now() - 3600e3).toISOString().slice(0, 19));
      await page.getByRole('button', { name: 'Recover failed messages' }).click();
      await page.getByText('are queued again').waitFor();
      const rows = await t.deps.db.kysely
        .selectFrom('webhook_deliveries')
        .select('status')
        .where('webhook_id', '=', webhookId)
        .execute();
      expect(rows.map((r) => r.status)).toEqual(['pending']);
      await expectNoSeriousAxeViolations(page);
    } finally {
      await context.close();
    }
  });
});
