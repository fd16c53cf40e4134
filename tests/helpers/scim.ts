/** SCIM test helpers: an organisation with a SCIM token, and requests as an identity provider sends them. */
import type { LightMyRequestResponse } from 'fastify';
import { authenticate } from '../../src/features/api-keys/service.js';
import { createScimToken } from '../../src/features/scim/token-service.js';
import type { TestApp } from './app.js';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

export interface ScimOrg {
  /** The organisation's /v1 API key (what its organiser's tools use). */
  key: string;
  accountId: string;
  token: string;
}

export async function newScimOrg(t: TestApp): Promise<ScimOrg> {
  const { key } = await t.newAccount();
  const { accountId } = await authenticate(t.deps, `Bearer ${key}`);
  const { token } = await createScimToken(t.deps, accountId, 'Identity provider');
  return { key, accountId, token };
}

/** A SCIM request: `application/scim+json` body, the token as bearer. */
export function scim(
  t: TestApp,
  token: string | null,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method,
    url: `/scim/v2${url}`,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
      accept: 'application/scim+json',
      ...headers,
    },
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

export const userBody = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER_SCHEMA],
  userName,
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [{ value: userName, type: 'work', primary: true }],
  active: true,
  ...extra,
});

/** The people of a collection as its organiser sees them through /v1. */
export async function peopleOf(t: TestApp, key: string, collectionId: string) {
  const res = await t.request({ method: 'GET', url: `/v1/collections/${collectionId}/users?limit=100`, key });
  return res.json().data as {
    id: string;
    email: string;
    first_name: string;
    last_name: string;
    display_name: string;
    external_id: string | null;
    record_url: string;
  }[];
}
