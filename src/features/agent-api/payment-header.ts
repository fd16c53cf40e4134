/**
 * Reads the payment credential of a generation request (P13). Two forms are accepted:
 *
 * - the spec's reference: `Payment-Authorization: mpp; reference="pi_…"` — exactly one header, at
 *   most 256 characters, scheme `mpp` (any case), `reference` quoted or bare, an id of the shape
 *   processors issue (`mpp reference=…`, with a space instead of `;`, is accepted too);
 * - a standard credential of the Payment HTTP authentication scheme (draft-httpauth-payment):
 *   `Authorization: Payment <base64url JSON>`, or the same value in `Payment-Authorization` (the
 *   draft's `header` parameter), at most 8 KB.
 *
 * - an x402 v2 payment: `PAYMENT-SIGNATURE: <base64 JSON>` (x402.ts), at most 16 KB, alone.
 *
 * `Payment-Authorization` is routed by its scheme token. A malformed reference, two credentials,
 * or an unknown scheme is a 400; a standard credential that cannot be decoded answers like an
 * unpaid request (a fresh 402 with new challenges), as the draft asks.
 */
import type { IncomingMessage } from 'node:http';
import type { Credential } from 'mppx';
import { PAYMENT_INTENT_ID } from '../../integrations/payments/provider.js';
import { MAX_PAYMENT_SIGNATURE_LENGTH } from './x402.js';

export type PaymentCredential =
  | { kind: 'absent' }
  | { kind: 'invalid'; received: string }
  | { kind: 'reference'; id: string }
  | { kind: 'standard'; credential: Credential.Credential }
  /** A `Payment …` value not decoded yet (the service decodes it: mpp.ts loads the codec lazily). */
  | { kind: 'encoded'; value: string }
  /** An x402 v2 `PAYMENT-SIGNATURE` (base64 JSON), decoded by the service (x402.ts). */
  | { kind: 'x402-encoded'; value: string }
  | { kind: 'unreadable' };

const REFERENCE_GRAMMAR = /^mpp(?:[ \t]*;[ \t]*|[ \t]+)reference[ \t]*=[ \t]*(?:"([^"\\]*)"|([^\s";,]+))[ \t]*;?[ \t]*$/i;
const STANDARD_SCHEME = /^Payment[ \t]+/i;
export const MAX_HEADER_LENGTH = 256;
export const MAX_STANDARD_CREDENTIAL_LENGTH = 8192;
export const HEADER_NAME = 'Payment-Authorization';

function headerValues(raw: IncomingMessage, name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < raw.rawHeaders.length; i += 2) {
    if (raw.rawHeaders[i]?.toLowerCase() === name) values.push(raw.rawHeaders[i + 1] ?? '');
  }
  return values;
}

function readStandard(value: string): PaymentCredential {
  if (value.length > MAX_STANDARD_CREDENTIAL_LENGTH) return { kind: 'unreadable' };
  return { kind: 'encoded', value };
}

function readReference(value: string, received: string): PaymentCredential {
  if (value.length === 0 || value.length > MAX_HEADER_LENGTH) return { kind: 'invalid', received };
  const match = REFERENCE_GRAMMAR.exec(value);
  const id = match?.[1] ?? match?.[2];
  if (id === undefined || !PAYMENT_INTENT_ID.test(id)) return { kind: 'invalid', received };
  return { kind: 'reference', id };
}

export function parsePaymentAuthorization(raw: IncomingMessage): PaymentCredential {
  const paymentHeaders = headerValues(raw, 'payment-authorization');
  const x402Signatures = headerValues(raw, 'payment-signature');
  if (x402Signatures.length > 0) {
    // One payment per request: an x402 signature beside another credential (or a second one) is ambiguous.
    const standard = headerValues(raw, 'authorization').filter((value) => STANDARD_SCHEME.test(value.trim()));
    const all = [...x402Signatures, ...paymentHeaders, ...standard];
    if (all.length > 1) return { kind: 'invalid', received: all.join(', ') };
    const value = (x402Signatures[0] as string).trim();
    return value.length > MAX_PAYMENT_SIGNATURE_LENGTH ? { kind: 'unreadable' } : { kind: 'x402-encoded', value };
  }
  // `Authorization` counts only when it carries the Payment scheme; the agent API has no other use for it.
  const authorization = headerValues(raw, 'authorization').filter((value) => STANDARD_SCHEME.test(value.trim()));
  if (paymentHeaders.length === 0 && authorization.length === 0) return { kind: 'absent' };
  const all = [...paymentHeaders, ...authorization];
  const received = all.join(', ');
  if (all.length > 1) return { kind: 'invalid', received };
  const value = (all[0] as string).trim();
  if (STANDARD_SCHEME.test(value)) return readStandard(value);
  return readReference(value, received);
}
