/** Single sign-on rows (OpenID Connect or SAML 2.0 per organisation). */
import type { MemberRole } from './accounts.js';

export interface SsoConnectionsTable {
  account_id: string;
  issuer: string;
  client_id: string;
  /** The client secret sealed with AES-256-GCM (`src/lib/secret-box.ts`); never the secret itself. */
  client_secret_sealed: string;
  group_claim: string;
  /** JSON text: `{ "<group>": "admin" | "viewer" }`. */
  role_mapping: string;
  default_role: Exclude<MemberRole, 'owner'>;
  sso_required: number;
  created_at: string;
  updated_at: string;
  /** `oidc` or `saml`; a SAML row keeps the IdP's entity id in `issuer` and empty client fields. */
  protocol: 'oidc' | 'saml';
  /** SAML: the IdP's single sign-on URL (HTTP-Redirect binding). */
  saml_sso_url: string | null;
  /** SAML: the IdP's signing certificate, PEM. */
  saml_idp_cert: string | null;
  /** SAML: the attribute carrying the e-mail address (empty: the NameID). */
  saml_email_attribute: string | null;
  /** SAML: 1 when unsolicited (IdP-initiated) responses are accepted. */
  saml_allow_idp_initiated: number;
}

export interface SsoDomainsTable {
  id: string;
  account_id: string;
  domain: string;
  token: string;
  verified_at: string | null;
  created_at: string;
}

export interface SsoSignInStatesTable {
  /** SHA-256 hex of the `state` sent to the identity provider. */
  state_hash: string;
  account_id: string;
  /** SHA-256 hex of the browser's sign-in binding cookie. */
  browser_hash: string;
  /** SHA-256 hex of `ip:<client address>`, as sign-in links keep it: the rate limit counts by it. */
  ip_hash: string;
  nonce: string;
  code_verifier: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface SsoSamlAssertionsTable {
  /** SHA-256 hex of `<IdP entity id> <assertion ID>`. */
  assertion_hash: string;
  account_id: string;
  used_at: string;
  expires_at: string;
}

export interface SsoSamlTicketsTable {
  /** SHA-256 hex of the one-time ticket the ACS hands to the browser. */
  ticket_hash: string;
  account_id: string;
  email: string;
  role: Exclude<MemberRole, 'owner'>;
  /** SHA-256 hex of the sign-in cookie that started the sign-in; null for an IdP-initiated one. */
  browser_hash: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}
