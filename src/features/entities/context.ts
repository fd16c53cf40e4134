/**
 * What the entities feature adds to `Deps`, built once per app: the request schema (served and
 * enforced), its validator, the signing key, the unpaid-request budget and the public URLs. Services that need these take
 * the context (`Deps` and these values); the others take `Deps` or a `Pick` of it.
 */
import type { Deps } from '../../deps.js';
import { buildRequestSchema, type RequestSchema, SCHEMA_PATH } from './request-schema.js';
import { type EntityKeys, loadEntityKeys } from './signing.js';
import { slugPath } from './slug.js';
import { type AdmitUnpaidFrom, createUnpaidLimit } from './unpaid-limit.js';
import { createRequestValidator, type RequestValidator } from './validation.js';

export interface EntitiesContext extends Omit<Deps, 'entities'> {
  schema: RequestSchema;
  validate: RequestValidator;
  keys: EntityKeys;
  /** The unpaid-request budget per client address, shared by the HTTP API and the MCP tools. */
  admitUnpaidFrom: AdmitUnpaidFrom;
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
export function createEntitiesContext(deps: Omit<Deps, 'entities'>): EntitiesContext {
  const site = deps.config.siteUrl;
  const schema = buildRequestSchema({ siteUrl: site, allowHttpCallbacks: deps.config.webhooks.allowPrivateUrls });
  const context: EntitiesContext = {
    ...deps,
    schema,
    validate: createRequestValidator(schema),
    keys: loadEntityKeys(deps.config),
    admitUnpaidFrom: createUnpaidLimit(deps.rateLimits, deps.config.entityUnpaidRateLimitPerMinute),
    urls: {
      site,
      schema: `${site}${SCHEMA_PATH}`,
      docs: `${site}/llms.txt`,
      discovery: `${site}/.well-known/service-agent-services.json`,
      generate: `${site}/api/entities/generate`,
      profile: (slug) => `${site}/e/${slugPath(slug)}`,
      machineReadable: (slug) => `${site}/e/${slugPath(slug)}/.well-known/service.json`,
      audio: (slug) => `${site}/e/${slugPath(slug)}/name.mp3`,
      defaultAvatar: () => `${site}${deps.assets.url('robot-avatar.svg')}`,
      sandboxConfirm: (id) => `${site}/api/sandbox/payment-intents/${id}/confirm`,
    },
  };
  return context;
}
