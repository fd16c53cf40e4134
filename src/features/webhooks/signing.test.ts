import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { newWebhookSecret, serviceSignature, signatureHeaders, standardKey, standardSignature } from './signing.js';

describe('X-Service-Signature', () => {
  it('matches the GitHub published HMAC vector (hex HMAC-SHA256, key = secret UTF-8 bytes)', () => {
    expect(serviceSignature("It's a Secret to Everybody", 'Hello, World!')).toBe(
      '757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17',
    );
  });

  it('matches RFC 4231 test case 2', () => {
    expect(serviceSignature('Jefe', 'what do ya want for nothing?')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('matches our published recording.completed vector (docs/webhooks.md)', () => {
    const body =
      '{"event":"recording.completed","timestamp":"2026-01-15T12:00:00.000Z","data":{"collection_id":"col_123","user_id":"usr_456","email":"ada@example.com","first_name":"Ada","last_name":"Lovelace","play_link":"https://example.com/p/abc","recorded_at":"2026-01-15T11:59:58.000Z"}}';
    expect(Buffer.byteLength(body)).toBe(274);
    expect(serviceSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', body)).toBe(
      '5bcb437ce780015e7a79d7dc8eec72563b366be375a580c0604ba14350e21e1b',
    );
    expect(standardSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', 1768478400, body)).toBe(
      'v1,aJNZUH8AtOmT7+JRo8ed+9BfYpcbb3lB2it6/tpVL+w=',
    );
  });
});

describe('Standard Webhooks signature', () => {
  it('matches the published Standard Webhooks vector', () => {
    expect(
      standardSignature(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('agrees with the standardwebhooks library for a fresh secret', () => {
    const secret = newWebhookSecret();
    const at = new Date();
    const ours = standardSignature(secret, 'whd_abc', Math.floor(at.getTime() / 1000), '{"a":1}');
    expect(new Webhook(secret).sign('whd_abc', at, '{"a":1}')).toBe(ours);
  });
});

describe('secrets', () => {
  it('are whsec_ + base64 of 32 random bytes, all different', () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(standardKey(a)).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(a);
  });
});

describe('signatureHeaders during a rotation', () => {
  const body = '{"event":"x"}';
  it('signs with one secret outside a rotation', () => {
    const h = signatureHeaders(
      { current: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', previous: null },
      { id: 'm', timestampSeconds: 1, body },
    );
    expect(h['x-service-signature']).toBe(serviceSignature('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', body));
    expect(h['x-service-signature-next']).toBeUndefined();
    expect(h['webhook-signature']?.split(' ')).toHaveLength(1);
  });

  it('keeps X-Service-Signature on the previous secret, adds -Next, and puts both in webhook-signature', () => {
    const current = newWebhookSecret();
    const previous = newWebhookSecret();
    const h = signatureHeaders({ current, previous }, { id: 'm', timestampSeconds: 1, body });
    expect(h['x-service-signature']).toBe(serviceSignature(previous, body));
    expect(h['x-service-signature-next']).toBe(serviceSignature(current, body));
    expect(h['webhook-signature']).toBe(
      `${standardSignature(current, 'm', 1, body)} ${standardSignature(previous, 'm', 1, body)}`,
    );
  });
});
