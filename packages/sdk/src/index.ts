export { DEFAULT_BASE_URL, Voicename, type VoicenameOptions } from './client.js';
export {
  AuthenticationError,
  ConflictError,
  type ErrorDetail,
  InvalidRequestError,
  NotFoundError,
  RateLimitError,
  VoicenameConnectionError,
  VoicenameError,
} from './errors.js';
export type { components, paths } from './generated/openapi.js';
export { type Page, Paginator } from './pagination.js';
export { parseRateLimits, type RateLimitInfo } from './rate-limit.js';
export type { RequestOptions } from './request.js';
export { MAX_BATCH_USER_IDS } from './resources/play-links.js';
export type { UploadOptions } from './resources/recordings.js';
export type { FetchFunction } from './transport.js';
export type * from './types.js';
export type { FileSource } from './uploads.js';
export {
  type HeaderBag,
  type VerifiedWebhook,
  verifyWebhook,
  type VerifyWebhookOptions,
  WebhookVerificationError,
} from './webhooks.js';
