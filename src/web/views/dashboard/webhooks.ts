/** Webhook pages: the list with health and "Re-enable", and one webhook with its recent deliveries. */
import { html, type SafeHtml } from '../../html.js';
import { actionButton, layout, type Viewer, when } from './layout.js';

export interface WebhookItem {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  consecutive_failures: number;
  disabled_reason: string | null;
  disabled_at: string | null;
  created_at: string;
}

export interface DeliveryItem {
  id: string;
  event: string;
  status: string;
  created_at: string;
  next_attempt_at: string | null;
  attempts: {
    attempt: number;
    attempted_at: string;
    response_status: number | null;
    duration_ms: number;
    error: { code: string; message: string } | null;
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
<p><a href="/dashboard/webhooks/${webhook.id}">Recent deliveries</a></p>
</article>`,
  );
  return layout({
    title: 'Webhooks',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'webhooks',
    notice: data.notice ?? null,
    body: html`<h1>Webhooks</h1>
<p>Endpoints that receive signed events. Register, change and delete them with the API (<code>POST /v1/webhooks</code>); after 10 consecutive failed attempts a webhook is disabled automatically, and you re-enable it here.</p>
${data.webhooks.length === 0 ? html`<p class="empty" id="no-webhooks">No webhooks yet.</p>` : items}`,
  });
}

function attemptResult(attempt: DeliveryItem['attempts'][number]): SafeHtml {
  if (attempt.error === null) return html`<span class="badge ok">${attempt.response_status ?? ''}</span>`;
  return html`<span class="badge off">${attempt.response_status ?? attempt.error.code}</span> ${attempt.error.message}`;
}

export function webhookDetailPage(data: {
  styleUrl: string;
  viewer: Viewer;
  webhook: WebhookItem;
  deliveries: DeliveryItem[];
  notice?: string | null;
}): SafeHtml {
  const { webhook } = data;
  const rows = data.deliveries.map((delivery) => {
    const last = delivery.attempts.at(-1);
    return html`<tr data-delivery-id="${delivery.id}">
  <td><code>${delivery.event}</code></td>
  <td>${when(delivery.created_at)}</td>
  <td><span class="badge ${delivery.status === 'succeeded' ? 'ok' : delivery.status === 'failed' ? 'off' : 'wait'}">${delivery.status}</span></td>
  <td>${delivery.attempts.length}</td>
  <td>${last ? html`${attemptResult(last)} <span class="muted">${when(last.attempted_at)}, ${last.duration_ms} ms</span>` : html`<span class="muted">Not sent yet</span>`}</td>
  <td>${delivery.next_attempt_at ? when(delivery.next_attempt_at) : html`<span class="muted">—</span>`}</td>
</tr>`;
  });
  return layout({
    title: 'Webhook',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'webhooks',
    notice: data.notice ?? null,
    body: html`<p><a href="/dashboard/webhooks">← Webhooks</a></p>
<article class="card webhook" data-webhook-id="${webhook.id}" data-status="${webhook.status}">
<h1><code>${webhook.url}</code> ${statusBadge(webhook)}</h1>
<dl class="facts">
  <dt>Id</dt><dd><code>${webhook.id}</code></dd>
  <dt>Events</dt><dd>${webhook.events.map((e, i) => html`${i > 0 ? ', ' : ''}<code>${e}</code>`)}</dd>
  <dt>Consecutive failures</dt><dd class="failures">${webhook.consecutive_failures}</dd>
</dl>
${webhook.status === 'disabled' ? html`${disabledNote(webhook)}${reEnableButton(webhook, data.viewer)}` : ''}
</article>
<h2>Recent deliveries</h2>
${
  data.deliveries.length === 0
    ? html`<p class="empty">No deliveries yet.</p>`
    : html`<table class="list" id="deliveries">
<thead><tr><th>Event</th><th>Created</th><th>Status</th><th>Attempts</th><th>Last attempt</th><th>Next attempt</th></tr></thead>
<tbody>${rows}</tbody>
</table>
<p class="muted">Full delivery logs, redelivery and test events: <code>GET /v1/webhooks/${webhook.id}/deliveries</code>.</p>`
}`,
  });
}
