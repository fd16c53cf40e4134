/** Row types of SCIM provisioning (0030; src/features/scim). How values are stored: `../schema.ts`. */

export interface ScimTokensTable {
  id: string;
  account_id: string;
  /** Public lookup part of the token (`vnscim_` + 12 characters). */
  prefix: string;
  /** SHA-256 hex of the whole token. */
  token_hash: string;
  name: string | null;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** An identity an identity provider manages for the organisation (a SCIM User). */
export interface ScimUsersTable {
  id: string;
  account_id: string;
  user_name: string;
  /** Lower-cased `user_name`: unique per organisation. */
  user_name_key: string;
  external_id: string | null;
  /** The primary (else first) e-mail, lower-cased: what filters on `emails` compare. */
  email: string | null;
  /** 1 active, 0 deactivated. */
  active: number;
  /** The SCIM representation as JSON, without `id` and `meta`. */
  resource: string;
  /** Bumped by every change: the weak ETag `W/"<version>"`. */
  version: number;
  created_at: string;
  updated_at: string;
}

/** A SCIM Group: one collection. */
export interface ScimGroupsTable {
  id: string;
  account_id: string;
  collection_id: string;
  display_name: string;
  /** Lower-cased `display_name`: unique per organisation. */
  display_name_key: string;
  external_id: string | null;
  version: number;
  created_at: string;
  updated_at: string;
}

/** A member of a group, and the person that membership made in the group's collection. */
export interface ScimGroupMembersTable {
  group_id: string;
  scim_user_id: string;
  person_id: string;
  created_at: string;
}
