/**
 * SCIM's own error body (RFC 7644 §3.12), the documented exception to the /v1 envelope: every
 * answer under /scim/v2 that fails is `{"schemas":[…Error], "status":"<code>", "scimType"?,
 * "detail"}`. Services throw the one `AppError`; the `scim_*` codes carry a `scimType`, and the
 * app's other codes (bad JSON, body too large, unknown route, rate limit…) map to the nearest one.
 */
import { AppError } from '../../errors.js';

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_PATH_PREFIX = '/scim/v2';

const SCIM_TYPES: Record<string, string> = {
  scim_invalid_filter: 'invalidFilter',
  scim_invalid_syntax: 'invalidSyntax',
  scim_invalid_path: 'invalidPath',
  scim_invalid_value: 'invalidValue',
  scim_mutability: 'mutability',
  scim_no_target: 'noTarget',
  scim_too_many: 'tooMany',
  scim_uniqueness: 'uniqueness',
  // The app's codes an answer under /scim/v2 can meet.
  invalid_json: 'invalidSyntax',
  validation_failed: 'invalidValue',
  parameter_invalid: 'invalidValue',
  parameter_missing: 'invalidValue',
  email_taken: 'uniqueness',
  external_id_taken: 'uniqueness',
};

export interface ScimErrorBody {
  schemas: [typeof SCIM_ERROR_SCHEMA];
  status: string;
  scimType?: string;
  detail: string;
}

export function scimErrorBody(error: AppError): ScimErrorBody {
  const scimType = SCIM_TYPES[error.code];
  return {
    schemas: [SCIM_ERROR_SCHEMA],
    status: String(error.status),
    ...(scimType === undefined ? {} : { scimType }),
    detail: error.message,
  };
}

export const isScimPath = (url: string) =>
  url === SCIM_PATH_PREFIX || url.startsWith(`${SCIM_PATH_PREFIX}/`) || url.startsWith(`${SCIM_PATH_PREFIX}?`);

export const invalidValue = (detail: string) => new AppError('scim_invalid_value', detail);
export const invalidSyntax = (detail: string) => new AppError('scim_invalid_syntax', detail);
export const invalidFilter = (detail: string) => new AppError('scim_invalid_filter', detail);
export const invalidPath = (detail: string) => new AppError('scim_invalid_path', detail);
export const noTarget = (detail: string) => new AppError('scim_no_target', detail);
export const mutability = (detail: string) => new AppError('scim_mutability', detail);
export const uniqueness = (detail: string) => new AppError('scim_uniqueness', detail);
export const scimNotFound = (what: 'User' | 'Group', id: string) => new AppError('resource_missing', `${what} ${id} not found.`);
