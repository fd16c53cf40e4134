/** API key pages: the list with the create form, the one-time reveal, and the revoke confirmation. */
import { html, type SafeHtml } from '../../html.js';
import { confirmationPage, csrfField, layout, type Viewer, when } from './layout.js';

export interface KeyItem {
  id: string;
  name: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

const status = (key: KeyItem): SafeHtml =>
  key.revoked_at === null
    ? html`<span class="badge ok">Active</span>`
    : html`<span class="badge off">Revoked</span> <span class="muted">${when(key.revoked_at)}</span>`;

export const MAX_KEY_NAME = 100;

export function apiKeysPage(data: {
  styleUrl: string;
  viewer: Viewer;
  keys: KeyItem[];
  notice?: string | null;
  error?: string | null;
  /** The "Provisioning (SCIM)" card, shown below the keys. */
  provisioning?: SafeHtml;
}): SafeHtml {
  const rows = data.keys.map(
    (key) => html`<tr data-key-id="${key.id}" data-prefix="${key.prefix}">
  <td>${key.name ?? html`<span class="muted">Unnamed</span>`}</td>
  <td><code>${key.prefix}…</code></td>
  <td>${when(key.created_at)}</td>
  <td>${when(key.last_used_at)}</td>
  <td>${status(key)}</td>
  <td>${key.revoked_at === null ? html`<a class="danger-link" href="/dashboard/api-keys/${key.id}/revoke">Revoke…</a>` : ''}</td>
</tr>`,
  );
  return layout({
    title: 'API keys',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'api-keys',
    notice: data.notice ?? null,
    body: html`<h1>API keys</h1>
<p>Keys authenticate requests to the <code>/v1</code> API: <code>Authorization: Bearer &lt;key&gt;</code>. A key is shown once, when it is created; only a hash is stored.</p>
<section class="card">
<h2>Create a key</h2>
<form method="post" action="/dashboard/api-keys" class="row">
  ${csrfField(data.viewer.csrfToken)}
  <label for="key-name">Name <span class="muted">(what uses it, e.g. “production server”)</span></label>
  <input id="key-name" name="name" maxlength="${MAX_KEY_NAME}" autocomplete="off"
    ${data.error ? html`aria-invalid="true" aria-describedby="key-name-error"` : ''}>
  <button type="submit" class="primary">Create key</button>
  ${data.error ? html`<p class="error" id="key-name-error">${data.error}</p>` : ''}
</form>
</section>
${
  data.keys.length === 0
    ? html`<p class="empty" id="no-keys">No keys yet.</p>`
    : html`<table class="list" id="keys">
<thead><tr><th>Name</th><th>Key</th><th>Created</th><th>Last used</th><th>Status</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
${data.provisioning ?? ''}`,
  });
}

export function apiKeyCreatedPage(data: {
  styleUrl: string;
  viewer: Viewer;
  key: string;
  name: string | null;
  baseUrl: string;
}): SafeHtml {
  return layout({
    title: 'API key created',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'api-keys',
    body: html`<section class="card">
<h1>Your new API key${data.name ? html`: ${data.name}` : ''}</h1>
<p class="warning"><strong>Copy it now.</strong> This is the only time it is shown; we keep only a hash. If you lose it, create another and revoke this one.</p>
<label for="new-key">API key</label>
<input id="new-key" class="secret" readonly value="${data.key}" spellcheck="false" autocomplete="off">
<p>Try it:</p>
<pre><code>curl ${data.baseUrl}/v1/collections \\
  -H "Authorization: Bearer ${data.key}"</code></pre>
<p><a href="/dashboard/api-keys" class="button">I have copied it</a></p>
</section>`,
  });
}

export function revokeKeyPage(data: { styleUrl: string; viewer: Viewer; key: KeyItem }): SafeHtml {
  return confirmationPage({
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'api-keys',
    title: 'Revoke API key',
    heading: html`Revoke ${data.key.name ?? 'this key'}?`,
    details: html`<p>Key <code>${data.key.prefix}…</code>, last used ${when(data.key.last_used_at)}.</p>
<p class="warning">Requests with this key fail with 401 from the moment you revoke it. This cannot be undone.</p>`,
    action: `/dashboard/api-keys/${data.key.id}/revoke`,
    actionLabel: 'Revoke key',
    tone: 'danger',
    cancelHref: '/dashboard/api-keys',
  });
}
