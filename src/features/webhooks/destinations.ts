/**
 * The rules a webhook's kind adds to its URL, events and payload format. A chat destination
 * posts to one platform's endpoint, so its URL must be that platform's, over HTTPS; the general
 * outbound rules (public addresses only) still apply on top, at registration and on every send.
 */
import { AppError } from '../../errors.js';
import { CHAT_EVENT_KINDS, PAYLOAD_FORMATS, type PayloadFormat, WEBHOOK_KINDS, type WebhookKind } from './schemas.js';

/** Hosts of the platforms' webhook URLs: Slack incoming webhooks; Teams Workflows (Logic Apps, then Power Platform). */
const SLACK_HOST = 'hooks.slack.com';
const TEAMS_HOSTS = [/^[a-z0-9-]+(\.[a-z0-9-]+)*\.logic\.azure\.com$/, /^[a-z0-9-]+(\.[a-z0-9-]+)*\.api\.powerplatform\.com$/];

const invalid = (param: string, message: string) => new AppError('parameter_invalid', message, { param });

/** Null when `url` may take the kind's messages, else why not. */
function urlProblem(kind: WebhookKind, url: URL): string | null {
  if (url.protocol !== 'https:') return 'must use https';
  if (url.port !== '' && url.port !== '443') return 'must use the default HTTPS port';
  const host = url.hostname.toLowerCase();
  if (kind === 'slack') {
    return host === SLACK_HOST && url.pathname.startsWith('/services/')
      ? null
      : 'must be a Slack incoming-webhook URL (https://hooks.slack.com/services/…)';
  }
  return TEAMS_HOSTS.some((pattern) => pattern.test(host))
    ? null
    : 'must be a Teams Workflows URL (https://….logic.azure.com/workflows/… or https://….api.powerplatform.com/…)';
}

export interface Destination {
  kind: WebhookKind;
  payload: PayloadFormat;
  url: string;
  events: string[];
}

/**
 * Checks that the kind, payload format, URL and events fit together (400 `parameter_invalid`
 * naming the field). With WEBHOOK_ALLOW_PRIVATE_URLS (development) a chat kind's URL may be
 * any URL, so a local receiver can stand in for the platform.
 */
export function checkDestination(destination: Destination, options: { allowPrivateUrls: boolean }): void {
  const { kind } = destination;
  if (kind === 'standard') return;
  if (destination.payload === 'thin') {
    throw invalid('payload', `A ${kind} webhook sends a chat message; "thin" is for standard webhooks only.`);
  }
  const allowed: readonly string[] = CHAT_EVENT_KINDS;
  destination.events.forEach((event, index) => {
    if (!allowed.includes(event)) {
      throw invalid(`events[${index}]`, `A ${kind} webhook receives only ${CHAT_EVENT_KINDS.join(' and ')}, not "${event}".`);
    }
  });
  if (options.allowPrivateUrls) return;
  let url: URL;
  try {
    url = new URL(destination.url);
  } catch {
    return; // the general URL check reports it
  }
  const problem = urlProblem(kind, url);
  if (problem !== null) throw invalid('url', `The URL of a ${kind} webhook ${problem}.`);
}

/** A form's `kind` (the dashboard; the API's schema checks its own): absent means `standard`. */
export function parseKind(value: string | undefined): WebhookKind {
  const kind = WEBHOOK_KINDS.find((k) => k === (value || 'standard'));
  if (!kind) throw invalid('kind', `Unknown kind "${value}". Allowed: ${WEBHOOK_KINDS.join(', ')}.`);
  return kind;
}

/** A form's `payload`: absent means `full`. */
export function parsePayloadFormat(value: string | undefined): PayloadFormat {
  const payload = PAYLOAD_FORMATS.find((p) => p === (value || 'full'));
  if (!payload) throw invalid('payload', `Unknown payload "${value}". Allowed: ${PAYLOAD_FORMATS.join(', ')}.`);
  return payload;
}
