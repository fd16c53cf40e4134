/**
 * Webhook pages: the list with health and "Re-enable", and one webhook with its actions (edit,
 * test event, rotate, delete) and its recent deliveries: the exact request body, every attempt's
 * result and stored response body, and a "Replay" button (the API's replay of a message).
 */
import { html, type SafeHtml } from '../../html.js';
import { actionButton, csrfField, layout, type Viewer, when } from './layout.js';

export interface WebhookItem {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  consecutive_failures: number;
  disabled_reason: string | null;
  disabled_at: string | null;
  /** Mutual TLS: deliveries present a client certificate (never shown). */
  has_tls_client_certificate: boolean;
  created_at: string;
}

export interface DeliveryItem {
  id: string;
  event: string;
  status: string;
  created_at: string;
  next_attempt_at: string | null;
  /** The exact body sent (and signed). */
  request_body: string;
  attempts: {
    attempt: number;
    trigger: string;
    attempted_at: string;
    response_status: number | null;
    duration_ms: number;
    error: { code: string; message: string } | null;
    response_body: string;
    /** The stored body reached the kept length, so the receiver may have answered more. */
    response_body_truncated: boolean;
  }[];
}

const REASONS: Record<string, string> = {
  consecutive_failures: 'after 10 consecutive failed delivery attempts',
};

const statusBadge = (webhook: WebhookItem): SafeHtml =>
  webhook.status === 'enabled' ? html`<span class="badge ok">Enabled</span>` : html`<span class="badge off">Disabled</span>`;

function disabledNote(webhook: WebhookItem): SafeHtml {
  const reason = webhook.disabled_reason === null ? '' : (REASONS[webhook.disabled_reason] ?? `(${webhook.disabled_reason})`);
  return html`<p class="disabled-reason">Disabled automatically on ${when(webhook.disabled_at, 'an unknown date')} ${reason}.
Nothing is sent to it until you re-enable it; deliveries due meanwhile are kept and resume then. Fix the receiver first, then:</p>`;
}

const reEnableButton = (webhook: WebhookItem, viewer: Viewer) =>
  actionButton(`/dashboard/webhooks/${webhook.id}/enable`, 'Re-enable', viewer.csrfToken, 'primary');

export function webhooksPage(data: {
  styleUrl: string;
  viewer: Viewer;
  webhooks: WebhookItem[];
  notice?: string | null;
}): SafeHtml {
  const items = data.webhooks.map(
    (webhook) => html`<article class="card webhook" data-webhook-id="${webhook.id}" data-status="${webhook.status}">
<h2><a href="/dashboard/webhooks/${webhook.id}"><code>${webhook.url}</code></a> ${statusBadge(webhook)}</h2>
${webhook.description ? html`<p>${webhook.description}</p>` : ''}
<dl class="facts">
  <dt>Events</dt><dd>${webhook.events.map((e, i) => html`${i > 0 ? ', ' : ''}<code>${e}</code>`)}</dd>
  <dt>Consecutive failures</dt><dd class="failures">${webhook.consecutive_failures}</dd>
  <dt>Created</dt><dd>${when(webhook.created_at)}</dd>
</dl>
${webhook.status === 'disabled' ? html`${disabledNote(webhook)}${reEnableButton(webhook, data.viewer)}` : ''}
<p><a href="/dashboard/webhooks/${webhook.id}">Manage and see recent deliveries</a></p>
</article>`,
  );
  return layout({
    title: 'Webhooks',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'webhooks',
    notice: data.notice ?? null,
    body: html`<h1>Webhooks</h1>
<p>Endpoints that receive signed events. After 10 consecutive failed attempts a webhook is disabled automatically, and you re-enable it here. The API does the same under <code>/v1/webhooks</code>.</p>
<p><a class="button primary" href="/dashboard/webhooks/new" id="add-webhook">Add a webhook</a></p>
${data.webhooks.length === 0 ? html`<p class="empty" id="no-webhooks">No webhooks yet.</p>` : items}`,
  });
}

function attemptResult(attempt: DeliveryItem['attempts'][number]): SafeHtml {
  if (attempt.error === null) return html`<span class="badge ok">${attempt.response_status ?? ''}</span>`;
  return html`<span class="badge off">${attempt.response_status ?? attempt.error.code}</span> ${attempt.error.message}`;
}

const TRIGGERS: Record<string, string> = { automatic: 'automatic', manual: 'replay', test: 'test' };

function responseBody(attempt: DeliveryItem['attempts'][number]): SafeHtml {
  if (attempt.response_body === '') return html`<p class="muted">No response body.</p>`;
  return html`<details class="body"><summary>Response body</summary>
<pre class="body response-body">${attempt.response_body}</pre>
${attempt.response_body_truncated ? html`<p class="muted truncated">Truncated: only the first 2 KB of a response are kept, and this one reached that limit.</p>` : ''}
</details>`;
}

function deliveryCard(delivery: DeliveryItem, webhookId: string, viewer: Viewer): SafeHtml {
  const badge = delivery.status === 'succeeded' ? 'ok' : delivery.status === 'failed' ? 'off' : 'wait';
  return html`<article class="card delivery" data-delivery-id="${delivery.id}" data-status="${delivery.status}">
<h3><code>${delivery.event}</code> <span class="badge ${badge}">${delivery.status}</span></h3>
<p class="muted">Created ${when(delivery.created_at)} · ${delivery.attempts.length} ${delivery.attempts.length === 1 ? 'attempt' : 'attempts'}${
    delivery.next_attempt_at ? html` · next attempt ${when(delivery.next_attempt_at)}` : ''
  } · <code>${delivery.id}</code></p>
<details class="body"><summary>Request body</summary>
<pre class="body request-body">${delivery.request_body}</pre>
</details>
${
  delivery.attempts.length === 0
    ? html`<p class="muted">Not sent yet.</p>`
    : html`<ol class="attempts">${delivery.attempts.map(
        (attempt) => html`<li data-attempt="${attempt.attempt}">
  <p>${attemptResult(attempt)} <span class="muted">${TRIGGERS[attempt.trigger] ?? attempt.trigger}, ${when(attempt.attempted_at)}, ${attempt.duration_ms} ms</span></p>
  ${responseBody(attempt)}
</li>`,
      )}</ol>`
}
${actionButton(`/dashboard/webhooks/${webhookId}/messages/${delivery.id}/replay`, 'Replay', viewer.csrfToken)}
</article>`;
}

/** The recover form's state: the windows offered, what is chosen or typed, and a refusal to show. */
export interface RecoverForm {
  scriptUrl: string;
  windows: readonly { value: string; label: string }[];
  /** A window's value, or `custom`. */
  window: string;
  since: string;
  until: string;
  error: { field: 'window' | 'since' | 'until'; message: string } | null;
}

const recoverInvalid = (form: RecoverForm, field: 'since' | 'until'): SafeHtml =>
  form.error?.field === field
    ? html` aria-invalid="true" aria-describedby="recover-${field}-error recover-zone"`
    : html` aria-describedby="recover-zone"`;

const recoverError = (form: RecoverForm, field: 'since' | 'until'): SafeHtml =>
  form.error?.field === field ? html`<p class="error" id="recover-${field}-error">${form.error.message}</p>` : html``;

/**
 * Queues the failed messages of a time range again (POST …/recover): a window ending now, or a
 * custom range. Without a script the custom range is read as UTC and the labels say so; the
 * page's script (recover-range.ts) sends the browser's offset from UTC and relabels the fields
 * with it, so organisers type their own time.
 */
function recoverForm(webhook: WebhookItem, viewer: Viewer, form: RecoverForm): SafeHtml {
  const choice = (value: string, label: string) =>
    html`<label class="choice"><input type="radio" name="window" value="${value}" id="recover-window-${value}"${form.window === value ? ' checked' : ''}> <span>${label}</span></label>`;
  return html`<section class="card recover" aria-labelledby="recover-title">
<h2 id="recover-title">Recover failed messages</h2>
<p class="muted" id="recover-help">After your endpoint was down: every message that failed (all its automatic attempts used) and was created in the time you choose is sent again, in the order its events happened, with its original <code>webhook-id</code>.${
    webhook.status === 'disabled' ? ' This webhook is disabled: the messages wait until it is re-enabled.' : ''
  }</p>
${form.error?.field === 'window' ? html`<p class="error" id="recover-error" role="alert">${form.error.message}</p>` : ''}
<form method="post" action="/dashboard/webhooks/${webhook.id}/recover" class="recover-form stack" id="recover-form">${csrfField(viewer.csrfToken)}
<fieldset class="choices" aria-describedby="recover-help">
<legend>Failed messages created in</legend>
${form.windows.map((w) => choice(w.value, w.label))}
${choice('custom', 'a custom range')}
</fieldset>
<fieldset class="choices recover-range">
<legend>Custom range</legend>
<label for="recover-since">From <span data-zone="">(UTC)</span></label>
<input type="datetime-local" id="recover-since" name="since" step="1" value="${form.since}"${recoverInvalid(form, 'since')}>
${recoverError(form, 'since')}
<label for="recover-until">Until <span data-zone=", optional: now">(UTC, optional: now)</span></label>
<input type="datetime-local" id="recover-until" name="until" step="1" value="${form.until}"${recoverInvalid(form, 'until')}>
${recoverError(form, 'until')}
<p class="muted" id="recover-zone">Times are UTC, like every time on these pages.</p>
<input type="hidden" name="since_offset" id="recover-since-offset" value="">
<input type="hidden" name="until_offset" id="recover-until-offset" value="">
</fieldset>
<div class="row"><button type="submit">Recover failed messages</button></div>
</form>
</section>`;
}

export function webhookDetailPage(data: {
  styleUrl: string;
  viewer: Viewer;
  webhook: WebhookItem;
  deliveries: DeliveryItem[];
  /** Link to the next, older page of deliveries; null on the last page. */
  olderDeliveriesHref: string | null;
  notice?: string | null;
  recover: RecoverForm;
}): SafeHtml {
  const { webhook } = data;
  return layout({
    title: 'Webhook',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'webhooks',
    notice: data.notice ?? null,
    scripts: [data.recover.scriptUrl],
    body: html`<p><a href="/dashboard/webhooks">← Webhooks</a></p>
<article class="card webhook" data-webhook-id="${webhook.id}" data-status="${webhook.status}">
<h1><code>${webhook.url}</code> ${statusBadge(webhook)}</h1>
${webhook.description ? html`<p class="description">${webhook.description}</p>` : ''}
<dl class="facts">
  <dt>Id</dt><dd><code>${webhook.id}</code></dd>
  <dt>Events</dt><dd>${webhook.events.map((e, i) => html`${i > 0 ? ', ' : ''}<code>${e}</code>`)}</dd>
  <dt>Consecutive failures</dt><dd class="failures">${webhook.consecutive_failures}</dd>
  <dt>Mutual TLS</dt><dd class="client-certificate">${webhook.has_tls_client_certificate ? 'A client certificate is set' : 'No client certificate'}</dd>
  <dt>Created</dt><dd>${when(webhook.created_at)}</dd>
</dl>
${webhook.status === 'disabled' ? html`${disabledNote(webhook)}${reEnableButton(webhook, data.viewer)}` : ''}
<div class="row actions">
  <a class="button" href="/dashboard/webhooks/${webhook.id}/edit">Edit</a>
  ${actionButton(`/dashboard/webhooks/${webhook.id}/test`, 'Send test event', data.viewer.csrfToken)}
  <a class="button" href="/dashboard/webhooks/${webhook.id}/rotate-secret">Rotate secret…</a>
  <a class="button danger-link" href="/dashboard/webhooks/${webhook.id}/delete">Delete…</a>
</div>
</article>
${recoverForm(webhook, data.viewer, data.recover)}
<h2>Recent deliveries</h2>
${
  data.deliveries.length === 0
    ? html`<p class="empty" id="no-deliveries">No deliveries yet. Send a test event to see one.</p>`
    : html`<div id="deliveries">${data.deliveries.map((d) => deliveryCard(d, webhook.id, data.viewer))}</div>
${data.olderDeliveriesHref ? html`<p><a href="${data.olderDeliveriesHref}" id="older-deliveries">Older deliveries</a></p>` : ''}`
}`,
  });
}
