/**
 * Strict parsing of `Payment-Authorization: mpp; reference="pi_…"` (P13): exactly one header,
 * at most 256 characters, scheme `mpp` (any case), `reference` quoted or bare, and an id of the
 * shape processors issue. `mpp reference=…` (space instead of `;`) is accepted too.
 */
import type { IncomingMessage } from 'node:http';
import { PAYMENT_INTENT_ID } from '../../integrations/payments/provider.js';

export type PaymentCredential = { kind: 'absent' } | { kind: 'invalid'; received: string } | { kind: 'reference'; id: string };

const GRAMMAR = /^mpp(?:[ \t]*;[ \t]*|[ \t]+)reference[ \t]*=[ \t]*(?:"([^"\\]*)"|([^\s";,]+))[ \t]*;?[ \t]*$/i;
export const MAX_HEADER_LENGTH = 256;
export const HEADER_NAME = 'Payment-Authorization';

export function parsePaymentAuthorization(raw: IncomingMessage): PaymentCredential {
  const values: string[] = [];
  for (let i = 0; i < raw.rawHeaders.length; i += 2) {
    if (raw.rawHeaders[i]?.toLowerCase() === 'payment-authorization') values.push(raw.rawHeaders[i + 1] ?? '');
  }
  if (values.length === 0) return { kind: 'absent' };
  const received = values.join(', ');
  if (values.length > 1) return { kind: 'invalid', received };
  const value = (values[0] as string).trim();
  if (value.length === 0 || value.length > MAX_HEADER_LENGTH) return { kind: 'invalid', received };
  const match = GRAMMAR.exec(value);
  const id = match?.[1] ?? match?.[2];
  if (id === undefined || !PAYMENT_INTENT_ID.test(id)) return { kind: 'invalid', received };
  return { kind: 'reference', id };
}
