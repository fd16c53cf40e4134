/**
 * The dashboard's "Recover failed messages" form on a webhook's page: the form (UTC stated, form
 * token), what it queues, the roles that may use it (owners and admins), its audit entry, bad
 * ranges answered with a notice, and another organisation's webhook answering 404.
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

const statuses = async (id: string) =>
  (await t.deps.db.kysely.selectFrom('webhook_deliveries').select('status').where('webhook_id', '=', id).execute()).map(
    (r) => r.status,
  );

describe('recovering failed messages from the dashboard', () => {
  it('shows the form with its time zone and form token, and queues the failed messages of the range', async () => {
    const id = await webhookWithFailedMessages(3);
    const page = (await get(t, owner, `/dashboard/webhooks/${id}`)).body;
    expect(page).toContain('Recover failed messages');
    expect(page).toMatch(
      /<form method="post" action="\/dashboard\/webhooks\/wh_[0-9a-f]{32}\/recover"[^>]*><input type="hidden" name="csrf"/,
    );
    expect(page).toContain('type="datetime-local" id="recover-since" name="since" required');
    expect(page).toContain('Times are UTC');

    const since = field(new Date(Date.now() - 3600e3));
    const res = await post(t, owner, `/dashboard/webhooks/${id}/recover`, { csrf: owner.csrf, since });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/webhooks/${id}?notice=recovered`);
    expect(await statuses(id)).toEqual(['pending', 'pending', 'pending']);
    expect((await get(t, owner, res.headers.location as string)).body).toContain('are queued again');

    // Again while they are pending: nothing more is queued.
    const again = await post(t, owner, `/dashboard/webhooks/${id}/recover`, { csrf: owner.csrf, since });
    expect(again.headers.location).toBe(`/dashboard/webhooks/${id}?notice=recovered-none`);

    const audit = await t.deps.db.kysely
      .selectFrom('audit_log')
      .select(['action', 'object_id'])
      .where('action', '=', 'webhook.messages_recovered')
      .execute();
    expect(audit).toEqual([
      { action: 'webhook.messages_recovered', object_id: id },
      { action: 'webhook.messages_recovered', object_id: id },
    ]);
  });

  it('lets admins recover, not viewers; needs the form token', async () => {
    const id = await webhookWithFailedMessages(1);
    const since = field(new Date(Date.now() - 3600e3));
    const refused = await post(t, viewer, `/dashboard/webhooks/${id}/recover`, { csrf: viewer.csrf, since });
    expect(refused.statusCode).toBe(403);
    const tokenless = await post(t, admin, `/dashboard/webhooks/${id}/recover`, { since });
    expect(tokenless.statusCode).toBe(403);
    expect(await statuses(id)).toEqual(['failed']);
    const res = await post(t, admin, `/dashboard/webhooks/${id}/recover`, { csrf: admin.csrf, since });
    expect(res.headers.location).toBe(`/dashboard/webhooks/${id}?notice=recovered`);
    expect(await statuses(id)).toEqual(['pending']);
  });

  it('answers a bad range with a notice and leaves the messages alone; another organisation’s webhook is 404', async () => {
    const id = await webhookWithFailedMessages(1);
    const now = Date.now();
    const ranges: Record<string, string>[] = [
      { since: '' },
      { since: 'yesterday' },
      { since: field(new Date(now - 60e3)), until: field(new Date(now - 3600e3)) },
      { since: field(new Date(now - 40 * 86_400_000)) },
      { since: field(new Date(now - 3600e3)), until: 'soon' },
    ];
    for (const fields of ranges) {
      const res = await post(t, owner, `/dashboard/webhooks/${id}/recover`, { csrf: owner.csrf, ...fields });
      expect(res.statusCode, JSON.stringify(fields)).toBe(303);
      expect(res.headers.location).toBe(`/dashboard/webhooks/${id}?notice=recover-invalid`);
    }
    expect(await statuses(id)).toEqual(['failed']);
    const other = await post(t, stranger, `/dashboard/webhooks/${id}/recover`, {
      csrf: stranger.csrf,
      since: field(new Date(now - 3600e3)),
    });
    expect(other.statusCode).toBe(404);
    expect(await statuses(id)).toEqual(['failed']);
  });
});
