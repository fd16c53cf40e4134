/** The agent API's public addresses under SITE_URL: plain functions of the config. */
import type { Deps } from '../../deps.js';
import { SCHEMA_PATH } from './request-schema.js';

export function agentApiUrls(deps: Pick<Deps, 'config'>) {
  const site = deps.config.siteUrl;
  return {
    site,
    schema: `${site}${SCHEMA_PATH}`,
    docs: `${site}/llms.txt`,
    discovery: `${site}/.well-known/service-agent-services.json`,
    generate: `${site}/api/entities/generate`,
    sandboxConfirm: (id: string) => `${site}/api/sandbox/payment-intents/${id}/confirm`,
  };
}
