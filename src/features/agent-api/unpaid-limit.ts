/**
 * The per-client budget of unpaid agent requests (P15): every request that would create a payment
 * request (a row here, an intent at the processor) takes one unit, whether it came as
 * `POST /api/entities/generate` or as an MCP tool call, alone or in a JSON-RPC batch. One budget
 * per client address, counted in the rate-limit store (Redis when REDIS_URL is set), so the two
 * transports cannot be combined to get twice the limit and a batch costs what its calls cost.
 */
import type { RateLimitStore } from '../../http/rate-limit-store.js';
import { agentError } from './agent-errors.js';

/** Takes one unit for `client` (its address) or throws the agent API's 429 with `Retry-After`. */
export type AdmitUnpaidFrom = (client: string) => Promise<void>;

export function createUnpaidLimit(store: RateLimitStore, maxPerMinute: number): AdmitUnpaidFrom {
  const budget = store.budget('entities-unpaid', { max: maxPerMinute, windowMs: 60_000 });
  return async (client) => {
    const taken = await budget.take(client);
    if (taken.allowed) return;
    const seconds = taken.retryAfterSeconds;
    throw agentError('rate_limited', `Too many unpaid requests; retry in ${seconds} s.`, { retryAfter: seconds });
  };
}
