/**
 * The per-client budget of unpaid agent requests (P15): every request that would create a payment
 * request (a row here, an intent at the processor) takes one unit, whether it came as
 * `POST /api/entities/generate` or as an MCP tool call, alone or in a JSON-RPC batch. One budget
 * per client address, counted in the rate-limit store (Redis when REDIS_URL is set), so the two
 * transports cannot be combined to get twice the limit and a batch costs what its calls cost.
 */
import { rateLimitFields } from '../../http/rate-limit-fields.js';
import type { RateLimitStore } from '../../http/rate-limit-store.js';
import { agentError } from './agent-errors.js';

/** The policy's name in the `RateLimit` fields: one budget for the agent API and MCP tool calls. */
const UNPAID_POLICY = 'unpaid';

/**
 * Takes one unit for `client` (its address) and returns the `RateLimit` fields for the answer, or
 * throws the agent API's 429 with those fields and `Retry-After`.
 */
export type AdmitUnpaidFrom = (client: string) => Promise<Record<string, string>>;

export function createUnpaidLimit(store: RateLimitStore, maxPerMinute: number): AdmitUnpaidFrom {
  const budget = store.budget('entities-unpaid', { max: maxPerMinute, windowMs: 60_000 });
  return async (client) => {
    const taken = await budget.take(client);
    const seconds = taken.retryAfterSeconds;
    const fields = rateLimitFields({
      policy: UNPAID_POLICY,
      quota: maxPerMinute,
      windowSeconds: 60,
      remaining: taken.remaining,
      resetSeconds: seconds,
    });
    if (taken.allowed) return fields;
    throw agentError('rate_limited', `Too many unpaid requests; retry in ${seconds} s.`, {
      retryAfter: seconds,
      headers: fields,
    });
  };
}
