import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from './webhooks.js';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const body =
  '{"event":"recording.completed","timestamp":"2026-01-15T12:00:00.000Z","data":{"collection_id":"col_123","user_id":"usr_456","email":"ada@example.com","first_name":"Ada","last_name":"Lovelace","play_link":"https://example.com/p/abc","recorded_at":"2026-01-15T11:59:58.000Z"}}';
const now = new Date('2026-01-15T12:00:00Z');
const headers = {
  'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W',
  'webhook-timestamp': '1768478400',
  'webhook-signature': 'v1,aJNZUH8AtOmT7+JRo8ed+9BfYpcbb3lB2it6/tpVL+w=',
  'x-service-signature': '5bcb437ce780015e7a79d7dc8eec72563b366be375a580c0604ba14350e21e1b',
};

describe('verifyWebhook', () => {
  it('accepts our published vector (both schemes) and returns the event and id', () => {
    const verified = verifyWebhook({ secret, headers, body, now });
    expect(verified.id).toBe('msg_2KWPBgLlAfxdpx2AI54pPJ85f4W');
    expect(verified.event.data.email).toBe('ada@example.com');
  });

  it('accepts X-Service-Signature alone and Standard Webhooks alone, and Fetch Headers', () => {
    expect(() =>
      verifyWebhook({ secret, headers: { 'X-Service-Signature': headers['x-service-signature'] }, body }),
    ).not.toThrow();
    const { 'x-service-signature': _, ...standard } = headers;
    expect(() => verifyWebhook({ secret, headers: new Headers(standard), body, now })).not.toThrow();
    expect(() =>
      verifyWebhook({ secret, headers: { 'x-service-signature': headers['x-service-signature'] }, body, requireTimestamp: true }),
    ).toThrow(/timestamp/);
  });

  it('refuses a changed body, a wrong secret, stale or future timestamps, and missing headers', () => {
    expect(() => verifyWebhook({ secret, headers, body: body.replace('Ada', 'Eve'), now })).toThrow();
    expect(() => verifyWebhook({ secret: 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', headers, body, now })).toThrow();
    expect(() => verifyWebhook({ secret, headers, body, now: new Date(now.getTime() + 301_000) })).toThrow(/timestamp/);
    expect(() => verifyWebhook({ secret, headers, body, now: new Date(now.getTime() - 301_000) })).toThrow(/timestamp/);
    expect(() => verifyWebhook({ secret, headers: {}, body, now })).toThrow(/No signature/);
    expect(() => verifyWebhook({ secret, headers: { ...headers, 'webhook-timestamp': 'hello' }, body, now })).toThrow();
    expect(() => verifyWebhook({ secret, headers: { ...headers, 'webhook-signature': 'v1,' }, body, now })).toThrow();
    expect(() => verifyWebhook({ secret, headers: { ...headers, 'x-service-signature': 'A'.repeat(64) }, body, now })).toThrow();
    expect(() => verifyWebhook({ secret: '', headers, body, now })).toThrow(/secret/);
  });

  it('accepts either secret during a rotation (X-Service-Signature-Next, several v1 entries)', () => {
    const next = 'whsec_ZmFrZSBzZWNyZXQgZm9yIHRlc3RzIG9ubHkhISE=';
    const at = new Date();
    const id = 'whd_1';
    const rotated = {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': `${new Webhook(next).sign(id, at, body)} ${new Webhook(secret).sign(id, at, body)}`,
      'x-service-signature': createHmac('sha256', secret).update(body).digest('hex'),
      'x-service-signature-next': createHmac('sha256', next).update(body).digest('hex'),
    };
    expect(() => verifyWebhook({ secret, headers: rotated, body })).not.toThrow();
    expect(() => verifyWebhook({ secret: next, headers: rotated, body })).not.toThrow();
    expect(() => verifyWebhook({ secret: [next, secret], headers: rotated, body: Buffer.from(body) })).not.toThrow();
  });
});
