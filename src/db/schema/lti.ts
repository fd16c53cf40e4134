/** Row types of the LTI 1.3 tool (migration 0032). How values are stored: `../schema.ts`. */

/** A learning platform an organisation registered the tool with. */
export interface LtiRegistrationsTable {
  id: string;
  account_id: string;
  /** The platform's issuer (`iss` of its id_tokens). */
  issuer: string;
  /** The client id the platform gave the tool (`aud` of its id_tokens). */
  client_id: string;
  /** JSON array of the deployment ids accepted in launches. */
  deployment_ids: string;
  auth_url: string;
  token_url: string;
  jwks_url: string;
  created_at: string;
  updated_at: string;
}

/** One of the tool's RS256 keys, published at `/lti/jwks`. */
export interface LtiToolKeysTable {
  kid: string;
  /** JSON of the public JWK. */
  public_jwk: string;
  /** The PKCS#8 private key, AES-256-GCM sealed (`iv.tag.ciphertext`, base64url). */
  private_key_sealed: string;
  created_at: string;
  /** Signs from this time on (published before, so platforms have fetched it first). */
  signs_from: string;
  /** Unpublished from this time on; null while it is the newest key. */
  retires_at: string | null;
}

/** A login initiation's nonce, bound to the browser's state; `used_at` once a launch consumed it. */
/** A verified launch waiting for its browser to read the state back from the platform's storage. */
export interface LtiLaunchTicketsTable {
  /** SHA-256 hex of the one-time ticket. */
  ticket_hash: string;
  /** SHA-256 hex of the login's state, which the browser must send back. */
  state_hash: string;
  registration_id: string;
  /** The verified launch's claims (JSON). */
  launch: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface LtiLaunchNoncesTable {
  nonce: string;
  /** SHA-256 hex of the state (the browser holds the state itself in a cookie). */
  state_hash: string;
  /** The login initiation's parameters as a query string: a launch whose browser withheld the state cookie starts again from it in a new window. */
  login_query: string;
  registration_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

/** A course of a registration and its collection. */
export interface LtiContextsTable {
  id: string;
  registration_id: string;
  context_id: string;
  collection_id: string;
  title: string;
  /** NRPS `context_memberships_url`; null when the platform offered none. */
  memberships_url: string | null;
  deployment_id: string;
  /** NRPS `Link: rel="differences"` of the last roster read: the changes since then. */
  differences_url: string | null;
  synced_at: string | null;
  /** The last read of the whole roster (differences are applied between full reads). */
  full_synced_at: string | null;
  /** JSON array of the origins the course's launches came from: who may frame its pages. */
  frame_origins: string | null;
  created_at: string;
}

/** A person of a course's collection who came from the platform. */
export interface LtiRosterTable {
  user_id: string;
  context_row_id: string;
  lti_user_id: string;
  /** When a roster sync no longer found them in the course. */
  departed_at: string | null;
  synced_at: string;
}

/** A registration URL's secret for LTI Dynamic Registration (migration 0034): single use, expiring, revocable. */
export interface LtiRegistrationLinksTable {
  id: string;
  account_id: string;
  /** The token's public lookup part (`vnltireg_` + 12 characters). */
  prefix: string;
  /** SHA-256 (hex) of the whole token. */
  token_hash: string;
  /** E-mail of the member who minted it (the audit log's actor for the registration it makes). */
  created_by: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  /** The registration it made, once used. */
  registration_id: string | null;
  revoked_at: string | null;
}
