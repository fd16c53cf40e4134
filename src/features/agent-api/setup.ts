/**
 * What the agent API builds once per process (`deps.agentApi`, made by `createDeps`): the request
 * schema and its compiled validator (compiling is slow), the signing keys (the routes, the jobs
 * and the MCP tools must sign with the keys the discovery document publishes) and the unpaid-request
 * budget (it counts, so it must be one per process). Everything else the agent API needs is
 * ordinary `Deps`; its URLs are plain functions of the config (urls.ts).
 */
import type { Deps } from '../../deps.js';
import { buildRequestSchema, type FieldRules, fieldRules, type RequestSchema } from './request-schema.js';
import { type EntityKeys, loadEntityKeys } from './signing.js';
import { type AdmitUnpaidFrom, createUnpaidLimit } from './unpaid-limit.js';
import { createRequestValidator, type RequestValidator } from './validation.js';

export interface AgentApiSetup {
  schema: RequestSchema;
  /** The one-line rule of each field, quoted in a 400's `allowed`. */
  rules: FieldRules;
  validate: RequestValidator;
  keys: EntityKeys;
  /** The unpaid-request budget per client address, shared by the HTTP API and the MCP tools. */
  admitUnpaidFrom: AdmitUnpaidFrom;
}

export function createAgentApiSetup(deps: Pick<Deps, 'config' | 'rateLimits'>): AgentApiSetup {
  const allowHttpCallbacks = deps.config.webhooks.allowPrivateUrls;
  const schema = buildRequestSchema({ siteUrl: deps.config.siteUrl, allowHttpCallbacks });
  const rules = fieldRules({ allowHttpCallbacks });
  return {
    schema,
    rules,
    validate: createRequestValidator(schema, rules),
    keys: loadEntityKeys(deps.config),
    admitUnpaidFrom: createUnpaidLimit(deps.rateLimits, deps.config.entityUnpaidRateLimitPerMinute),
  };
}
