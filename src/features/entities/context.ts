/**
 * Everything the entities feature needs, built once per process: the adapters from `deps`, the
 * request schema (served and enforced), its validator, the signing key and the public URLs.
 */
import type { Logger } from 'pino';
import type { BlobStore } from '../../blobs/index.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { PaymentProvider } from '../../integrations/payments/index.js';
import type { JobsWakeup } from '../../jobs/wakeup.js';
import type { Clock } from '../../lib/clock.js';
import type { SpeechSynthesizer } from '../../speech/index.js';
import type { Assets } from '../../web/assets.js';
import { buildRequestSchema, type RequestSchema, SCHEMA_PATH } from './request-schema.js';
import { type EntityKeys, loadEntityKeys } from './signing.js';
import { createRequestValidator, type RequestValidator } from './validation.js';

export interface EntitiesDeps {
  config: Config;
  db: Db;
  clock: Clock;
  logger: Logger;
  blobs: BlobStore;
  assets: Assets;
  payments: PaymentProvider;
  speech: SpeechSynthesizer;
  /** Wakes the in-process job worker after a commit that enqueued work. */
  jobsWakeup: JobsWakeup;
}

export interface EntitiesContext extends EntitiesDeps {
  schema: RequestSchema;
  validate: RequestValidator;
  keys: EntityKeys;
  urls: {
    site: string;
    schema: string;
    docs: string;
    discovery: string;
    generate: string;
    profile(slug: string): string;
    machineReadable(slug: string): string;
    audio(slug: string): string;
    defaultAvatar(): string;
    sandboxConfirm(id: string): string;
  };
}

/**
 * Built once per process by `createDeps` (as `deps.entities`): the routes and the job handlers
 * must share it, since the keys it holds sign what the discovery document publishes.
 */
export function createEntitiesContext(deps: EntitiesDeps): EntitiesContext {
  const site = deps.config.siteUrl;
  const schema = buildRequestSchema({ siteUrl: site, allowHttpCallbacks: deps.config.webhooks.allowPrivateUrls });
  const context: EntitiesContext = {
    ...deps,
    schema,
    validate: createRequestValidator(schema),
    keys: loadEntityKeys(deps.config),
    urls: {
      site,
      schema: `${site}${SCHEMA_PATH}`,
      docs: `${site}/llms.txt`,
      discovery: `${site}/.well-known/service-agent-services.json`,
      generate: `${site}/api/entities/generate`,
      profile: (slug) => `${site}/e/${slug}`,
      machineReadable: (slug) => `${site}/e/${slug}/.well-known/service.json`,
      audio: (slug) => `${site}/e/${slug}/name.mp3`,
      defaultAvatar: () => `${site}${deps.assets.url('robot-avatar.svg')}`,
      sandboxConfirm: (id) => `${site}/api/sandbox/payment-intents/${id}/confirm`,
    },
  };
  return context;
}
