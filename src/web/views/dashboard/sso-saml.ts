/** The SAML 2.0 half of the single sign-on page: what to paste into the IdP, and the IdP's settings. */
import { html, type SafeHtml } from '../../html.js';
import { csrfField } from './layout.js';
import type { SsoSettingsView } from './sso.js';

/** Our side of the connection, shown to paste into the IdP. */
export interface SamlServiceProviderView {
  entityId: string;
  acsUrl: string;
  metadataUrl: string;
}

/** What the SAML form shows again after a refusal. */
export interface SamlFormValues {
  entityId: string;
  ssoUrl: string;
  certificate: string;
  emailAttribute: string;
  groupAttribute: string;
  roleMapping: string;
  defaultRole: string;
  ssoRequired: boolean;
  allowIdpInitiated: boolean;
}

const mappingText = (mapping: Record<string, string>) =>
  Object.entries(mapping)
    .map(([group, role]) => `${group} = ${role}`)
    .join('\n');

function samlForm(csrf: string, settings: SsoSettingsView | null, values: SamlFormValues | null): SafeHtml {
  const s = settings?.protocol === 'saml' ? settings : null;
  const v: SamlFormValues = values ?? {
    entityId: s?.issuer ?? '',
    ssoUrl: s?.saml?.ssoUrl ?? '',
    certificate: s?.saml?.certificate ?? '',
    emailAttribute: s?.saml?.emailAttribute ?? '',
    groupAttribute: s?.groupClaim ?? 'groups',
    roleMapping: s ? mappingText(s.roleMapping) : '',
    defaultRole: s?.defaultRole ?? 'viewer',
    ssoRequired: s?.ssoRequired ?? false,
    allowIdpInitiated: s?.saml?.allowIdpInitiated ?? false,
  };
  const roleOption = (role: string, label: string) =>
    html`<option value="${role}"${v.defaultRole === role ? html` selected` : ''}>${label}</option>`;
  const checked = (on: boolean) => (on ? html` checked` : '');
  return html`<form method="post" action="/dashboard/sso/saml" class="stack" id="saml-form">
  ${csrfField(csrf)}
  <label for="saml-entity-id">IdP entity id (issuer)</label>
  <input id="saml-entity-id" name="idp_entity_id" required maxlength="2000" value="${v.entityId}" placeholder="https://idp.university.example/idp/shibboleth" autocomplete="off">
  <label for="saml-sso-url">IdP single sign-on URL (HTTP-Redirect binding)</label>
  <input id="saml-sso-url" name="idp_sso_url" type="url" required maxlength="2000" value="${v.ssoUrl}" placeholder="https://idp.university.example/idp/profile/SAML2/Redirect/SSO" autocomplete="off">
  <label for="saml-certificate">IdP signing certificate (PEM)</label>
  <textarea id="saml-certificate" name="idp_certificate" rows="6" required aria-describedby="saml-certificate-hint">${v.certificate}</textarea>
  <p class="muted" id="saml-certificate-hint">Starts with <code>-----BEGIN CERTIFICATE-----</code>. Every assertion must be signed with its key.</p>
  <label for="saml-email-attribute">E-mail attribute (empty: the NameID, format emailAddress)</label>
  <input id="saml-email-attribute" name="email_attribute" maxlength="200" value="${v.emailAttribute}" autocomplete="off">
  <label for="saml-group-attribute">Group attribute</label>
  <input id="saml-group-attribute" name="group_attribute" required maxlength="200" value="${v.groupAttribute}" autocomplete="off">
  <label for="saml-role-mapping">SAML groups and roles (one per line: <code>group = admin</code> or <code>group = viewer</code>)</label>
  <textarea id="saml-role-mapping" name="role_mapping" rows="4">${v.roleMapping}</textarea>
  <label for="saml-default-role">Default role for SAML members in no mapped group</label>
  <select id="saml-default-role" name="default_role">${roleOption('viewer', 'Viewer')}${roleOption('admin', 'Admin')}</select>
  <label class="choice"><input id="saml-required" name="sso_required" type="checkbox" value="on"${checked(v.ssoRequired)}> <span>Require SAML sign-on: members cannot sign in with an e-mailed link (owners still can, in case the identity provider fails)</span></label>
  <label class="choice"><input id="saml-idp-initiated" name="allow_idp_initiated" type="checkbox" value="on"${checked(v.allowIdpInitiated)} aria-describedby="saml-idp-initiated-hint"> <span>Accept sign-ins started at the identity provider (IdP-initiated)</span></label>
  <p class="muted" id="saml-idp-initiated-hint">Off is safer: an unsolicited response cannot be tied to the browser that receives it, so a page elsewhere could sign someone in as another member.</p>
  <button type="submit" class="primary">${s ? 'Save SAML single sign-on' : 'Use SAML single sign-on'}</button>
</form>`;
}

export function samlSection(data: {
  csrf: string;
  serviceProvider: SamlServiceProviderView;
  settings: SsoSettingsView | null;
  values: SamlFormValues | null;
  error: string | null;
}): SafeHtml {
  const sp = data.serviceProvider;
  return html`<section class="card stack" id="sso-saml">
<h2>SAML 2.0</h2>
<p>For Shibboleth and other SAML identity providers, instead of OpenID Connect (saving one replaces the other). Paste these into your IdP, or give it the metadata address:</p>
<label for="saml-sp-entity-id">Entity id (audience)</label>
<input id="saml-sp-entity-id" readonly value="${sp.entityId}">
<label for="saml-sp-acs">Assertion consumer service URL (HTTP-POST)</label>
<input id="saml-sp-acs" readonly value="${sp.acsUrl}">
<p class="muted">NameID format <code>emailAddress</code>; signed assertions required. <a href="${sp.metadataUrl}">Service provider metadata (XML)</a></p>
${data.error ? html`<p class="error" role="alert" id="saml-error">${data.error}</p>` : ''}
${samlForm(data.csrf, data.settings, data.values)}
</section>`;
}
