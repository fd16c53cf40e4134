/**
 * Row types of accounts (organisations), their members, invitations, API keys, dashboard sign-in
 * and the audit log. How values are stored: `../schema.ts`.
 */

export interface AccountsTable {
  id: string;
  email: string;
  /** What the organisation is called; null: its e-mail. */
  name: string | null;
  created_at: string;
}

export type MemberRole = 'owner' | 'admin' | 'viewer';

/** A person's membership of an organisation (an `accounts` row is the organisation). */
export interface AccountMembersTable {
  account_id: string;
  /** Lower-cased e-mail of the person. */
  email: string;
  role: MemberRole;
  created_at: string;
  /** E-mail of the member who invited this one; null for the owner the account started with. */
  invited_by: string | null;
}

/** An e-mailed invitation to join an organisation (single use, expires). */
export interface AccountInvitationsTable {
  id: string;
  /** SHA-256 hex of the token in the link. */
  token_hash: string;
  account_id: string;
  email: string;
  role: MemberRole;
  invited_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** Who did what to an organisation's data, written when a mutating request succeeds. */
export interface AuditLogTable {
  id: string;
  account_id: string;
  actor_kind: 'member' | 'api_key';
  /** The member's e-mail, or the API key's public prefix. */
  actor: string;
  /** The API key's name; null for members. */
  actor_name: string | null;
  /** e.g. `api_key.created`, `webhook.deleted`. */
  action: string;
  object_id: string | null;
  /** What the entry decided beyond its action, as a JSON object (0026: a review's `decision` and `note`); null for most. */
  detail: string | null;
  ip: string;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  /** Public lookup part of the key (`vn_` + first 12 characters of the secret). */
  prefix: string;
  /** SHA-256 hex of the whole key. */
  key_hash: string;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A passwordless sign-in link of the dashboard (single use, short-lived). */
export interface DashboardSignInTokensTable {
  /** SHA-256 hex of the token in the link. */
  token_hash: string;
  email: string;
  /** SHA-256 hex of the browser-binding cookie of the browser that asked for the link. */
  browser_hash: string | null;
  /** SHA-256 hex of the client address that asked (rate limit). */
  ip_hash: string;
  /** 1 when the link was mailed; 0 when the address's mail budget was spent (nobody holds the token). */
  mailed: number;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A signed-in dashboard browser: a person, acting in one organisation. */
export interface DashboardSessionsTable {
  /** SHA-256 hex of the session id in the cookie. */
  id_hash: string;
  /** The signed-in person. */
  email: string;
  /** The organisation the session acts in; null until a person with several picks one. */
  account_id: string | null;
  created_at: string;
  expires_at: string;
  user_agent: string | null;
  /** The organisation whose identity provider signed this session in; null for an e-mailed link. */
  sso_account_id: string | null;
}
