/**
 * The SAML half of an organisation's single sign-on settings: the IdP's entity id, its single
 * sign-on URL, its signing certificate (checked as X.509 on save), the e-mail and group
 * attributes, and whether IdP-initiated sign-in is accepted; role mapping, default role and "SSO
 * required" as for OpenID Connect. Saving replaces an OpenID Connect connection.
 */
import { X509Certificate } from 'node:crypto';
import { invalid } from '../../errors.js';
import { isoNow } from '../../lib/clock.js';
import { upsertConnection } from './repo.js';
import { connectionOf, parseRoleMapping, requireText, SSO_ROLES, type SsoDeps, type SsoRole } from './service.js';

/** A certificate as PEM, from PEM or bare base64 (Entra's "Base64" download); refused unless it parses as X.509. */
export function normalizeCertificate(text: string): string {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  const lines = /^[A-Za-z0-9+/]+={0,2}$/.test(body) ? body.match(/.{1,64}/g) : null;
  const pem = lines ? `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n` : '';
  try {
    new X509Certificate(pem);
  } catch {
    throw invalid(
      "The IdP's signing certificate must be an X.509 certificate in PEM (-----BEGIN CERTIFICATE-----).",
      'idp_certificate',
    );
  }
  return pem;
}

export interface SamlSettingsInput {
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

/** Saves the organisation's SAML IdP (replacing an OpenID Connect one). Returns what changed, for the audit log. */
export async function saveSamlSettings(
  deps: SsoDeps,
  accountId: string,
  input: SamlSettingsInput,
): Promise<{ changed: string[] }> {
  const entityId = requireText(input.entityId, 'idp_entity_id', "The IdP's entity id", 2000);
  const ssoUrl = requireText(input.ssoUrl, 'idp_sso_url', "The IdP's single sign-on URL", 2000);
  const url = URL.canParse(ssoUrl) ? new URL(ssoUrl) : null;
  const schemes = deps.config.webhooks.allowPrivateUrls ? ['https:', 'http:'] : ['https:'];
  if (!url || !schemes.includes(url.protocol))
    throw invalid("The IdP's single sign-on URL must be an https:// address.", 'idp_sso_url');
  const certificate = normalizeCertificate(input.certificate);
  const emailAttribute =
    input.emailAttribute.trim() === '' ? '' : requireText(input.emailAttribute, 'email_attribute', 'The e-mail attribute', 200);
  const groupAttribute = requireText(input.groupAttribute || 'groups', 'group_attribute', 'The group attribute', 200);
  const roleMapping = parseRoleMapping(input.roleMapping);
  if (!SSO_ROLES.includes(input.defaultRole as SsoRole))
    throw invalid('The default role must be admin or viewer.', 'default_role');
  const defaultRole = input.defaultRole as SsoRole;
  const existing = await connectionOf(deps, accountId);
  const now = isoNow(deps.clock);
  await upsertConnection(deps.db.kysely, {
    account_id: accountId,
    protocol: 'saml',
    issuer: entityId,
    client_id: '',
    client_secret_sealed: '',
    group_claim: groupAttribute,
    role_mapping: JSON.stringify(roleMapping),
    default_role: defaultRole,
    sso_required: input.ssoRequired ? 1 : 0,
    saml_sso_url: ssoUrl,
    saml_idp_cert: certificate,
    saml_email_attribute: emailAttribute,
    saml_allow_idp_initiated: input.allowIdpInitiated ? 1 : 0,
    created_at: now,
    updated_at: now,
  });
  if (!existing || existing.protocol !== 'saml' || !existing.saml) return { changed: [existing ? 'protocol' : 'created'] };
  const before: Record<string, unknown> = {
    entityId: existing.issuer,
    ssoUrl: existing.saml.ssoUrl,
    certificate: existing.saml.certificate,
    emailAttribute: existing.saml.emailAttribute,
    groupAttribute: existing.groupClaim,
    roleMapping: existing.roleMapping,
    defaultRole: existing.defaultRole,
    ssoRequired: existing.ssoRequired,
    allowIdpInitiated: existing.saml.allowIdpInitiated,
  };
  const after: Record<string, unknown> = {
    entityId,
    ssoUrl,
    certificate,
    emailAttribute,
    groupAttribute,
    roleMapping,
    defaultRole,
    ssoRequired: input.ssoRequired,
    allowIdpInitiated: input.allowIdpInitiated,
  };
  return { changed: Object.keys(after).filter((key) => JSON.stringify(after[key]) !== JSON.stringify(before[key])) };
}
