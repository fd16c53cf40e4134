/**
 * The dashboard's "Recover failed messages" form on a webhook's page: the form (windows, the
 * custom range labelled UTC without a script, its script and form token), what a window and a
 * custom range queue (read at the browser's offset when the script sent one, else as UTC), the
 * confirmation stating the range in UTC, the roles that may use it (owners and admins), its
 * audit entry, bad ranges refused on the form, and another organisation's webhook answering 404.
 * The recovery itself (order, webhook-ids, once each) is proven in webhooks-recover.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, inviteAndJoin, post, signIn } from './helpers/dashboard.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, deliverDue, dispatchDue, recordingData, recordTestEvent } from './helpers/webhooks.js';

let t: TestApp;
let receiver: Receiver;
let owner: Browserish & { csrf: string };
let admin: Browserish & { csrf: string };
let viewer: Browserish & { csrf: string };
let stranger: Browserish & { csrf: string };
const OWNER = 'owner-recover@example.com';

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '2000' } });
  receiver = await startReceiver(() => ({ status: 500 }));
  owner = await signIn(t, OWNER, '203.0.113.1');
  admin = await inviteAndJoin(t, owner, 'admin-recover@example.com', 'admin', '203.0.113.2');
  viewer = await inviteAndJoin(t, owner, 'viewer-recover@example.com', 'viewer', '203.0.113.3');
  stranger = await signIn(t, 'stranger-recover@example.com', '203.0.113.4');
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});

/** `2026-11-20T08:00:00` as a datetime-local field sends it: UTC, no zone. */
const field = (at: Date) => at.toISOString().slice(0, 19);

async function webhookWithFailedMessages(count: number) {
  const res = await post(t, owner, '/dashboard/webhooks', {
    csrf: owner.csrf,
    url: `${receiver.url}/hook`,
    events: 'recording.completed',
    description: '',
  });
  expect(res.statusCode).toBe(201);
  const id = /href="\/dashboard\/webhooks\/(wh_[0-9a-f]{32})"/.exec(res.body)![1]!;
  const accountId = await accountIdOf(t, OWNER);
  for (let i = 0; i < count; i++) await recordTestEvent(t, accountId, 'recording.completed', recordingData(i));
  await dispatchDue(t);
  while ((await deliverDue(t.deps)) > 0);
  // All automatic attempts used (the API test walks the whole schedule; here only the form is under test).
  await t.deps.db.kysely
    .updateTable('webhook_deliveries')
    .set({ status: 'failed', next_attempt_at: null })
    .where('webhook_id', '=', id)
    .execute();
  return id;
}

const HOUR = 3600e3;

/** The webhook's messages, oldest first. */
const messages = async (id: string) =>
  t.deps.db.kysely
    .selectFrom('webhook_deliveries')
    .select(['id', 'status'])
    .where('webhook_id', '=', id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
const statuses = async (id: string) => (await messages(id)).map((r) => r.status);

/** Three failed messages, created `hoursAgo` (one each, oldest first). */
async function webhookWithMessagesAt(hoursAgo: [number, number, number]) {
  const id = await webhookWithFailedMessages(3);
  const rows = await messages(id);
  const now = Date.now();
  for (const [i, row] of rows.entries()) {
    const createdAt = new Date(now - hoursAgo[i]! * HOUR).toISOString();
    await t.deps.db.kysely.updateTable('webhook_deliveries').set({ created_at: createdAt }).where('id', '=', row.id).execute();
  }
  return id;
}

/** The times a confirmation states: `2026-11-20 08:00:00 UTC`. */
const utcText = (at: Date) => `${at.toISOString().slice(0, 10)} ${at.toISOString().slice(11, 19)} UTC`;

describe('recovering failed messages from the dashboard', () => {
  it('offers the windows (24 hours chosen), a custom range labelled UTC, and its script; queues the failed messages of the window', async () => {
    const id = await webhookWithFailedMessages(3);
    const res = await get(t, owner, `/dashboard/webhooks/${id}`);
    const page = res.body;
    expect(page).toContain('Recover failed messages');
    expect(page).toMatch(
      /<form method="post" action="\/dashboard\/webhooks\/wh_[0-9a-f]{32}\/recover"[^>]*><input type="hidden" name="csrf"/,
    );
    for (const label of [
      'the last hour',
      'the last 6 hours',
      'the last 24 hours',
      'the last 3 days',
      'the last 7 days',
      'the last 30 days',
      'a custom range',
    ]) {
      expect(page).toContain(`> <span>${label}</span></label>`);
    }
    expect(page).toContain('<input type="radio" name="window" value="24h" id="recover-window-24h" checked>');
    expect(page).toContain('<label for="recover-since">From <span data-zone="">(UTC)</span></label>');
    expect(page).toContain('type="datetime-local" id="recover-since" name="since"');
    expect(page).toContain('<input type="hidden" name="since_offset" id="recover-since-offset" value="">');
    expect(page).toContain('Times are UTC');
    expect(page).toMatch(/<script src="\/assets\/recover-range\.[0-9a-f]{10}\.js" defer><\/script>/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");

    const before = Date.now();
    const sent = await post(t, owner, `/dashboard/webhooks/${id}/recover`, { csrf: owner.csrf, window: '24h' });
    expect(sent.statusCode).toBe(303);
    const location = new URL(sent.headers.location as string, 'http://x');
    expect(location.pathname).toBe(`/dashboard/webhooks/${id}`);
    expect(location.searchParams.get('notice')).toBe('recovered');
    const [since, until] = [new Date(location.searchParams.get('since')!), new Date(location.searchParams.get('until')!)];
    expect(until.getTime() - since.getTime()).toBe(24 * HOUR);
    expect(until.getTime()).toBeGreaterThanOrEqual(before);
    expect(await statuses(id)).toEqual(['pending', 'pending', 'pending']);
    const flash = (await get(t, owner, sent.headers.location as string)).body;
    expect(flash).toContain(`The failed messages created from ${utcText(since)} to ${utcText(until)} are queued again`);

    // Again while they are pending: nothing more is queued.
    const again = await post(t, owner, `/dashboard/webhooks/${id}/recover`, { csrf: owner.csrf, window: '24h' });
    expect(new URL(again.headers.location as string, 'http://x').searchParams.get('notice')).toBe('recovered-none');
    expect((await get(t, owner, again.headers.location as string)).body).toContain('No failed messages created from');

    const audit = await t.deps.db.kysely
      .selectFrom('audit_log')
      .select(['action', 'object_id'])
      .where('action', '=', 'webhook.messages_recovered')
      .where('object_id', '=', id)
      .execute();
    expect(audit).toEqual([
      { action: 'webhook.messages_recovered', object_id: id },
      { action: 'webhook.messages_recovered', object_id: id },
    ]);
  });

  it('"the last hour" queues exactly the failed messages of that hour, not older ones', async () => {
    const id = await webhookWithMessagesAt([5, 1.5, 0.25]);
    const res = await post(t, owner, `/dashboard/webhooks/${id}/recover`, { csrf: owner.csrf, window: '1h' });
    expect(res.statusCode).toBe(303);
    expect(await statuses(id)).toEqual(['failed', 'failed', 'pending']);
  });

  it('takes "the last 30 days", the whole kept history', async () => {
    const id = await webhookWithMessagesAt([29 * 24, 24 * 7, 1]);
    const res = await post(t, owner, `/dashboard/webhooks/${id}/recover`, { csrf: owner.csrf, window: '30d' });
    expect(res.statusCode).toBe(303);
    expect(await statuses(id)).toEqual(['pending', 'pending', 'pending']);
  });

  it('reads a custom range at the offset the page’s script sent (+660 minutes: UTC+11), and as UTC without one', async () => {
    const now = Date.now();
    // The same two typed times name different instants in Sydney (UTC+11) and in UTC.
    const typedSince = field(new Date(now - 12 * HOUR));
    const typedUntil = field(new Date(now - 5 * HOUR));
    const range = { since: typedSince, until: typedUntil };

    // At UTC+11 the range is 23 to 16 hours ago: only the message of 20 hours ago.
    const sydney = await webhookWithMessagesAt([20, 10, 2]);
    const zoned = await post(t, owner, `/dashboard/webhooks/${sydney}/recover`, {
      csrf: owner.csrf,
      window: 'custom',
      ...range,
      since_offset: '660',
      until_offset: '660',
    });
    expect(zoned.statusCode).toBe(303);
    expect(await statuses(sydney)).toEqual(['pending', 'failed', 'failed']);
    const stated = new URL(zoned.headers.location as string, 'http://x').searchParams;
    expect(stated.get('since')).toBe(new Date(Date.parse(`${typedSince}Z`) - 11 * HOUR).toISOString());
    expect(stated.get('until')).toBe(new Date(Date.parse(`${typedUntil}Z`) - 11 * HOUR).toISOString());

    // As UTC the range is 12 to 5 hours ago: only the message of 10 hours ago.
    const utc = await webhookWithMessagesAt([20, 10, 2]);
    const plain = await post(t, owner, `/dashboard/webhooks/${utc}/recover`, { csrf: owner.csrf, window: 'custom', ...range });
    expect(plain.statusCode).toBe(303);
    expect(await statuses(utc)).toEqual(['failed', 'pending', 'failed']);
    expect(new URL(plain.headers.location as string, 'http://x').searchParams.get('since')).toBe(`${typedSince}.000Z`);
  });

  it('lets admins recover, not viewers; needs the form token', async () => {
    const id = await webhookWithFailedMessages(1);
    const since = field(new Date(Date.now() - HOUR));
    const refused = await post(t, viewer, `/dashboard/webhooks/${id}/recover`, { csrf: viewer.csrf, window: '1h' });
    expect(refused.statusCode).toBe(403);
    const tokenless = await post(t, admin, `/dashboard/webhooks/${id}/recover`, { window: '1h' });
    expect(tokenless.statusCode).toBe(403);
    expect(await statuses(id)).toEqual(['failed']);
    // A form sent before the windows existed (no window field) is a custom range.
    const res = await post(t, admin, `/dashboard/webhooks/${id}/recover`, { csrf: admin.csrf, since });
    expect(new URL(res.headers.location as string, 'http://x').searchParams.get('notice')).toBe('recovered');
    expect(await statuses(id)).toEqual(['pending']);
  });

  it('refuses a bad range on the form with the reason next to the field, and leaves the messages alone; another organisation’s webhook is 404', async () => {
    const id = await webhookWithFailedMessages(1);
    const now = Date.now();
    const refusals: [Record<string, string>, string, string][] = [
      [{ window: 'custom', since: '' }, 'recover-since-error', 'Choose the start of the range.'],
      [{ window: 'custom', since: 'yesterday' }, 'recover-since-error', 'Enter the start as a date and time.'],
      [
        { window: 'custom', since: field(new Date(now - HOUR)), since_offset: '9999' },
        'recover-since-error',
        'Enter the start as a date and time.',
      ],
      [
        { window: 'custom', since: field(new Date(now - HOUR)), until: 'soon' },
        'recover-until-error',
        'Enter the end as a date and time',
      ],
      [
        { window: 'custom', since: field(new Date(now - 60e3)), until: field(new Date(now - HOUR)) },
        'recover-until-error',
        'The end must be after the start',
      ],
      [
        { window: 'custom', since: field(new Date(now - 40 * 24 * HOUR)) },
        'recover-since-error',
        'Messages are kept for 30 days: choose a start after ',
      ],
      [{ window: '90d' }, 'recover-error', 'Choose one of the time windows, or a custom range.'],
    ];
    for (const [fields, errorId, message] of refusals) {
      const res = await post(t, owner, `/dashboard/webhooks/${id}/recover`, { csrf: owner.csrf, ...fields });
      expect(res.statusCode, JSON.stringify(fields)).toBe(400);
      expect(res.body).toContain(`id="${errorId}"${errorId === 'recover-error' ? ' role="alert"' : ''}>${message}`);
      if (fields.window === 'custom') expect(res.body).toContain('id="recover-window-custom" checked');
      if (fields.since) expect(res.body).toContain(`name="since" step="1" value="${fields.since}"`);
    }
    expect(await statuses(id)).toEqual(['failed']);
    const other = await post(t, stranger, `/dashboard/webhooks/${id}/recover`, { csrf: stranger.csrf, window: '1h' });
    expect(other.statusCode).toBe(404);
    expect(await statuses(id)).toEqual(['failed']);
  });
});
