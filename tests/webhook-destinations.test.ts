import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { HostLookup } from '../src/integrations/outbound-http.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { slackPayloadErrors, teamsPayloadErrors } from './helpers/chat-payload-schemas.js';
import { type Receiver, type ReceivedRequest, startReceiver } from './helpers/webhook-receiver.js';
import { accountIdOf, deliverDue, dispatchDue, recordingData, recordTestEvent } from './helpers/webhooks.js';

const SLACK_URL = 'https://hooks.slack.com/services/T0123ABCD/B0456EFGH/abcdefghijklmnopqrstuvwx';
const TEAMS_LOGIC_URL =
  'https://prod-27.westeurope.logic.azure.com:443/workflows/0a1b2c3d4e5f40718293a4b5c6d7e8f9/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=AbCdEf0123456789-_AbCdEf0123456789AbCdEf012';
const TEAMS_POWER_PLATFORM_URL =
  'https://default0a1b2c3d4e5f40718293a4b5c6d7e8.f9.environment.api.powerplatform.com:443/powerautomate/automations/direct/workflows/0a1b2c3d4e5f40718293a4b5c6d7e8f9/triggers/manual/paths/invoke?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=Zz0123456789-_Zz0123456789Zz0123456789Zz01';

/** The platform's side: answers as Slack (200 "ok" / 400 "invalid_blocks") and Teams Workflows (202 / 400) do. */
function platformReply(request: ReceivedRequest) {
  if (request.path.startsWith('/slack')) {
    return slackPayloadErrors(request.body).length === 0 ? { status: 200, body: 'ok' } : { status: 400, body: 'invalid_blocks' };
  }
  return teamsPayloadErrors(request.body).length === 0
    ? { status: 202, body: '' }
    : { status: 400, body: 'InvalidRequestContent' };
}

describe('Slack and Teams destinations, delivered to local receivers that check the platforms’ schemas', () => {
  let t: TestApp;
  let receiver: Receiver;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true', WEBHOOK_TIMEOUT_MS: '2000' } });
    receiver = await startReceiver(platformReply);
    const account = await t.newAccount();
    key = account.key;
    accountId = await accountIdOf(t, account.email);
  });
  afterAll(async () => {
    await receiver.close();
    await t.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
  });

  async function collectionIn(language: string): Promise<string> {
    const res = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: `Class (${language})`, language } });
    expect(res.statusCode).toBe(201);
    return res.json<{ id: string }>().id;
  }

  async function hook(kind: 'slack' | 'teams', path: string) {
    const res = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      json: { url: `${receiver.url}${path}`, events: ['recording.completed', 'recording.deleted'], kind },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ kind, payload: 'full' });
    return res.json<{ id: string }>();
  }

  async function deliverRecording(collectionId: string, type = 'recording.completed') {
    const data = { ...recordingData(3), collection_id: collectionId, first_name: 'Aoife', last_name: 'Byrne' };
    await recordTestEvent(t, accountId, type, data);
    await dispatchDue(t);
    await deliverDue(t.deps);
    return data;
  }

  it('posts Block Kit and an Adaptive Card in the collection’s language (English and German), accepted by both schemas', async () => {
    const slack = await hook('slack', '/slack/a');
    const teams = await hook('teams', '/teams/a');
    const english = await collectionIn('en');
    const data = await deliverRecording(english);
    expect(receiver.requests).toHaveLength(2);
    const slackRequest = receiver.requests.find((r) => r.path === '/slack/a')!;
    const teamsRequest = receiver.requests.find((r) => r.path === '/teams/a')!;
    expect(slackPayloadErrors(slackRequest.body)).toEqual([]);
    expect(teamsPayloadErrors(teamsRequest.body)).toEqual([]);

    const slackBody = JSON.parse(slackRequest.body);
    expect(slackBody.blocks[0].text).toEqual({ type: 'mrkdwn', text: 'Aoife Byrne recorded their name' });
    expect(slackBody.blocks[1].elements[0]).toMatchObject({ type: 'button', text: { text: 'Listen' }, url: data.play_link });
    expect(slackBody.text).toContain('Aoife Byrne recorded their name');
    const card = JSON.parse(teamsRequest.body).attachments[0].content;
    expect(card.body[0]).toMatchObject({ type: 'TextBlock', text: 'Aoife Byrne recorded their name' });
    expect(card.actions[0]).toEqual({ type: 'Action.OpenUrl', title: 'Listen', url: data.play_link });
    // Chat messages carry no e-mail address.
    expect(slackRequest.body + teamsRequest.body).not.toContain(data.email);

    receiver.requests.length = 0;
    const german = await collectionIn('de');
    await deliverRecording(german);
    const germanSlack = JSON.parse(receiver.requests.find((r) => r.path === '/slack/a')!.body);
    const germanCard = JSON.parse(receiver.requests.find((r) => r.path === '/teams/a')!.body).attachments[0].content;
    expect(germanSlack.blocks[0].text.text).toBe('Neue Namensaufnahme von Aoife Byrne');
    expect(germanSlack.blocks[1].elements[0].text.text).toBe('Anhören');
    expect(germanCard).toMatchObject({ lang: 'de', body: [{ text: 'Neue Namensaufnahme von Aoife Byrne' }] });
    expect(receiver.requests.every((r) => r.headers['webhook-signature'] !== undefined)).toBe(true);

    const deliveries = await t.request({ method: 'GET', url: `/v1/webhooks/${slack.id}/deliveries`, key });
    expect(deliveries.json<{ data: { status: string }[] }>().data.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${slack.id}`, key });
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${teams.id}`, key });
  });

  it('a deleted recording and the test event are messages without a link, still valid for both platforms', async () => {
    const slack = await hook('slack', '/slack/b');
    const teams = await hook('teams', '/teams/b');
    await deliverRecording(await collectionIn('fr'), 'recording.deleted');
    for (const id of [slack.id, teams.id]) {
      const res = await t.request({ method: 'POST', url: `/v1/webhooks/${id}/test`, key });
      expect(res.json()).toMatchObject({ status: 'succeeded' });
    }
    expect(receiver.requests).toHaveLength(4);
    const bodies = receiver.requests.map((r) => ({ path: r.path, body: JSON.parse(r.body) }));
    for (const { path, body } of bodies) {
      expect(
        path.startsWith('/slack') ? slackPayloadErrors(JSON.stringify(body)) : teamsPayloadErrors(JSON.stringify(body)),
      ).toEqual([]);
    }
    expect(bodies.find((b) => b.path === '/slack/b')!.body.blocks[0].text.text).toBe(
      'L’enregistrement du nom de Aoife Byrne a été supprimé',
    );
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${slack.id}`, key });
    await t.request({ method: 'DELETE', url: `/v1/webhooks/${teams.id}`, key });
  });

  it('a receiver holding a schema-breaking body answers 400, so a wrong body would show as a failed delivery', () => {
    expect(
      slackPayloadErrors(
        JSON.stringify({ text: 'x', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3001) } }] }),
      ),
    ).not.toEqual([]);
    expect(
      teamsPayloadErrors(
        JSON.stringify({
          type: 'message',
          attachments: [
            {
              contentType: 'application/vnd.microsoft.card.adaptive',
              content: { type: 'AdaptiveCard', version: '1.2', body: [] },
            },
          ],
        }),
      ),
    ).not.toEqual([]);
  });

  it('refuses thin payloads and kinds a chat message cannot show, in the error envelope', async () => {
    const url = `${receiver.url}/slack/c`;
    const thin = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      json: { url, events: ['recording.completed'], kind: 'slack', payload: 'thin' },
    });
    expect(thin.statusCode).toBe(400);
    expect(thin.json().error).toMatchObject({ code: 'parameter_invalid', param: 'payload' });
    const all = await t.request({ method: 'POST', url: '/v1/webhooks', key, json: { url, events: ['*'], kind: 'teams' } });
    expect(all.statusCode).toBe(400);
    expect(all.json().error).toMatchObject({ code: 'parameter_invalid', param: 'events[0]' });
    const unknownKind = await t.request({
      method: 'POST',
      url: '/v1/webhooks',
      key,
      json: { url, events: ['*'], kind: 'discord' },
    });
    expect(unknownKind.statusCode).toBe(400);
    expect(unknownKind.json().error.type).toBeDefined();
  });
});

describe('URL rules of chat destinations (SSRF rules on)', () => {
  let t: TestApp;
  let key: string;
  /** Public answers for the platforms' hosts; a private one for a host that rebinds. */
  const lookup: HostLookup = async (host) => (host.startsWith('rebind.') ? ['10.0.0.7'] : ['52.96.1.10']);

  beforeAll(async () => {
    t = await createTestApp({ env: { WEBHOOK_ALLOW_PRIVATE_URLS: 'false' } });
    Object.assign(t.deps, { lookup });
    key = (await t.newAccount()).key;
  });
  afterAll(() => t.close());

  const create = (json: Record<string, unknown>) =>
    t.request({ method: 'POST', url: '/v1/webhooks', key, json: { events: ['recording.completed'], ...json } });

  it.each([
    ['slack', SLACK_URL],
    ['teams', TEAMS_LOGIC_URL],
    ['teams', TEAMS_POWER_PLATFORM_URL],
    ['standard', TEAMS_LOGIC_URL],
  ])('accepts a real-looking %s URL and keeps it byte for byte', async (kind, url) => {
    const res = await create({ kind, url });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ kind, url });
  });

  it.each([
    ['slack', 'http://hooks.slack.com/services/T0/B0/x', 'parameter_invalid'],
    ['slack', 'https://hooks.slack.com.evil.test/services/T0/B0/x', 'parameter_invalid'],
    ['slack', 'https://hooks.slack.com/triggers/T0/1/x', 'parameter_invalid'],
    ['slack', TEAMS_LOGIC_URL, 'parameter_invalid'],
    ['teams', 'https://prod-27.westeurope.logic.azure.com:8443/workflows/x', 'parameter_invalid'],
    ['teams', 'https://logic.azure.com.evil.test/workflows/x', 'parameter_invalid'],
    ['teams', 'https://10.0.0.7/workflows/x', 'parameter_invalid'],
    ['teams', 'https://rebind.westeurope.logic.azure.com/workflows/x', 'url_not_public'],
    ['standard', 'https://169.254.169.254/latest/meta-data', 'url_not_public'],
    ['standard', 'https://127.0.0.1/hook', 'url_not_public'],
  ])('refuses a %s webhook at %s (%s)', async (kind, url, code) => {
    const res = await create({ kind, url });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code, param: 'url' });
  });

  it('refuses turning a standard webhook into a Slack one while its URL is not Slack’s', async () => {
    const created = await create({ url: TEAMS_LOGIC_URL });
    const res = await t.request({ method: 'PATCH', url: `/v1/webhooks/${created.json().id}`, key, json: { kind: 'slack' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'parameter_invalid', param: 'url' });
    const both = await t.request({
      method: 'PATCH',
      url: `/v1/webhooks/${created.json().id}`,
      key,
      json: { kind: 'slack', url: SLACK_URL },
    });
    expect(both.statusCode).toBe(200);
    expect(both.json()).toMatchObject({ kind: 'slack', url: SLACK_URL });
  });
});
