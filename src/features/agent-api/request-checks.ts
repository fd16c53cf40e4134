/**
 * The checks of a generation request beyond its JSON Schema: a name already published (or a
 * look-alike of one), and URLs the outbound rules would refuse. Both are the spec's 400.
 */
import type { Deps } from '../../deps.js';
import type { AppError } from '../../errors.js';
import { outboundRefusal } from '../../integrations/outbound-http.js';
import type { VoiceStyle } from '../../speech/synthesizer.js';
import { findNameHolder } from '../profiles/service.js';
import { slugPath } from '../profiles/slug.js';
import { invalidRequest } from './agent-errors.js';
import { type InvalidField, summarizeReceived } from './validation.js';

export interface GenerationRequest {
  name: string;
  entity_type: string;
  description: string;
  operator: string;
  visibility: string;
  avatar_url?: string;
  source_url?: string;
  voice_style?: VoiceStyle;
  language?: string;
  name_language?: string;
  intro?: string;
  external_metadata?: Record<string, unknown>;
  agent_id?: string;
  callback_url?: string;
}

export const invalidName = (name: string, message: string, deps: Deps) =>
  invalidRequest(
    {
      missing: [],
      invalid: [{ field: 'name', received: summarizeReceived(name), allowed: [deps.agentApi.rules.name] }],
    },
    message,
  );

/**
 * The 400 for a name already published, or one that looks the same (its confusable skeleton,
 * UTS #39, is a published name's): the message names the profile that holds it.
 */
export const takenName =
  (deps: Deps, name: string, slug: string) =>
  async (addendum = ''): Promise<AppError> => {
    const holder = (await findNameHolder(deps, slug)) ?? slug;
    const what =
      holder === slug
        ? `the name "${name}" is already taken (profile /e/${slugPath(holder)})`
        : `the name "${name}" looks the same as a published one (profile /e/${slugPath(holder)})`;
    return invalidName(name, `The request is invalid: ${what}.${addendum}`, deps);
  };

/**
 * A `callback_url` or `avatar_url` the outbound rules would refuse (not https, a private or
 * loopback address, a name resolving to one) is a 400 now, before any 402: nobody pays for a
 * request that cannot be honoured. The avatar is only shown, never fetched, so its name is not
 * resolved; a callback's is (and again before every delivery).
 */
export async function refuseUnusableUrls(deps: Deps, body: GenerationRequest): Promise<void> {
  const allowPrivate = deps.config.webhooks.allowPrivateUrls;
  const checks = [
    {
      field: 'callback_url',
      url: body.callback_url,
      resolve: true,
      allowed: 'a public https: URL (its host resolving to public addresses only)',
    },
    {
      field: 'avatar_url',
      url: body.avatar_url?.startsWith('https:') ? body.avatar_url : undefined,
      resolve: false,
      allowed: 'an https: URL on a public host, or a path on this site',
    },
  ];
  const invalid: InvalidField[] = [];
  const reasons: string[] = [];
  for (const check of checks) {
    if (check.url === undefined) continue;
    const refusal = await outboundRefusal(check.url, { allowPrivate, resolve: check.resolve });
    if (!refusal) continue;
    invalid.push({ field: check.field, received: summarizeReceived(check.url), allowed: [check.allowed] });
    reasons.push(`${check.field}: ${refusal.message}`);
  }
  if (invalid.length > 0) throw invalidRequest({ missing: [], invalid }, `The request is invalid: ${reasons.join(' ')}`);
}
