/**
 * Webhook forms: register and edit (URL, destination kind, payload, events, description, the mutual TLS client certificate), the one-time secret page (after
 * registering and after a rotation, with a copy button), and the delete and rotate confirmations.
 */
import { html, type SafeHtml } from '../../html.js';
import { confirmationPage, csrfField, layout, type Viewer } from './layout.js';

export interface WebhookInput {
  url: string;
  events: string[];
  description: string;
  kind: string;
  payload: string;
  /** The client certificate as pasted, kept when the form is refused; its private key never is. */
  tlsCertificate: string;
  /** "Remove" was ticked (edit only). */
  tlsRemove: boolean;
}

/** A refusal to show on the form; `field` places it next to that input, null above the form. */
export interface FormError {
  field: 'url' | 'events' | 'description' | 'kind' | 'payload' | 'tls_client_certificate' | 'tls_client_key' | null;
  message: string;
}

const EVENT_HELP: Record<string, string> = {
  'recording.completed': 'someone finished recording their name',
  'recording.deleted': 'a recording was deleted',
  'user.updated': 'a person’s details changed (by you or by them)',
  'user.deleted': 'a person was deleted',
  'pronunciation.updated': 'a pronunciation guide was made, changed or approved',
  'collection.erased': 'a collection was erased for good',
  'invitation.sent': 'an invitation, reminder or re-record e-mail was sent',
  'invitation.failed': 'an e-mail to a person could not be sent',
  '*': 'every event, including kinds added later',
};

const KIND_LABELS: [string, string][] = [
  ['standard', 'Standard (signed JSON)'],
  ['slack', 'Slack'],
  ['teams', 'Microsoft Teams'],
];
const PAYLOAD_LABELS: [string, string][] = [
  ['full', 'Full'],
  ['thin', 'Thin (ids only)'],
];

const options = (choices: [string, string][], selected: string): SafeHtml[] =>
  choices.map(([value, label]) => html`<option value="${value}"${value === selected ? ' selected' : ''}>${label}</option>`);

const errorFor = (error: FormError | null | undefined, field: FormError['field']): SafeHtml =>
  error && error.field === field ? html`<p class="error" id="${field ?? 'form'}-error">${error.message}</p>` : html``;

const invalidAttrs = (error: FormError | null | undefined, field: NonNullable<FormError['field']>): SafeHtml =>
  error && error.field === field ? html` aria-invalid="true" aria-describedby="${field}-error"` : html``;

/**
 * Mutual TLS: the certificate and key pasted together. The key's field always starts empty: a
 * private key is never written back into a page, not even into the refused form it came from.
 * On edit, both fields empty and Remove unticked keep the certificate the webhook has.
 */
function clientCertificateFields(data: Parameters<typeof webhookFormPage>[0]): SafeHtml {
  const { input, error } = data;
  const hasCertificate = data.webhook?.has_tls_client_certificate === true;
  return html`<fieldset class="choices client-certificate" aria-describedby="tls-help">
    <legend>Mutual TLS <span class="muted">(optional)</span></legend>
    <p class="muted" id="tls-help">For a receiver that asks for a client certificate: every delivery presents this one (https URLs only). Paste the certificate (PEM, optionally followed by its chain) and its unencrypted private key together. The key is stored encrypted and never shown again, here or in the API.</p>
    ${
      hasCertificate
        ? html`<p id="tls-status"><strong>A client certificate is set.</strong> Replace it by pasting a new certificate and key, or remove it. With both fields empty and Remove not ticked it stays as it is.</p>
    <label class="choice"><input type="checkbox" name="tls_remove" value="yes" id="webhook-tls-remove"${input.tlsRemove ? ' checked' : ''}>
      <span>Remove the client certificate</span></label>`
        : ''
    }
    <label for="webhook-tls-certificate">${hasCertificate ? 'Replace: client certificate' : 'Client certificate'} <span class="muted">(PEM)</span></label>
    <textarea id="webhook-tls-certificate" name="tls_client_certificate" class="pem" rows="5" spellcheck="false" autocomplete="off"
      placeholder="-----BEGIN CERTIFICATE-----"${invalidAttrs(error, 'tls_client_certificate')}>${input.tlsCertificate}</textarea>
    ${errorFor(error, 'tls_client_certificate')}
    <label for="webhook-tls-key">${hasCertificate ? 'Replace: private key' : 'Private key'} <span class="muted">(PEM, unencrypted)</span></label>
    <textarea id="webhook-tls-key" name="tls_client_key" class="pem" rows="5" spellcheck="false" autocomplete="off"
      placeholder="-----BEGIN PRIVATE KEY-----"${invalidAttrs(error, 'tls_client_key')}></textarea>
    ${errorFor(error, 'tls_client_key')}
  </fieldset>`;
}

export function webhookFormPage(data: {
  styleUrl: string;
  viewer: Viewer;
  eventKinds: readonly string[];
  limits: { url: number; description: number };
  /** null: a new webhook; else the webhook being edited. */
  webhook: { id: string; url: string; has_tls_client_certificate: boolean } | null;
  input: WebhookInput;
  error?: FormError | null;
}): SafeHtml {
  const { input, error, webhook } = data;
  const action = webhook ? `/dashboard/webhooks/${webhook.id}/edit` : '/dashboard/webhooks';
  const title = webhook ? 'Edit webhook' : 'Add a webhook';
  return layout({
    title,
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'webhooks',
    body: html`<p><a href="${webhook ? `/dashboard/webhooks/${webhook.id}` : '/dashboard/webhooks'}">← ${webhook ? 'Webhook' : 'Webhooks'}</a></p>
<section class="card">
<h1>${title}</h1>
${error && error.field === null ? html`<p class="error" id="form-error" role="alert">${error.message}</p>` : ''}
<form method="post" action="${action}" class="stack" id="webhook-form">
  ${csrfField(data.viewer.csrfToken)}
  <label for="webhook-url">Receiver URL <span class="muted">(HTTPS, reachable from the internet; it receives POST requests)</span></label>
  <input id="webhook-url" name="url" type="url" required maxlength="${data.limits.url}" autocomplete="off" spellcheck="false"
    placeholder="https://example.com/voicename/webhook" value="${input.url}"${invalidAttrs(error, 'url')}>
  ${errorFor(error, 'url')}
  <label for="webhook-kind">Destination</label>
  <select id="webhook-kind" name="kind"${invalidAttrs(error, 'kind')}>${options(KIND_LABELS, input.kind)}</select>
  ${errorFor(error, 'kind')}
  <p class="muted">Slack takes an incoming-webhook URL, Teams a Workflows URL; both receive a message in the collection’s language for <code>recording.completed</code> and <code>recording.deleted</code> only.</p>
  <label for="webhook-payload">Payload <span class="muted">(standard webhooks)</span></label>
  <select id="webhook-payload" name="payload"${invalidAttrs(error, 'payload')}>${options(PAYLOAD_LABELS, input.payload)}</select>
  ${errorFor(error, 'payload')}
  <p class="muted">Thin: ids, the event and a URL to fetch the object with your API key, no personal data.</p>
  <fieldset class="choices"${error?.field === 'events' ? html` aria-describedby="events-error"` : ''}>
    <legend>Events to send</legend>
    ${data.eventKinds.map(
      (
        kind,
        i,
      ) => html`<label class="choice"><input type="checkbox" name="events" value="${kind}" id="event-${i}"${input.events.includes(kind) ? ' checked' : ''}>
      <span><code>${kind}</code> <span class="muted">${EVENT_HELP[kind] ?? ''}</span></span></label>`,
    )}
  </fieldset>
  ${errorFor(error, 'events')}
  <label for="webhook-description">Description <span class="muted">(optional, up to ${data.limits.description} characters)</span></label>
  <textarea id="webhook-description" name="description" rows="3" maxlength="${data.limits.description}"${invalidAttrs(error, 'description')}>${input.description}</textarea>
  ${errorFor(error, 'description')}
  ${clientCertificateFields(data)}
  <div class="row">
    <button type="submit" class="primary">${webhook ? 'Save changes' : 'Add webhook'}</button>
    <a class="button" href="${webhook ? `/dashboard/webhooks/${webhook.id}` : '/dashboard/webhooks'}">Cancel</a>
  </div>
</form>
${webhook ? '' : html`<p class="muted">The signing secret is shown once, on the next page.</p>`}
</section>`,
  });
}

export function webhookSecretPage(data: {
  styleUrl: string;
  viewer: Viewer;
  copyScriptUrl: string;
  webhook: { id: string; url: string };
  secret: string;
  reason: 'created' | 'rotated';
}): SafeHtml {
  const created = data.reason === 'created';
  return layout({
    title: created ? 'Webhook added' : 'New signing secret',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'webhooks',
    scripts: [data.copyScriptUrl],
    body: html`<section class="card webhook">
<h1>${created ? 'Webhook added' : 'New signing secret'}: <code>${data.webhook.url}</code></h1>
<p class="warning"><strong>Copy the signing secret now.</strong> This is the only time it is shown. If you lose it, rotate the secret to get a new one.</p>
<label for="webhook-secret">Signing secret</label>
<div class="copy-row">
  <input id="webhook-secret" class="secret" readonly value="${data.secret}" spellcheck="false" autocomplete="off">
  <button type="button" data-copy="webhook-secret" data-copy-status="copy-status" hidden>Copy</button>
</div>
<p class="muted" id="copy-status" role="status"></p>
${
  created
    ? html`<p>Verify each delivery with it: <code>X-Service-Signature</code> is the hex HMAC-SHA256 of the raw body keyed with this whole string, and the Standard Webhooks headers (<code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>) work with the <code>standardwebhooks</code> libraries.</p>`
    : html`<p>The previous secret keeps signing for 24 hours so your receiver can switch without losing deliveries: until then <code>X-Service-Signature</code> stays on the previous secret, <code>X-Service-Signature-Next</code> carries this one, and <code>webhook-signature</code> carries both.</p>`
}
<p><a href="/dashboard/webhooks/${data.webhook.id}" class="button">I have copied it</a></p>
</section>`,
  });
}

export function deleteWebhookPage(data: { styleUrl: string; viewer: Viewer; webhook: { id: string; url: string } }): SafeHtml {
  return confirmationPage({
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'webhooks',
    title: 'Delete webhook',
    heading: html`Delete the webhook <code>${data.webhook.url}</code>?`,
    details: html`<p class="warning">Nothing more is sent to it, including deliveries still waiting for a retry, and its delivery log is deleted. This cannot be undone.</p>`,
    action: `/dashboard/webhooks/${data.webhook.id}/delete`,
    actionLabel: 'Delete webhook',
    tone: 'danger',
    cancelHref: `/dashboard/webhooks/${data.webhook.id}`,
    cardClass: 'webhook',
  });
}

export function rotateSecretPage(data: { styleUrl: string; viewer: Viewer; webhook: { id: string; url: string } }): SafeHtml {
  return confirmationPage({
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'webhooks',
    title: 'Rotate signing secret',
    heading: html`Rotate the signing secret of <code>${data.webhook.url}</code>?`,
    details: html`<p>A new secret is made and shown once. The current one keeps signing next to it for 24 hours, so update your receiver within that time.</p>`,
    action: `/dashboard/webhooks/${data.webhook.id}/rotate-secret`,
    actionLabel: 'Rotate secret',
    tone: 'primary',
    cancelHref: `/dashboard/webhooks/${data.webhook.id}`,
    cardClass: 'webhook',
  });
}
