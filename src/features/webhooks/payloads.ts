/**
 * The body a webhook receives for an event, by its kind and payload format: the spec's full
 * body, a thin body (ids and the object's API URL, no personal data), or a chat message for a
 * Slack incoming webhook or a Microsoft Teams Workflows URL in the collection's language.
 */
import { translator, type Locale } from '../../i18n/index.js';
import type { PayloadFormat, WebhookKind } from './schemas.js';

export interface EventForBody {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The exact body of every standard delivery: spec §6 `{event, timestamp, data}`. */
export const eventBody = (type: string, timestamp: string, data: unknown): string =>
  JSON.stringify({ event: type, timestamp, data });

/** Events about an object that no longer exists: their thin `url` is null. */
const GONE_OBJECT: Record<string, 'user' | 'collection'> = { 'user.deleted': 'user', 'collection.erased': 'collection' };

const idOf = (data: Record<string, unknown>, key: string) => (typeof data[key] === 'string' ? data[key] : null);

/**
 * The API URL of the object an event is about, fetched with the account's API key: the person
 * when the event names one, else the collection, else (the test event) the webhook.
 */
export function objectUrl(baseUrl: string, event: EventForBody): string | null {
  const collectionId = idOf(event.data, 'collection_id');
  const userId = idOf(event.data, 'user_id');
  const webhookId = idOf(event.data, 'webhook_id');
  const gone = GONE_OBJECT[event.type];
  const path = (segments: string[]) => `${baseUrl}/v1/${segments.map(encodeURIComponent).join('/')}`;
  if (collectionId !== null && userId !== null)
    return gone === 'user' ? null : path(['collections', collectionId, 'users', userId]);
  if (collectionId !== null) return gone === 'collection' ? null : path(['collections', collectionId]);
  if (webhookId !== null) return path(['webhooks', webhookId]);
  return null;
}

/** The ids this service issued; `external_id` is the customer's own and may be an e-mail address or a name. */
const isServiceId = (key: string) => key.endsWith('_id') && key !== 'external_id';

/**
 * A thin body: the event kind and time, only the `*_id` fields (but `external_id`) of its data (no e-mail, names,
 * play link or free text) and the URL of the object to fetch with the API key.
 */
export function thinBody(baseUrl: string, event: EventForBody): string {
  const ids = Object.fromEntries(
    Object.entries(event.data).filter(([key, value]) => isServiceId(key) && typeof value === 'string'),
  );
  return JSON.stringify({ event: event.type, timestamp: event.timestamp, data: ids, url: objectUrl(baseUrl, event) });
}

/** What a chat message says: one sentence and, when there is something to hear, a link. */
export interface ChatMessage {
  text: string;
  link: { label: string; url: string } | null;
}

/** Slack's limit for a section's text (Block Kit reference); a longer name is cut. */
export const SLACK_SECTION_TEXT_MAX = 3000;
const NAME_MAX = 200;

const personName = (data: Record<string, unknown>) => {
  const name = [data.first_name, data.last_name]
    .filter((part): part is string => typeof part === 'string' && part !== '')
    .join(' ');
  return [...name].slice(0, NAME_MAX).join('');
};

/** The message for an event in `locale`; null for kinds a chat destination does not receive. */
export function chatMessage(event: EventForBody, locale: Locale): ChatMessage | null {
  const t = translator(locale, 'chat');
  const playLink = idOf(event.data, 'play_link');
  switch (event.type) {
    case 'recording.completed':
      return {
        text: t('recording_completed', { name: personName(event.data) }),
        link: playLink === null ? null : { label: t('listen'), url: playLink },
      };
    case 'recording.deleted':
      return { text: t('recording_deleted', { name: personName(event.data) }), link: null };
    case 'webhook.test':
      return { text: t('webhook_test'), link: null };
    default:
      return null;
  }
}

/** Slack's mrkdwn and `text` treat `&`, `<` and `>` as control characters; these three are escaped (Slack's formatting docs). */
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A Slack incoming-webhook body: `text` (notifications and fallback) and Block Kit blocks. */
export function slackBody(message: ChatMessage): string {
  const text = slackEscape(message.text).slice(0, SLACK_SECTION_TEXT_MAX);
  const blocks: unknown[] = [{ type: 'section', text: { type: 'mrkdwn', text } }];
  if (message.link) {
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: message.link.label }, url: message.link.url }],
    });
  }
  const fallback = message.link ? `${text}: <${message.link.url}|${slackEscape(message.link.label)}>` : text;
  return JSON.stringify({ text: fallback, blocks });
}

/** A Teams Workflows body ("When a Teams webhook request is received"): one Adaptive Card 1.4 attachment. */
export function teamsBody(message: ChatMessage, locale: Locale): string {
  const card = {
    $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
    type: 'AdaptiveCard',
    version: '1.4',
    lang: locale,
    body: [{ type: 'TextBlock', text: message.text, wrap: true }],
    ...(message.link ? { actions: [{ type: 'Action.OpenUrl', title: message.link.label, url: message.link.url }] } : {}),
  };
  return JSON.stringify({
    type: 'message',
    attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content: card }],
  });
}

/**
 * The body for one webhook, or null when its kind does not receive this event (a chat
 * destination subscribed before a kind it cannot show existed never gets it).
 */
export function webhookBody(
  webhook: { kind: WebhookKind; payload_format: PayloadFormat },
  event: EventForBody,
  context: { baseUrl: string; locale: Locale },
): string | null {
  if (webhook.kind === 'standard') {
    return webhook.payload_format === 'thin'
      ? thinBody(context.baseUrl, event)
      : eventBody(event.type, event.timestamp, event.data);
  }
  const message = chatMessage(event, context.locale);
  if (message === null) return null;
  return webhook.kind === 'slack' ? slackBody(message) : teamsBody(message, context.locale);
}
