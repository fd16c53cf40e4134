/**
 * SCIM representations (RFC 7643): what a User or Group body must hold, what the stored row
 * keeps of it, and the resource as answered, with `meta` (resourceType, created, lastModified,
 * location, a weak ETag version) and the `attributes` / `excludedAttributes` projection.
 */
import { invalidSyntax, invalidValue } from './errors.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_USER_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_RESPONSE_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_OP_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/** The longest userName, displayName or e-mail kept (what a person's fields allow too). */
const MAX_TEXT = 320;
const MAX_GROUP_NAME = 255;

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** SCIM booleans; Entra ID sends some as the strings "True" / "False". */
export function scimBoolean(value: unknown, attribute: string): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string' && /^(true|false)$/i.test(value)) return value.toLowerCase() === 'true';
  throw invalidValue(`"${attribute}" must be a boolean.`);
}

function text(value: unknown, attribute: string, required: boolean): string | null {
  if (value === undefined || value === null) {
    if (required) throw invalidValue(`"${attribute}" is required.`);
    return null;
  }
  if (typeof value !== 'string') throw invalidValue(`"${attribute}" must be a string.`);
  const trimmed = value.trim();
  if (required && trimmed === '') throw invalidValue(`"${attribute}" must not be empty.`);
  if ([...trimmed].length > MAX_TEXT) throw invalidValue(`"${attribute}" is longer than ${MAX_TEXT} characters.`);
  return trimmed === '' ? null : trimmed;
}

function checkSchemas(body: Json, core: string): void {
  const schemas = body.schemas;
  if (schemas === undefined) return;
  if (!Array.isArray(schemas) || !schemas.includes(core)) throw invalidSyntax(`"schemas" must list "${core}".`);
}

/** What the service keeps of a User: the columns it searches, and the representation itself. */
export interface UserFields {
  userName: string;
  externalId: string | null;
  email: string | null;
  active: boolean;
  givenName: string | null;
  familyName: string | null;
  displayName: string | null;
  /** The body without `id` and `meta`, `active` as a boolean, `schemas` listing what it holds. */
  resource: Json;
}

function primaryEmail(emails: unknown): string | null {
  if (emails === undefined || emails === null) return null;
  if (!Array.isArray(emails)) throw invalidValue('"emails" must be an array.');
  for (const email of emails) {
    if (!isObject(email)) throw invalidValue('Each of "emails" must be an object with a "value".');
    text(email.value, 'emails.value', false);
  }
  const chosen = (emails as Json[]).find((e) => e.primary === true || e.primary === 'True' || e.primary === 'true') ?? emails[0];
  return chosen === undefined ? null : text((chosen as Json).value, 'emails.value', false);
}

/** Checks a User body (POST, PUT, or the result of a PATCH) and reads what is kept of it. */
export function readUser(body: unknown): UserFields {
  if (!isObject(body)) throw invalidSyntax('The body must be a JSON object.');
  checkSchemas(body, USER_SCHEMA);
  const userName = text(body.userName, 'userName', true) as string;
  const name = body.name ?? null;
  if (name !== null && !isObject(name)) throw invalidValue('"name" must be an object.');
  const enterprise = body[ENTERPRISE_USER_SCHEMA];
  if (enterprise !== undefined && !isObject(enterprise)) throw invalidValue(`"${ENTERPRISE_USER_SCHEMA}" must be an object.`);
  const active = body.active === undefined ? true : scimBoolean(body.active, 'active');
  const resource: Json = { ...body, active };
  delete resource.id;
  delete resource.meta;
  resource.schemas = enterprise === undefined ? [USER_SCHEMA] : [USER_SCHEMA, ENTERPRISE_USER_SCHEMA];
  return {
    userName,
    externalId: text(body.externalId, 'externalId', false),
    email: primaryEmail(body.emails),
    active,
    givenName: name ? text(name.givenName, 'name.givenName', false) : null,
    familyName: name ? text(name.familyName, 'name.familyName', false) : null,
    displayName: text(body.displayName, 'displayName', false) ?? (name ? text(name.formatted, 'name.formatted', false) : null),
    resource,
  };
}

export interface GroupFields {
  displayName: string;
  externalId: string | null;
  /** The ids of the members (Users); duplicates removed. */
  memberIds: string[];
}

export function readGroup(body: unknown): GroupFields {
  if (!isObject(body)) throw invalidSyntax('The body must be a JSON object.');
  checkSchemas(body, GROUP_SCHEMA);
  const members = body.members ?? [];
  if (!Array.isArray(members)) throw invalidValue('"members" must be an array.');
  const memberIds = members.map((member) => {
    if (!isObject(member) || typeof member.value !== 'string' || member.value === '') {
      throw invalidValue('Each member must be an object with the User\'s id as "value".');
    }
    if (member.type !== undefined && member.type !== 'User') throw invalidValue('Only Users can be members of a group.');
    return member.value;
  });
  const displayName = text(body.displayName, 'displayName', true) as string;
  // The group's collection is named by it, and a collection's name is at most this long.
  if ([...displayName].length > MAX_GROUP_NAME) throw invalidValue(`"displayName" is longer than ${MAX_GROUP_NAME} characters.`);
  return {
    displayName,
    externalId: text(body.externalId, 'externalId', false),
    memberIds: [...new Set(memberIds)],
  };
}

export interface Meta {
  resourceType: 'User' | 'Group';
  created: string;
  lastModified: string;
  location: string;
  version: string;
}

export const versionTag = (version: number) => `W/"${version}"`;

export const metaOf = (
  resourceType: 'User' | 'Group',
  baseUrl: string,
  row: { id: string; created_at: string; updated_at: string; version: number },
): Meta => ({
  resourceType,
  created: row.created_at,
  lastModified: row.updated_at,
  location: `${baseUrl}/scim/v2/${resourceType}s/${row.id}`,
  version: versionTag(row.version),
});

/** Attributes returned whatever `attributes` says (RFC 7643 §7, "returned": "always"). */
const ALWAYS = new Set(['id', 'schemas', 'meta']);

/** The top-level attribute a path names (`name.givenName` → `name`; an extension URN's attribute → the extension). */
function topLevel(path: string, extensions: string[]): string {
  const lower = path.toLowerCase();
  const extension = extensions.find((urn) => lower.startsWith(`${urn.toLowerCase()}:`) || lower === urn.toLowerCase());
  if (extension) return extension;
  const withoutCore = lower.startsWith('urn:') ? lower.slice(lower.lastIndexOf(':') + 1) : lower;
  return withoutCore.split('.')[0] as string;
}

/** Applies `attributes` (only these, plus id/schemas/meta) or `excludedAttributes` (all but these). */
export function project(resource: Json, query: { attributes?: string; excludedAttributes?: string }): Json {
  const extensions = Object.keys(resource).filter((key) => key.startsWith('urn:'));
  const listed = (value: string | undefined) =>
    value === undefined || value.trim() === ''
      ? null
      : new Set(
          value
            .split(',')
            .map((p) => p.trim())
            .filter(Boolean)
            .map((p) => topLevel(p, extensions)),
        );
  const only = listed(query.attributes);
  const excluded = listed(query.excludedAttributes);
  if (!only && !excluded) return resource;
  const out: Json = {};
  for (const [key, value] of Object.entries(resource)) {
    const name = key.startsWith('urn:') ? key : key.toLowerCase();
    if (ALWAYS.has(key) || (only ? only.has(name) : !excluded?.has(name))) out[key] = value;
  }
  return out;
}
