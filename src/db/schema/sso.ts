/** Single sign-on rows (OpenID Connect per organisation). */
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
