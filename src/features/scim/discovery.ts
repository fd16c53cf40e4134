/**
 * The discovery documents (RFC 7644 §4): ServiceProviderConfig, ResourceTypes and Schemas. They
 * describe what this server does (PATCH yes, bulk and sort no, filter with at most MAX_COUNT
 * results a page, ETags, one bearer token per organisation) and require the token like every
 * other SCIM request, since the IdP holds it anyway and nothing is served to strangers.
 */
import { MAX_COUNT } from './filter.js';
import { ENTERPRISE_USER_SCHEMA, GROUP_SCHEMA, type Json, USER_SCHEMA } from './resources.js';

const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

const docsUrl = (baseUrl: string) => `${baseUrl}/docs/scim`;
const meta = (baseUrl: string, resourceType: string, path: string) => ({ resourceType, location: `${baseUrl}/scim/v2/${path}` });

export const serviceProviderConfig = (baseUrl: string): Json => ({
  schemas: [SPC_SCHEMA],
  documentationUri: docsUrl(baseUrl),
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_COUNT },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: true },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'Bearer token',
      description: 'The organisation’s SCIM token, created in the dashboard: "Authorization: Bearer vnscim_…".',
      documentationUri: docsUrl(baseUrl),
      primary: true,
    },
  ],
  meta: meta(baseUrl, 'ServiceProviderConfig', 'ServiceProviderConfig'),
});

export const resourceTypes = (baseUrl: string): Json[] => [
  {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'A person of the organisation: a person in the collection of every group they belong to.',
    schema: USER_SCHEMA,
    schemaExtensions: [{ schema: ENTERPRISE_USER_SCHEMA, required: false }],
    meta: meta(baseUrl, 'ResourceType', 'ResourceTypes/User'),
  },
  {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    description: 'A collection; its members are the people of the collection.',
    schema: GROUP_SCHEMA,
    meta: meta(baseUrl, 'ResourceType', 'ResourceTypes/Group'),
  },
];

const attribute = (name: string, extra: Json = {}): Json => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const complex = (name: string, subAttributes: Json[], extra: Json = {}): Json =>
  attribute(name, { type: 'complex', subAttributes, ...extra });

export const schemas = (baseUrl: string): Json[] => [
  {
    schemas: [SCHEMA_SCHEMA],
    id: USER_SCHEMA,
    name: 'User',
    description: 'User Account',
    attributes: [
      attribute('userName', { required: true, uniqueness: 'server' }),
      complex('name', [attribute('formatted'), attribute('familyName'), attribute('givenName')]),
      attribute('displayName'),
      attribute('externalId', { caseExact: true }),
      attribute('active', { type: 'boolean' }),
      complex('emails', [attribute('value'), attribute('type'), attribute('primary', { type: 'boolean' })], {
        multiValued: true,
      }),
    ],
    meta: meta(baseUrl, 'Schema', `Schemas/${USER_SCHEMA}`),
  },
  {
    schemas: [SCHEMA_SCHEMA],
    id: ENTERPRISE_USER_SCHEMA,
    name: 'EnterpriseUser',
    description: 'Enterprise User (kept as sent)',
    attributes: [
      attribute('employeeNumber'),
      attribute('costCenter'),
      attribute('organization'),
      attribute('division'),
      attribute('department'),
      complex('manager', [attribute('value'), attribute('displayName', { mutability: 'readOnly' })]),
    ],
    meta: meta(baseUrl, 'Schema', `Schemas/${ENTERPRISE_USER_SCHEMA}`),
  },
  {
    schemas: [SCHEMA_SCHEMA],
    id: GROUP_SCHEMA,
    name: 'Group',
    description: 'Group: a collection',
    attributes: [
      attribute('displayName', { required: true, uniqueness: 'server' }),
      attribute('externalId', { caseExact: true }),
      complex('members', [attribute('value', { mutability: 'immutable' }), attribute('display', { mutability: 'readOnly' })], {
        multiValued: true,
      }),
    ],
    meta: meta(baseUrl, 'Schema', `Schemas/${GROUP_SCHEMA}`),
  },
];

export const listOf = (resources: Json[]) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
  totalResults: resources.length,
  startIndex: 1,
  itemsPerPage: resources.length,
  Resources: resources,
});
