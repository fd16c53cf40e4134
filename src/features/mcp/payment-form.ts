/**
 * MPP's own form of payment over MCP (draft-payment-transport-mcp): for a client that declares it
 * understands it, a paid tool call without payment fails with JSON-RPC error -32042 (-32043 when
 * a credential was refused, -32602 when it could not be read) whose `data` holds the challenges,
 * instead of the error tool result every other client gets (which MCP clients show the model,
 * while they drop JSON-RPC errors before it sees them).
 *
 * A client declares it in `initialize`, with `capabilities.experimental.payment` as the draft
 * says. `/mcp` is stateless (any process answers any request, nothing is kept), so the
 * declaration travels with the client instead: the `initialize` answer gives such a client an
 * `Mcp-Session-Id` that says so, signed with a key of this service, and MCP clients send the
 * session id on every later request. An id we did not sign counts as no declaration; a client
 * that never declares gets no session id and the tool result, exactly as before.
 *
 * The error's `data` is the tool result's `_meta["org.paymentauth/payment-required"]`, which
 * service.ts fills in the draft's shape (`httpStatus`, `challenges`, `problem`), so both forms
 * carry the same challenges; the form is chosen here, on the way out, for every path.
 */
import { createHmac } from 'node:crypto';
import type { Deps } from '../../deps.js';
import { safeEqual } from '../../lib/secrets.js';

export const SESSION_HEADER = 'mcp-session-id';
const PAYMENT_REQUIRED_META = 'org.paymentauth/payment-required';
const SESSION_PREFIX = 'mpp1';

/** The draft's JSON-RPC codes, by the RFC 9457 problem type the tool result names. */
const CODES: Record<string, number> = {
  'https://paymentauth.org/problems/payment-required': -32042,
  'https://paymentauth.org/problems/verification-failed': -32043,
  'https://paymentauth.org/problems/malformed-credential': -32602,
};

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** True when `body` (one JSON-RPC message or a batch) initializes a client that declares MPP payments. */
export function declaresPayment(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    if (!isObject(message) || message.method !== 'initialize' || !isObject(message.params)) return false;
    const capabilities = message.params.capabilities;
    return isObject(capabilities) && isObject(capabilities.experimental) && isObject(capabilities.experimental.payment);
  });
}

/** The session ids' HMAC key, derived once per set of keys (HKDF on every request would cost more than the check). */
const sessionKeys = new WeakMap<object, Buffer>();
function sessionKey(deps: Deps): Buffer {
  const keys = deps.agentApi.keys;
  let key = sessionKeys.get(keys);
  if (!key) sessionKeys.set(keys, (key = keys.derivedKey('voicename mcp payment sessions')));
  return key;
}

const mac = (deps: Deps, issued: string) =>
  createHmac('sha256', sessionKey(deps)).update(`${SESSION_PREFIX}.${issued}`).digest('base64url').slice(0, 32);

/** A session id saying "this client reads MPP's error form" (visible ASCII, as MCP requires). */
export function paymentSessionId(deps: Deps): string {
  const issued = deps.clock.now().getTime().toString(36);
  return `${SESSION_PREFIX}.${issued}.${mac(deps, issued)}`;
}

/** True when the request's session id is one `paymentSessionId` made. */
export function hasPaymentSession(deps: Deps, header: string | string[] | undefined): boolean {
  if (typeof header !== 'string' || header.length > 100) return false;
  const [prefix, issued, signature, ...rest] = header.split('.');
  if (prefix !== SESSION_PREFIX || !issued || !signature || rest.length > 0) return false;
  return safeEqual(signature, mac(deps, issued));
}

/** A JSON-RPC response whose tool result asks for payment, as the draft's error (else unchanged). */
export function asPaymentError(message: unknown): unknown {
  if (!isObject(message) || !isObject(message.result) || !isObject(message.result._meta)) return message;
  const required = message.result._meta[PAYMENT_REQUIRED_META];
  if (!isObject(required) || !isObject(required.problem)) return message;
  const { type, title } = required.problem;
  const code = typeof type === 'string' ? CODES[type] : undefined;
  if (code === undefined) return message;
  return { jsonrpc: '2.0', id: message.id, error: { code, message: String(title), data: required } };
}

/** The answer of `/mcp` (JSON text: one response or a batch) with payment-required results as errors. */
export function withPaymentErrors(text: string): string {
  if (!text.includes(PAYMENT_REQUIRED_META)) return text;
  const parsed: unknown = JSON.parse(text);
  return JSON.stringify(Array.isArray(parsed) ? parsed.map(asPaymentError) : asPaymentError(parsed));
}
