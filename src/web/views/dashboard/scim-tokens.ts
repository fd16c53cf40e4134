/** The "Provisioning (SCIM)" card of the API keys page, the token's one-time reveal, and the revoke confirmation. */
import { html, type SafeHtml } from '../../html.js';
import { canChange, confirmationPage, csrfField, layout, type Viewer, when } from './layout.js';

export interface ScimTokenItem {
  id: string;
  name: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export const MAX_SCIM_TOKEN_NAME = 100;

const status = (token: ScimTokenItem): SafeHtml =>
  token.revoked_at === null
    ? html`<span class="badge ok">Active</span>`
    : html`<span class="badge off">Revoked</span> <span class="muted">${when(token.revoked_at)}</span>`;

/** The card: what SCIM does here, the tenant URL, the create form (admins and owners) and the tokens. */
export function scimCard(data: { viewer: Viewer; tokens: ScimTokenItem[]; baseUrl: string; error?: string | null }): SafeHtml {
  const canManage = canChange(data.viewer);
  const rows = data.tokens.map(
    (token) => html`<tr data-scim-token-id="${token.id}" data-prefix="${token.prefix}">
  <td>${token.name ?? html`<span class="muted">Unnamed</span>`}</td>
  <td><code>${token.prefix}…</code></td>
  <td>${when(token.created_at)}</td>
  <td>${when(token.last_used_at)}</td>
  <td>${status(token)}</td>
  <td>${token.revoked_at === null && canManage ? html`<a class="danger-link" href="/dashboard/scim-tokens/${token.id}/revoke">Revoke…</a>` : ''}</td>
</tr>`,
  );
  return html`<section class="card" id="scim" aria-labelledby="scim-heading">
<h2 id="scim-heading">Provisioning (SCIM)</h2>
<p>Your identity provider (Entra ID, Okta) creates and removes people for you: each group it pushes becomes a collection, and the group’s members its people. Tenant URL: <code>${data.baseUrl}/scim/v2</code>. <a href="/docs/scim">How to set it up</a>.</p>
${
  canManage
    ? html`<form method="post" action="/dashboard/scim-tokens" class="row">
  ${csrfField(data.viewer.csrfToken)}
  <label for="scim-token-name">Token name <span class="muted">(which identity provider uses it)</span></label>
  <input id="scim-token-name" name="name" maxlength="${MAX_SCIM_TOKEN_NAME}" autocomplete="off"
    ${data.error ? html`aria-invalid="true" aria-describedby="scim-token-name-error"` : ''}>
  <button type="submit" class="primary">Create SCIM token</button>
  ${data.error ? html`<p class="error" id="scim-token-name-error">${data.error}</p>` : ''}
</form>`
    : html`<p class="muted">Admins and owners create and revoke SCIM tokens.</p>`
}
${
  data.tokens.length === 0
    ? html`<p class="empty" id="no-scim-tokens">No SCIM tokens yet.</p>`
    : html`<table class="list" id="scim-tokens">
<caption class="visually-hidden">SCIM tokens</caption>
<thead><tr><th>Name</th><th>Token</th><th>Created</th><th>Last used</th><th>Status</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${rows}</tbody>
</table>`
}
</section>`;
}

export function scimTokenCreatedPage(data: {
  styleUrl: string;
  viewer: Viewer;
  token: string;
  name: string | null;
  baseUrl: string;
}): SafeHtml {
  return layout({
    title: 'SCIM token created',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'api-keys',
    body: html`<section class="card">
<h1>Your new SCIM token${data.name ? html`: ${data.name}` : ''}</h1>
<p class="warning"><strong>Copy it now.</strong> This is the only time it is shown; we keep only a hash. If you lose it, create another and revoke this one.</p>
<label for="tenant-url">Tenant URL</label>
<input id="tenant-url" readonly value="${data.baseUrl}/scim/v2" spellcheck="false" autocomplete="off">
<label for="new-scim-token">Secret token</label>
<input id="new-scim-token" class="secret" readonly value="${data.token}" spellcheck="false" autocomplete="off">
<p>Paste both into your identity provider’s provisioning settings (<a href="/docs/scim">Entra ID and Okta, step by step</a>).</p>
<p><a href="/dashboard/api-keys#scim" class="button">I have copied it</a></p>
</section>`,
  });
}

export function revokeScimTokenPage(data: { styleUrl: string; viewer: Viewer; token: ScimTokenItem }): SafeHtml {
  return confirmationPage({
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'api-keys',
    title: 'Revoke SCIM token',
    heading: html`Revoke ${data.token.name ?? 'this SCIM token'}?`,
    details: html`<p>Token <code>${data.token.prefix}…</code>, last used ${when(data.token.last_used_at)}.</p>
<p class="warning">Your identity provider’s requests with this token fail with 401 from the moment you revoke it, so people stop being provisioned until you give it a new token. This cannot be undone.</p>`,
    action: `/dashboard/scim-tokens/${data.token.id}/revoke`,
    actionLabel: 'Revoke token',
    tone: 'danger',
    cancelHref: '/dashboard/api-keys#scim',
  });
}
