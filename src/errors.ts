/**
 * One error type for the whole service. Services and repos throw `AppError` with a stable
 * `code`; the table below is the only place that maps a code to an HTTP status and an error
 * `type`. The /v1 error handler renders it as `{"error": {type, code, message, param?, request_id}}`.
 */

export type ErrorType = 'invalid_request_error' | 'authentication_error' | 'idempotency_error' | 'rate_limit_error' | 'api_error';

interface ErrorKind {
  status: number;
  type: ErrorType;
}

const kinds = {
  validation_failed: { status: 400, type: 'invalid_request_error' },
  parameter_missing: { status: 400, type: 'invalid_request_error' },
  parameter_unknown: { status: 400, type: 'invalid_request_error' },
  parameter_invalid: { status: 400, type: 'invalid_request_error' },
  url_not_public: { status: 400, type: 'invalid_request_error' },
  url_unresolvable: { status: 400, type: 'invalid_request_error' },
  invalid_cursor: { status: 400, type: 'invalid_request_error' },
  invalid_json: { status: 400, type: 'invalid_request_error' },
  missing_api_key: { status: 401, type: 'authentication_error' },
  invalid_api_key: { status: 401, type: 'authentication_error' },
  resource_missing: { status: 404, type: 'invalid_request_error' },
  route_not_found: { status: 404, type: 'invalid_request_error' },
  /** The user exists but has not recorded their name yet, so there is no play link to show. */
  recording_missing: { status: 404, type: 'invalid_request_error' },
  method_not_allowed: { status: 405, type: 'invalid_request_error' },
  conflict: { status: 409, type: 'invalid_request_error' },
  /** A pronunciation guide the person wrote or approved: organisers replace it only when they say so. */
  person_edited: { status: 409, type: 'invalid_request_error' },
  /** A respelling with letters outside the respelling key, or IPA the speech engine has no sound for. */
  pronunciation_invalid: { status: 400, type: 'invalid_request_error' },
  /** Approving needs a guide to approve. */
  guide_missing: { status: 409, type: 'invalid_request_error' },
  /** The account already has WEBHOOK_MAX_PER_ACCOUNT webhooks; deleting one makes room. */
  webhook_limit_reached: { status: 409, type: 'invalid_request_error' },
  /** A review decision for a person who has no recording. */
  no_recording_to_review: { status: 409, type: 'invalid_request_error' },
  idempotency_key_reused: { status: 409, type: 'idempotency_error' },
  idempotency_request_in_progress: { status: 409, type: 'idempotency_error' },
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  request_timeout: { status: 408, type: 'invalid_request_error' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error' },
  unprocessable_entity: { status: 422, type: 'invalid_request_error' },
  email_taken: { status: 409, type: 'invalid_request_error' },
  external_id_taken: { status: 409, type: 'invalid_request_error' },
  batch_invalid: { status: 400, type: 'invalid_request_error' },
  invalid_csv: { status: 400, type: 'invalid_request_error' },
  /** An all-or-nothing CSV import with at least one bad row: nothing was written. */
  import_invalid: { status: 400, type: 'invalid_request_error' },
  /** A CSV import with more data rows than one request takes. */
  too_many_rows: { status: 400, type: 'invalid_request_error' },
  /** A CSV row with more cells than a file may have columns. */
  too_many_columns: { status: 400, type: 'invalid_request_error' },
  audio_empty: { status: 400, type: 'invalid_request_error' },
  image_empty: { status: 400, type: 'invalid_request_error' },
  image_unsupported_format: { status: 415, type: 'invalid_request_error' },
  image_corrupt: { status: 422, type: 'invalid_request_error' },
  audio_too_large: { status: 413, type: 'invalid_request_error' },
  audio_unsupported_format: { status: 415, type: 'invalid_request_error' },
  audio_corrupt: { status: 422, type: 'invalid_request_error' },
  audio_unsupported_sample_rate: { status: 422, type: 'invalid_request_error' },
  audio_too_many_channels: { status: 422, type: 'invalid_request_error' },
  /** ffmpeg was stopped by its memory or CPU cap: the same file would be stopped again. */
  audio_too_complex: { status: 422, type: 'invalid_request_error' },
  audio_too_long: { status: 422, type: 'invalid_request_error' },
  audio_too_short: { status: 422, type: 'invalid_request_error' },
  audio_silent: { status: 422, type: 'invalid_request_error' },
  audio_clipped: { status: 422, type: 'invalid_request_error' },
  audio_processing_timeout: { status: 503, type: 'api_error' },
  /** Too many uploads wait for audio processing; sent with Retry-After. */
  audio_busy: { status: 503, type: 'api_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  sign_in_rate_limited: { status: 429, type: 'rate_limit_error' },
  sign_in_link_invalid: { status: 400, type: 'invalid_request_error' },
  form_token_invalid: { status: 403, type: 'invalid_request_error' },
  /** An LTI login initiation the tool cannot act on (unknown platform or deployment, a target elsewhere). */
  lti_login_invalid: { status: 400, type: 'invalid_request_error' },
  /** An LTI id_token that is not valid (signature, issuer, audience, times) or not from a registered platform. */
  lti_launch_invalid: { status: 401, type: 'authentication_error' },
  /** An LTI launch whose state is not the one this browser started with. */
  lti_launch_state: { status: 403, type: 'invalid_request_error' },
  /** An LTI launch whose nonce was already used (a replay) or never issued for this state. */
  lti_launch_replayed: { status: 409, type: 'invalid_request_error' },
  /** An LTI launch with valid signatures but LTI claims the tool cannot accept (message type, version, deployment, roles). */
  lti_claims_invalid: { status: 422, type: 'invalid_request_error' },
  /** The platform's key set or roster could not be fetched. */
  lti_platform_unavailable: { status: 502, type: 'api_error' },
  /** An LTI Dynamic Registration URL whose secret is unknown, expired, used or revoked. */
  lti_registration_link_invalid: { status: 403, type: 'invalid_request_error' },
  /** A platform's OpenID configuration that cannot be read or fails the Dynamic Registration checks. */
  lti_platform_configuration_invalid: { status: 400, type: 'invalid_request_error' },
  /** The platform's registration endpoint refused the tool's registration (its status is in the message). */
  lti_registration_refused: { status: 502, type: 'api_error' },
  mail_unavailable: { status: 503, type: 'api_error' },
  claim_token_invalid: { status: 403, type: 'invalid_request_error' },
  entity_already_claimed: { status: 409, type: 'invalid_request_error' },
  domain_not_verified: { status: 400, type: 'invalid_request_error' },
  /** The signed-in member's role does not allow this (viewers read only; members and the audit log are for owners). */
  role_forbidden: { status: 403, type: 'invalid_request_error' },
  member_exists: { status: 409, type: 'invalid_request_error' },
  /** Removing or demoting the organisation's only owner would leave nobody able to manage it. */
  last_owner: { status: 409, type: 'invalid_request_error' },
  invitation_invalid: { status: 400, type: 'invalid_request_error' },
  invitation_rate_limited: { status: 429, type: 'rate_limit_error' },
  /** The identity provider could not be reached or did not publish valid OpenID Connect metadata. */
  sso_discovery_failed: { status: 400, type: 'invalid_request_error' },
  /** An OpenID Connect sign-in was refused: state unknown, used or expired, or the provider's answer failed a check. */
  sso_sign_in_refused: { status: 400, type: 'invalid_request_error' },
  /** The organisation requires single sign-on: its members (owners aside) cannot use an e-mailed link. */
  sso_required: { status: 403, type: 'invalid_request_error' },
  // SCIM provisioning (/scim/v2): each is one `scimType` of RFC 7644 §3.12, rendered in SCIM's
  // own error body (src/features/scim/errors.ts).
  scim_invalid_filter: { status: 400, type: 'invalid_request_error' },
  scim_invalid_syntax: { status: 400, type: 'invalid_request_error' },
  scim_invalid_path: { status: 400, type: 'invalid_request_error' },
  scim_invalid_value: { status: 400, type: 'invalid_request_error' },
  scim_mutability: { status: 400, type: 'invalid_request_error' },
  scim_no_target: { status: 400, type: 'invalid_request_error' },
  scim_too_many: { status: 400, type: 'invalid_request_error' },
  scim_uniqueness: { status: 409, type: 'invalid_request_error' },
  /** A SCIM `If-Match` that no longer names the resource's version (RFC 7644 §3.14). */
  scim_version_mismatch: { status: 412, type: 'invalid_request_error' },
  internal_error: { status: 500, type: 'api_error' },
  service_unavailable: { status: 503, type: 'api_error' },
  // The agent entity API: its codes are the spec's `status` values, and its own error handler
  // renders the spec's bodies (src/features/agent-api/agent-errors.ts).
  invalid_request: { status: 400, type: 'invalid_request_error' },
  unauthorized: { status: 401, type: 'authentication_error' },
  payment_required: { status: 402, type: 'invalid_request_error' },
  forbidden: { status: 403, type: 'invalid_request_error' },
  not_found: { status: 404, type: 'invalid_request_error' },
  payment_request_mismatch: { status: 409, type: 'invalid_request_error' },
  payment_in_progress: { status: 409, type: 'invalid_request_error' },
  gone: { status: 410, type: 'invalid_request_error' },
  failed: { status: 502, type: 'api_error' },
  temporarily_unavailable: { status: 503, type: 'api_error' },
} satisfies Record<string, ErrorKind>;

/** Error codes may be added by features; unknown codes fall back to their given status. */
export type ErrorCode = keyof typeof kinds | (string & {});

export interface AppErrorOptions {
  param?: string;
  status?: number;
  headers?: Record<string, string>;
  cause?: unknown;
  /** Per-item problems of a batch request (or per-row ones of a CSV import), rendered as `error.errors`. */
  errors?: ItemError[] | RowError[];
  /** What a CSV import ignored (unknown columns), rendered as `error.warnings`. */
  warnings?: RowError[];
  /**
   * Further fields for a renderer other than the /v1 envelope (which ignores them): the agent
   * API's bodies carry e.g. `missing`/`invalid` or `mpp_instruction`.
   */
  details?: Readonly<Record<string, unknown>>;
}

export interface ItemError {
  index: number;
  field: string;
  code: string;
  message: string;
}

/** A problem of one row of an imported file: `row` as a spreadsheet numbers it (header = 1). */
export interface RowError {
  row: number;
  column: string;
  code: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: ErrorType;
  readonly param: string | undefined;
  readonly headers: Record<string, string>;
  readonly errors: ItemError[] | RowError[] | undefined;
  readonly warnings: RowError[] | undefined;
  readonly details: Readonly<Record<string, unknown>> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'AppError';
    const kind: ErrorKind | undefined = (kinds as Record<string, ErrorKind>)[code];
    this.code = code;
    this.status = options.status ?? kind?.status ?? 500;
    this.type = kind?.type ?? typeForStatus(this.status);
    this.param = options.param;
    this.headers = options.headers ?? {};
    this.errors = options.errors;
    this.warnings = options.warnings;
    this.details = options.details;
  }
}

function typeForStatus(status: number): ErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

export const notFound = (what: string, param?: string) =>
  new AppError('resource_missing', `No such ${what}.`, param === undefined ? {} : { param });

export const invalid = (message: string, param?: string) =>
  new AppError('validation_failed', message, param === undefined ? {} : { param });

export interface ErrorBody {
  error: {
    type: ErrorType;
    code: string;
    message: string;
    param?: string;
    request_id: string;
    errors?: ItemError[] | RowError[];
    warnings?: RowError[];
  };
}

export function errorBody(error: AppError, requestId: string): ErrorBody {
  return {
    error: {
      type: error.type,
      code: error.code,
      message: error.message,
      ...(error.param === undefined ? {} : { param: error.param }),
      request_id: requestId,
      ...(error.errors === undefined ? {} : { errors: error.errors }),
      ...(error.warnings === undefined ? {} : { warnings: error.warnings }),
    },
  };
}
