/**
 * One rate-limit convention for every API of this service (/v1, the agent API, MCP, SCIM): the
 * IETF fields of draft-ietf-httpapi-ratelimit-headers-11, structured fields (RFC 9651) naming the
 * policy, on every answer a limit counted:
 *
 *   RateLimit-Policy: "v1";q=600;w=60     (quota q per window of w seconds)
 *   RateLimit: "v1";r=599;t=42            (r left, t seconds until the window ends)
 *
 * plus `Retry-After` (seconds) on 429. Clients read one format whichever API they call.
 */
import rateLimit, { type RateLimitPluginOptions } from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';

/** What one counted request knows about its limit. */
export interface RateLimitState {
  /** The policy's name (a structured-field string): which budget this is. */
  policy: string;
  quota: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
}

/** The two fields for `state`, lower-case as Node sends them. */
export function rateLimitFields(state: RateLimitState): Record<'ratelimit-policy' | 'ratelimit', string> {
  const name = JSON.stringify(state.policy);
  return {
    'ratelimit-policy': `${name};q=${state.quota};w=${state.windowSeconds}`,
    ratelimit: `${name};r=${Math.max(0, state.remaining)};t=${Math.max(0, state.resetSeconds)}`,
  };
}

// The plugin's own headers (its "draft spec" names, from an older draft), rewritten on the way out.
const PLUGIN_LIMIT = 'ratelimit-limit';
const PLUGIN_REMAINING = 'ratelimit-remaining';
const PLUGIN_RESET = 'ratelimit-reset';

/**
 * Registers `@fastify/rate-limit` on `app` (an encapsulated scope) with `options`, answering in
 * the convention above: the plugin counts and writes its own three headers (it has no hook that
 * sees the count), and an `onSend` hook of the same scope turns them into the two fields.
 */
export async function registerRateLimit(
  app: FastifyInstance,
  policy: string,
  options: RateLimitPluginOptions & { max: number; timeWindow: number },
): Promise<void> {
  await app.register(rateLimit, { ...options, enableDraftSpec: true });
  const windowSeconds = Math.ceil(options.timeWindow / 1000);
  app.addHook('onSend', async (_request, reply, payload) => {
    const remaining = reply.getHeader(PLUGIN_REMAINING);
    if (remaining === undefined) return payload;
    reply.headers(
      rateLimitFields({
        policy,
        quota: Number(reply.getHeader(PLUGIN_LIMIT) ?? options.max),
        windowSeconds,
        remaining: Number(remaining),
        resetSeconds: Number(reply.getHeader(PLUGIN_RESET) ?? windowSeconds),
      }),
    );
    reply.removeHeader(PLUGIN_LIMIT).removeHeader(PLUGIN_REMAINING).removeHeader(PLUGIN_RESET);
    return payload;
  });
}
