/** Single sign-on of the organisation: the identity provider's settings and the verified e-mail domains. */
import { html, type SafeHtml } from '../../html.js';
import { actionButton, csrfField, layout, type Viewer, when } from './layout.js';
import { type SamlFormValues, samlSection, type SamlServiceProviderView } from './sso-saml.js';

export interface SsoSettingsView {
  protocol: 'oidc' | 'saml';
  issuer: string;
  clientId: string;
  groupClaim: string;
  roleMapping: Record<string, string>;
  defaultRole: string;
  ssoRequired: boolean;
  updatedAt: string;
  saml: { ssoUrl: string; certificate: string; emailAttribute: string; allowIdpInitiated: boolean } | null;
}

export interface SsoDomainView {
  id: string;
  domain: string;
  token: string;
  fileUrl: string;
  verifiedAt: string | null;
}

/** What the form shows again after a refusal (never the secret). */
export interface SsoFormValues {
  issuer: string;
  clientId: string;
  groupClaim: string;
  roleMapping: string;
  defaultRole: string;
  ssoRequired: boolean;
}

const mappingText = (mapping: Record<string, string>) =>
  Object.entries(mapping)
    .map(([group, role]) => `${group} = ${role}`)
    .join('\n');

function settingsForm(data: { csrf: string; settings: SsoSettingsView | null; values: SsoFormValues | null }): SafeHtml {
  const s = data.settings?.protocol === 'oidc' ? data.settings : null;
  const v: SsoFormValues = data.values ?? {
    issuer: s?.issuer ?? '',
    clientId: s?.clientId ?? '',
    groupClaim: s?.groupClaim ?? 'groups',
    roleMapping: s ? mappingText(s.roleMapping) : '',
    defaultRole: s?.defaultRole ?? 'viewer',
    ssoRequired: s?.ssoRequired ?? false,
  };
  const roleOption = (role: string, label: string) =>
    html`<option value="${role}"${v.defaultRole === role ? html` selected` : ''}>${label}</option>`;
  return html`<form method="post" action="/dashboard/sso" class="stack" id="sso-form">
  ${csrfField(data.csrf)}
  <label for="sso-issuer">Issuer URL</label>
  <input id="sso-issuer" name="issuer" type="url" required maxlength="2000" value="${v.issuer}" placeholder="https://login.example.edu" autocomplete="off">
  <label for="sso-client-id">Client id</label>
  <input id="sso-client-id" name="client_id" required maxlength="500" value="${v.clientId}" autocomplete="off">
  <label for="sso-client-secret">Client secret</label>
  <input id="sso-client-secret" name="client_secret" type="password" maxlength="1000" autocomplete="new-password"${s ? '' : html` required`} aria-describedby="sso-secret-hint">
  <p class="muted" id="sso-secret-hint">${s ? 'Stored encrypted and never shown again. Leave empty to keep it; paste a new one to replace it.' : 'Stored encrypted and never shown again.'}</p>
  <label for="sso-group-claim">Group claim</label>
  <input id="sso-group-claim" name="group_claim" required maxlength="100" value="${v.groupClaim}" autocomplete="off">
  <label for="sso-role-mapping">Groups and roles (one per line: <code>group = admin</code> or <code>group = viewer</code>)</label>
  <textarea id="sso-role-mapping" name="role_mapping" rows="4" aria-describedby="sso-mapping-hint">${v.roleMapping}</textarea>
  <p class="muted" id="sso-mapping-hint">The highest role of the person’s mapped groups applies at each sign-in. Identity providers never make owners, and never change an owner’s role.</p>
  <label for="sso-default-role">Role of members in no mapped group</label>
  <select id="sso-default-role" name="default_role">${roleOption('viewer', 'Viewer')}${roleOption('admin', 'Admin')}</select>
  <label class="choice"><input id="sso-required" name="sso_required" type="checkbox" value="on"${v.ssoRequired ? html` checked` : ''}> <span>Require single sign-on: members cannot sign in with an e-mailed link (owners still can, in case the identity provider fails)</span></label>
  <button type="submit" class="primary">${s ? 'Save single sign-on' : 'Set up single sign-on'}</button>
</form>`;
}

function domainRow(domain: SsoDomainView, index: number, csrf: string): SafeHtml {
  const verified = domain.verifiedAt !== null;
  return html`<tr data-domain="${domain.domain}">
  <td data-label="Domain" class="break">${domain.domain}</td>
  <td data-label="Status">${verified ? html`<span class="badge ok">✓ Verified</span> ${when(domain.verifiedAt)}` : html`<span class="badge">Not verified</span>`}</td>
  <td data-label="Proof" class="break">${
    verified
      ? html`<span class="muted">Done</span>`
      : html`<label for="domain-token-${index}">TXT record on ${domain.domain}, or a line of ${domain.fileUrl}</label>
    <input id="domain-token-${index}" readonly value="${domain.token}">`
  }</td>
  <td>${verified ? '' : actionButton(`/dashboard/sso/domains/${domain.id}/verify`, `Check ${domain.domain}`, csrf)}
  ${actionButton(`/dashboard/sso/domains/${domain.id}/remove`, `Remove ${domain.domain}`, csrf, 'link danger-link')}</td>
</tr>`;
}

export function ssoPage(data: {
  styleUrl: string;
  viewer: Viewer;
  redirectUri: string;
  settings: SsoSettingsView | null;
  domains: SsoDomainView[];
  notice?: string | null;
  error?: string | null;
  values?: SsoFormValues | null;
  domainError?: string | null;
  serviceProvider: SamlServiceProviderView;
  samlError?: string | null;
  samlValues?: SamlFormValues | null;
}): SafeHtml {
  const csrf = data.viewer.csrfToken;
  return layout({
    title: 'Single sign-on',
    styleUrl: data.styleUrl,
    viewer: data.viewer,
    section: 'members',
    notice: data.notice ?? null,
    body: html`<p><a href="/dashboard/members">← Members</a></p>
<h1>Single sign-on</h1>
<p>Members whose e-mail address is in one of the verified domains below sign in through your identity provider (OpenID Connect or SAML 2.0) and join this organisation at their first sign-in. <a href="/docs/sso">How to set it up in Entra ID, Okta, Google Workspace or Shibboleth</a>.</p>
${
  data.settings
    ? html`<p id="sso-protocol">Members sign in with <strong>${data.settings.protocol === 'saml' ? 'SAML 2.0' : 'OpenID Connect'}</strong>.</p>
${actionButton('/dashboard/sso/remove', 'Turn single sign-on off', csrf, 'link danger-link')}`
    : ''
}
<section class="card stack">
<h2>1. Register voicename with your identity provider</h2>
<label for="sso-redirect-uri">Redirect URI</label>
<input id="sso-redirect-uri" readonly value="${data.redirectUri}">
<p class="muted">Scopes: <code>openid email profile</code>, and a claim listing the person’s groups.</p>
</section>
<section class="card stack" id="sso-settings">
<h2>2. Identity provider (OpenID Connect)</h2>
${data.settings ? html`<p class="muted">Last saved ${when(data.settings.updatedAt)}.</p>` : ''}
${data.error ? html`<p class="error" role="alert" id="sso-error">${data.error}</p>` : ''}
${settingsForm({ csrf, settings: data.settings, values: data.values ?? null })}
</section>
${samlSection({
  csrf,
  serviceProvider: data.serviceProvider,
  settings: data.settings,
  values: data.samlValues ?? null,
  error: data.samlError ?? null,
})}
<section class="card stack" id="sso-domains">
<h2>3. E-mail domains</h2>
<p>Only verified domains send sign-in to your identity provider. Publish the token as a DNS TXT record on the domain, or as one line of the file at the address shown, then check.</p>
${data.domainError ? html`<p class="error" role="alert" id="sso-domain-error">${data.domainError}</p>` : ''}
<form method="post" action="/dashboard/sso/domains" class="row">
  ${csrfField(csrf)}
  <label for="sso-domain">Domain</label>
  <input id="sso-domain" name="domain" required maxlength="253" placeholder="university.example" autocomplete="off">
  <button type="submit">Add domain</button>
</form>
${
  data.domains.length === 0
    ? html`<p class="muted">No domains yet.</p>`
    : html`<table class="list stacked" id="sso-domain-list">
<thead><tr><th>Domain</th><th>Status</th><th>Proof</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${data.domains.map((d, i) => domainRow(d, i, csrf))}</tbody>
</table>`
}
</section>`,
  });
}
