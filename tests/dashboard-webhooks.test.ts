/**
 * The dashboard's webhook forms through the real app and a real local receiver: register (the
 * secret shown once), edit, delete, test event, secret rotation (the new secret signs the next
 * delivery), the delivery log (bodies escaped, truncation said), replay of a message, form refusals with
 * the input kept, form tokens, and other accounts' webhooks answering 404.
 */
import { createHmac } from 'node:crypto';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { type Browserish, get, post, signIn } from './helpers/dashboard.js';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, deliverDue, dispatchDue, recordTestEvent } from './helpers/webhooks.js';

let t: TestApp;
let receiver: Receiver;
let alice: Browserish & { csrf: string };
let mallory: Browserish & { csrf: string };
const ALICE = 'alice@example.com';

beforeAll(async () => {
  t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '2000' } });
  receiver = await startReceiver();
  alice = await signIn(t, ALICE, '203.0.113.1');
  mallory = await signIn(t, 'mallory@example.com', '203.0.113.2');
});
afterAll(async () => {
  await receiver?.close();
  await t?.close();
});
beforeEach(() => {
  receiver.requests.length = 0;
  receiver.respond = () => ({ status: 200 });
});

const secretOf = (page: string) => /id="webhook-secret" class="secret" readonly value="(whsec_[A-Za-z0-9+/=]+)"/.exec(page)?.[1];
const idOf = (page: string) => /href="\/dashboard\/webhooks\/(wh_[0-9a-f]{32})"/.exec(page)?.[1];
const hmacHex = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');
const row = (id: string) => t.deps.db.kysely.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();

async function addWebhook(
  fields: Partial<Record<'url' | 'description' | 'kind' | 'payload', string>> & { events?: string[] } = {},
) {
  const form = new URLSearchParams({
    csrf: alice.csrf,
    url: fields.url ?? `${receiver.url}/hook`,
    description: fields.description ?? '',
    ...(fields.kind === undefined ? {} : { kind: fields.kind }),
    ...(fields.payload === undefined ? {} : { payload: fields.payload }),
  });
  for (const kind of fields.events ?? ['recording.completed']) form.append('events', kind);
  return t.app.inject({
    method: 'POST',
    url: '/dashboard/webhooks',
    remoteAddress: alice.ip,
    headers: { cookie: `vn_session=${alice.cookies.get('vn_session')}`, 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
}

async function newWebhook(fields: Parameters<typeof addWebhook>[0] = {}) {
  const res = await addWebhook(fields);
  expect(res.statusCode).toBe(201);
  return { id: idOf(res.body) as string, secret: secretOf(res.body) as string, page: res.body };
}

describe('registering a webhook', () => {
  it('offers the form with the event kinds as checkboxes', async () => {
    const form = await get(t, alice, '/dashboard/webhooks/new');
    expect(form.statusCode).toBe(200);
    for (const kind of ['recording.completed', 'recording.deleted', '*']) {
      expect(form.body).toContain(`type="checkbox" name="events" value="${kind}"`);
    }
    expect(form.body).toMatch(/<label for="webhook-url">Receiver URL/);
    expect(form.body).toMatch(/<label for="webhook-description">Description/);
  });

  it('registers it and shows the secret exactly once, on a page with a copy button', async () => {
    const res = await addWebhook({ description: 'Line one\r\nLine two', events: ['recording.completed', 'recording.deleted'] });
    expect(res.statusCode).toBe(201);
    const secret = secretOf(res.body) as string;
    const id = idOf(res.body) as string;
    expect(secret).toMatch(/^whsec_/);
    expect(res.body).toContain('This is the only time it is shown');
    expect(res.body).toMatch(/<button type="button" data-copy="webhook-secret"[^>]*>Copy<\/button>/);
    expect(res.body).toMatch(/<script src="\/assets\/copy\.[0-9a-f]{10}\.js" defer><\/script>/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.headers['cache-control']).toBe('no-store');

    const stored = await row(id);
    expect(stored).toMatchObject({
      url: `${receiver.url}/hook`,
      events: JSON.stringify(['recording.completed', 'recording.deleted']),
      description: 'Line one\nLine two',
      secret,
    });
    for (const url of ['/dashboard/webhooks', `/dashboard/webhooks/${id}`, `/dashboard/webhooks/${id}/edit`]) {
      const page = await get(t, alice, url);
      expect(page.statusCode).toBe(200);
      expect(page.body).not.toContain(secret);
      // The webhook's own page loads the recover form's script (ours only); the others none.
      const csp = page.headers['content-security-policy'];
      if (url.endsWith(id)) expect(csp).toContain("script-src 'self'");
      else expect(csp).not.toContain('script-src');
    }
  });

  it('registers a Slack destination and a thin webhook from the selects, and refuses thin for Slack next to its select', async () => {
    const form = await get(t, alice, '/dashboard/webhooks/new');
    expect(form.body).toMatch(/<select id="webhook-kind" name="kind"><option value="standard" selected>/);
    expect(form.body).toMatch(/<select id="webhook-payload" name="payload"><option value="full" selected>/);

    const slack = await newWebhook({ kind: 'slack', url: `${receiver.url}/slack` });
    expect(await row(slack.id)).toMatchObject({ kind: 'slack', payload_format: 'full' });
    const edit = await get(t, alice, `/dashboard/webhooks/${slack.id}/edit`);
    expect(edit.body).toContain('<option value="slack" selected>');
    const thin = await newWebhook({ payload: 'thin' });
    expect(await row(thin.id)).toMatchObject({ kind: 'standard', payload_format: 'thin' });

    const refused = await addWebhook({ kind: 'slack', payload: 'thin', url: `${receiver.url}/slack` });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toMatch(
      /<select id="webhook-payload" name="payload" aria-invalid="true" aria-describedby="payload-error">/,
    );
    expect(refused.body).toContain('<option value="slack" selected>');
    const unknown = await addWebhook({ kind: 'discord' });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('id="kind-error">Unknown kind &quot;discord&quot;');
  });

  it('refuses a webhook without events, keeping what was typed', async () => {
    const res = await addWebhook({ url: `${receiver.url}/kept-url`, description: 'kept <b>text</b>', events: [] });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<p class="error" id="events-error">Choose at least one event kind.</p>');
    expect(res.body).toContain(`value="${receiver.url}/kept-url"`);
    expect(res.body).toContain('kept &lt;b&gt;text&lt;/b&gt;</textarea>');
    expect(res.body).not.toContain('name="events" value="recording.completed" id="event-0" checked');
  });

  it('refuses an unknown event kind and a URL that is not one', async () => {
    const unknown = await addWebhook({ events: ['recording.completed', 'user.created'] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.body).toContain('id="events-error">Unknown event kind &quot;user.created&quot;');
    const notUrl = await addWebhook({ url: 'not a url' });
    expect(notUrl.statusCode).toBe(400);
    expect(notUrl.body).toMatch(
      /<input id="webhook-url"[^>]*value="not a url" aria-invalid="true" aria-describedby="url-error">/,
    );
    expect(notUrl.body).toContain('<p class="error" id="url-error">Invalid field &quot;url&quot;');
  });

  it('takes a URL of 2048 characters and a description of 1000, and refuses one more of either', async () => {
    const base = `${receiver.url}/`;
    const longUrl = base + 'u'.repeat(2048 - base.length);
    expect((await addWebhook({ url: longUrl })).statusCode).toBe(201);
    const tooLong = await addWebhook({ url: `${longUrl}u` });
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.body).toContain('The URL must be at most 2048 characters.');

    expect((await addWebhook({ description: 'é'.repeat(1000) })).statusCode).toBe(201);
    const tooMuch = await addWebhook({ description: 'd'.repeat(1001) });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.body).toContain('id="description-error">The description must be at most 1000 characters.');
    expect(tooMuch.body).toContain(`${'d'.repeat(1001)}</textarea>`);
  });

  it('refuses control characters in the form', async () => {
    const res = await addWebhook({ description: 'bell\u0007' });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('must not contain control characters');
  });

  it('refuses every webhook form without its form token', async () => {
    const { id } = await newWebhook();
    const before = await row(id);
    for (const url of [
      '/dashboard/webhooks',
      `/dashboard/webhooks/${id}/edit`,
      `/dashboard/webhooks/${id}/delete`,
      `/dashboard/webhooks/${id}/test`,
      `/dashboard/webhooks/${id}/rotate-secret`,
      `/dashboard/webhooks/${id}/enable`,
      `/dashboard/webhooks/${id}/messages/whd_${'0'.repeat(32)}/replay`,
    ]) {
      const res = await post(t, alice, url, { url: `${receiver.url}/forged`, events: '*' });
      expect(res.statusCode, url).toBe(403);
      expect((await post(t, alice, url, { csrf: mallory.csrf, url: `${receiver.url}/forged` })).statusCode, url).toBe(403);
    }
    expect(await row(id)).toEqual(before);
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('a private-network URL', () => {
  let strict: TestApp;
  let owner: Browserish & { csrf: string };
  beforeAll(async () => {
    strict = await createTestApp({ env: { WEBHOOK_MAX_PER_ACCOUNT: '1' } });
    owner = await signIn(strict, 'strict@example.com');
  });
  afterAll(() => strict?.close());

  it('is refused on the form with the input kept; so is one webhook over the account limit', async () => {
    const fields = { csrf: owner.csrf, url: 'https://10.0.0.7/hook', events: 'recording.completed', description: 'office' };
    const res = await post(strict, owner, '/dashboard/webhooks', fields);
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('<p class="error" id="url-error">The webhook URL is not allowed');
    expect(res.body).toContain('value="https://10.0.0.7/hook"');
    expect(res.body).toContain('office</textarea>');
    expect(await strict.deps.db.kysely.selectFrom('webhooks').select('id').execute()).toHaveLength(0);

    // A public IP literal passes the address check without DNS.
    const ok = await post(strict, owner, '/dashboard/webhooks', { ...fields, url: 'https://93.184.215.14/a' });
    expect(ok.statusCode).toBe(201);
    const over = await post(strict, owner, '/dashboard/webhooks', { ...fields, url: 'https://93.184.215.14/b' });
    expect(over.statusCode).toBe(409);
    expect(over.body).toContain(
      '<p class="error" id="form-error" role="alert">This account already has the maximum of 1 webhooks',
    );
    expect(over.body).toContain('value="https://93.184.215.14/b"');
  });
});

describe('changing and deleting a webhook', () => {
  it('edits URL, events and description, and clears the description', async () => {
    const { id } = await newWebhook({ description: 'before' });
    const form = await get(t, alice, `/dashboard/webhooks/${id}/edit`);
    expect(form.statusCode).toBe(200);
    expect(form.body).toContain(`value="${receiver.url}/hook"`);
    expect(form.body).toContain('value="recording.completed" id="event-0" checked');
    expect(form.body).toContain('before</textarea>');

    const saved = await post(t, alice, `/dashboard/webhooks/${id}/edit`, {
      csrf: alice.csrf,
      url: `${receiver.url}/moved`,
      events: '*',
      description: 'after',
    });
    expect(saved.statusCode).toBe(303);
    expect(saved.headers.location).toBe(`/dashboard/webhooks/${id}?notice=webhook-updated`);
    const detail = await get(t, alice, saved.headers.location as string);
    expect(detail.body).toContain('The webhook is saved.');
    expect(detail.body).toContain(`<code>${receiver.url}/moved</code>`);
    expect(await row(id)).toMatchObject({ url: `${receiver.url}/moved`, events: '["*"]', description: 'after' });

    const cleared = await post(t, alice, `/dashboard/webhooks/${id}/edit`, {
      csrf: alice.csrf,
      url: `${receiver.url}/moved`,
      events: '*',
      description: '',
    });
    expect(cleared.statusCode).toBe(303);
    expect((await row(id))?.description).toBeNull();
  });

  it('shows a refused edit again with what was typed, and changes nothing', async () => {
    const { id } = await newWebhook();
    const res = await post(t, alice, `/dashboard/webhooks/${id}/edit`, {
      csrf: alice.csrf,
      url: '',
      events: '*',
      description: 'typed',
    });
    expect(res.statusCode).toBe(400);
    expect(res.body).toContain('id="url-error">Enter the URL of the receiver.');
    expect(res.body).toContain('typed</textarea>');
    expect(res.body).toContain(`action="/dashboard/webhooks/${id}/edit"`);
    expect((await row(id))?.url).toBe(`${receiver.url}/hook`);
  });

  it('deletes after a confirmation page', async () => {
    const { id } = await newWebhook();
    const confirm = await get(t, alice, `/dashboard/webhooks/${id}/delete`);
    expect(confirm.statusCode).toBe(200);
    expect(confirm.body).toContain('This cannot be undone.');
    expect(await row(id)).toBeDefined();
    const deleted = await post(t, alice, `/dashboard/webhooks/${id}/delete`, { csrf: alice.csrf });
    expect(deleted.statusCode).toBe(303);
    const list = await get(t, alice, deleted.headers.location as string);
    expect(list.body).toContain('The webhook is deleted.');
    expect(list.body).not.toContain(id);
    expect(await row(id)).toBeUndefined();
    expect((await get(t, alice, `/dashboard/webhooks/${id}`)).statusCode).toBe(404);
  });
});

describe('test events, rotation and the delivery log', () => {
  it('sends a signed test event to the receiver and shows it in the log', async () => {
    const { id, secret } = await newWebhook();
    receiver.respond = () => ({ status: 200, body: 'thanks' });
    const res = await post(t, alice, `/dashboard/webhooks/${id}/test`, { csrf: alice.csrf });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/webhooks/${id}?notice=test-delivered`);
    expect(receiver.requests).toHaveLength(1);
    const sent = receiver.requests[0]!;
    expect(JSON.parse(sent.body)).toMatchObject({ event: 'webhook.test', data: { webhook_id: id } });
    expect(sent.headers['x-service-signature']).toBe(hmacHex(secret, sent.body));

    const page = await get(t, alice, res.headers.location as string);
    expect(page.body).toContain('The test event was delivered');
    const card = new RegExp(`data-delivery-id="${sent.headers['webhook-id']}" data-status="succeeded"[\\s\\S]*?</article>`).exec(
      page.body,
    )?.[0];
    expect(card).toContain('<code>webhook.test</code>');
    expect(card).toContain(`<pre class="body request-body">${sent.body.replace(/"/g, '&quot;')}</pre>`);
    expect(card).toContain('<pre class="body response-body">thanks</pre>');
    expect(card).not.toContain('Truncated');
  });

  it('says when a test event fails', async () => {
    const { id } = await newWebhook();
    receiver.respond = () => ({ status: 500, body: 'down' });
    const res = await post(t, alice, `/dashboard/webhooks/${id}/test`, { csrf: alice.csrf });
    expect(res.headers.location).toBe(`/dashboard/webhooks/${id}?notice=test-failed`);
    const page = await get(t, alice, res.headers.location as string);
    expect(page.body).toContain('The test event was not delivered.');
    expect(page.body).toMatch(/<span class="badge off">500<\/span> Receiver answered 500\./);
  });

  it('rotates the secret: shown once, and the new secret signs the next delivery', async () => {
    const { id, secret: first } = await newWebhook();
    const confirm = await get(t, alice, `/dashboard/webhooks/${id}/rotate-secret`);
    expect(confirm.body).toContain('keeps signing next to it for 24 hours');
    expect((await row(id))?.secret).toBe(first);

    const rotated = await post(t, alice, `/dashboard/webhooks/${id}/rotate-secret`, { csrf: alice.csrf });
    expect(rotated.statusCode).toBe(200);
    const second = secretOf(rotated.body) as string;
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect(rotated.body).toContain('data-copy="webhook-secret"');
    expect(rotated.headers['content-security-policy']).toContain("script-src 'self'");
    expect((await get(t, alice, `/dashboard/webhooks/${id}`)).body).not.toContain(second);

    await post(t, alice, `/dashboard/webhooks/${id}/test`, { csrf: alice.csrf });
    const sent = receiver.requests.at(-1)!;
    expect(sent.headers['x-service-signature-next']).toBe(hmacHex(second, sent.body));
    expect(sent.headers['x-service-signature']).toBe(hmacHex(first, sent.body));
    const headers = {
      'webhook-id': sent.headers['webhook-id'] as string,
      'webhook-timestamp': sent.headers['webhook-timestamp'] as string,
      'webhook-signature': sent.headers['webhook-signature'] as string,
    };
    expect(new StandardWebhook(second.slice('whsec_'.length)).verify(sent.body, headers)).toMatchObject({
      event: 'webhook.test',
    });
    expect(() => new StandardWebhook('d3Jvbmctc2VjcmV0LXdyb25nLXNlY3JldA==').verify(sent.body, headers)).toThrow();
  });

  it('shows a hostile response body as text, and says when a body was truncated', async () => {
    const { id } = await newWebhook();
    receiver.respond = () => ({ status: 400, body: '<script>alert("owned")</script>' });
    await post(t, alice, `/dashboard/webhooks/${id}/test`, { csrf: alice.csrf });
    receiver.respond = () => ({ status: 200, body: `${'x'.repeat(3000)}END` });
    await post(t, alice, `/dashboard/webhooks/${id}/test`, { csrf: alice.csrf });

    const page = (await get(t, alice, `/dashboard/webhooks/${id}`)).body;
    expect(page).not.toContain('<script>alert');
    expect(page).toContain('<pre class="body response-body">&lt;script&gt;alert(&quot;owned&quot;)&lt;/script&gt;</pre>');
    const [newest, older] = [...page.matchAll(/<article class="card delivery"[\s\S]*?<\/article>/g)].map((m) => m[0]);
    expect(newest).toContain(`<pre class="body response-body">${'x'.repeat(2048)}</pre>`);
    expect(newest).not.toContain('END');
    expect(newest).toContain('Truncated: only the first 2 KB of a response are kept');
    expect(older).not.toContain('Truncated');
  });

  it('replays a failed message with the same body and webhook-id, audited as the API’s replay', async () => {
    const { id } = await newWebhook({ url: `${receiver.url}/replay` });
    receiver.respond = () => ({ status: 503, body: 'busy' });
    await recordTestEvent(t, await accountIdOf(t, ALICE));
    await dispatchDue(t);
    while ((await deliverDue(t.deps)) > 0);
    const mine = receiver.requests.filter((r) => r.path === '/replay');
    const failed = mine.at(-1)!;
    const deliveryId = failed.headers['webhook-id'] as string;
    const row = await t.deps.db.kysely
      .selectFrom('webhook_deliveries')
      .select(['webhook_id', 'status'])
      .where('id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ webhook_id: id, status: 'pending' });

    receiver.respond = () => ({ status: 200, body: 'ok now' });
    const before = (await get(t, alice, `/dashboard/webhooks/${id}`)).body;
    expect(before).toContain(`action="/dashboard/webhooks/${id}/messages/${deliveryId}/replay"`);
    expect(before).not.toContain('Redeliver');
    const res = await post(t, alice, `/dashboard/webhooks/${id}/messages/${deliveryId}/replay`, { csrf: alice.csrf });
    expect(res.statusCode).toBe(303);
    expect(res.headers.location).toBe(`/dashboard/webhooks/${id}?notice=replayed`);
    const again = receiver.requests.at(-1)!;
    expect(again.headers['webhook-id']).toBe(deliveryId);
    expect(again.body).toBe(failed.body);

    const page = (await get(t, alice, res.headers.location as string)).body;
    expect(page).toContain('The message was sent again and the receiver accepted it.');
    const card = new RegExp(`data-delivery-id="${deliveryId}" data-status="succeeded"[\\s\\S]*?</article>`).exec(page)?.[0];
    expect(card).toContain('replay,');
    expect(card?.match(/<li data-attempt=/g)).toHaveLength(2);
    expect(card).toContain('<pre class="body response-body">busy</pre>');
    expect(card).toContain('<pre class="body response-body">ok now</pre>');
    const audit = await t.deps.db.kysely
      .selectFrom('audit_log')
      .select(['action', 'object_id'])
      .where('action', '=', 'webhook.message_replayed')
      .execute();
    expect(audit).toEqual([{ action: 'webhook.message_replayed', object_id: deliveryId }]);
  });
});

describe('other accounts', () => {
  it('see none of your webhooks and change nothing: every page and form is a 404', async () => {
    const { id } = await newWebhook();
    await post(t, alice, `/dashboard/webhooks/${id}/test`, { csrf: alice.csrf });
    const deliveryId = receiver.requests.at(-1)!.headers['webhook-id'] as string;
    const before = await row(id);
    const sentBefore = receiver.requests.length;

    expect((await get(t, mallory, '/dashboard/webhooks')).body).not.toContain(id);
    for (const url of [
      `/dashboard/webhooks/${id}`,
      `/dashboard/webhooks/${id}/edit`,
      `/dashboard/webhooks/${id}/delete`,
      `/dashboard/webhooks/${id}/rotate-secret`,
    ]) {
      const res = await get(t, mallory, url);
      expect(res.statusCode, url).toBe(404);
      expect(res.body).not.toContain(receiver.url);
    }
    for (const url of [
      `/dashboard/webhooks/${id}/edit`,
      `/dashboard/webhooks/${id}/delete`,
      `/dashboard/webhooks/${id}/test`,
      `/dashboard/webhooks/${id}/rotate-secret`,
      `/dashboard/webhooks/${id}/enable`,
      `/dashboard/webhooks/${id}/messages/${deliveryId}/replay`,
    ]) {
      const res = await post(t, mallory, url, { csrf: mallory.csrf, url: `${receiver.url}/stolen`, events: '*' });
      expect(res.statusCode, url).toBe(404);
    }
    expect(await row(id)).toEqual(before);
    expect(receiver.requests).toHaveLength(sentBefore);
    // A delivery of Alice's under one of Mallory's own webhooks is not found either.
    const own = await post(t, mallory, '/dashboard/webhooks', { csrf: mallory.csrf, url: `${receiver.url}/m`, events: '*' });
    const mine = idOf(own.body) as string;
    const crossed = await post(t, mallory, `/dashboard/webhooks/${mine}/messages/${deliveryId}/replay`, {
      csrf: mallory.csrf,
    });
    expect(crossed.statusCode).toBe(404);
    expect(receiver.requests).toHaveLength(sentBefore);
  });
});
