/**
 * The webhook page's "Recover failed messages" form in real Chromium, on a 390 px phone and a
 * desktop, in a browser at UTC+11: the page's script relabels the custom range as the browser's
 * time, a start typed in that time queues the failed message and the confirmation states the
 * range in UTC; a window ("the last hour") is one click; no serious axe finding and nothing to
 * scroll sideways.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestApp } from './helpers/app.js';
import { expectNoSeriousAxeViolations } from './helpers/axe.js';
import { launchBrowser, signInByLink } from './helpers/browser.js';

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
  await signInByLink(page, t, email);
}

describe('recovering failed messages in the dashboard', () => {
  it.each([
    ['a 390 px phone', { width: 390, height: 844 }],
    ['a desktop', { width: 1280, height: 800 }],
  ])(
    'on %s: types the start in the browser’s time, queues the failed messages, no serious axe finding',
    async (what, viewport) => {
      const context = await browser.newContext({ viewport, locale: 'en-GB', timezoneId: 'Pacific/Noumea' });
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

        // Noumea is UTC+11 all year (no daylight saving), so the label is fixed.
        await page.getByLabel('From (your time, UTC+11:00)').waitFor();
        await page.getByText('Times are your time (UTC+11:00)').waitFor();
        const since = new Date(Date.now() - 3600e3);
        const typed = new Date(since.getTime() + 11 * 3600e3).toISOString().slice(0, 19);
        await page.getByLabel('From (your time, UTC+11:00)').fill(typed);
        expect(await page.getByRole('radio', { name: 'a custom range' }).isChecked()).toBe(true);
        await page.getByRole('button', { name: 'Recover failed messages' }).click();
        await page.getByText('are queued again').waitFor();
        const stated = `${since.toISOString().slice(0, 10)} ${since.toISOString().slice(11, 19)} UTC`;
        await page.getByText(`The failed messages created from ${stated} to `).waitFor();
        const rows = await t.deps.db.kysely
          .selectFrom('webhook_deliveries')
          .select('status')
          .where('webhook_id', '=', webhookId)
          .execute();
        expect(rows.map((r) => r.status)).toEqual(['pending']);
        await expectNoSeriousAxeViolations(page);

        // A window: one click, and the message queued above is not queued twice.
        await page.getByRole('radio', { name: 'the last hour' }).check();
        await page.getByRole('button', { name: 'Recover failed messages' }).click();
        await page.getByText('No failed messages created from').waitFor();
        await expectNoSeriousAxeViolations(page);
      } finally {
        await context.close();
      }
    },
  );
});
