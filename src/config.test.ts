import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, riskySettings } from './config.js';

const PRODUCTION = {
  NODE_ENV: 'production',
  BASE_URL: 'https://names.example.org',
  STRIPE_SECRET_KEY: 'sk_test_x',
  SMTP_URL: 'smtps://u:p@smtp.example.com:465',
};

describe('safe defaults', () => {
  it('listens on loopback outside production unless HOST is set', () => {
    expect(loadConfig({ NODE_ENV: 'development' }).host).toBe('127.0.0.1');
    expect(loadConfig({}).host).toBe('127.0.0.1');
    expect(loadConfig({ NODE_ENV: 'test' }).host).toBe('127.0.0.1');
    expect(loadConfig({ HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig(PRODUCTION).host).toBe('0.0.0.0');
  });

  it('refuses to start production on the payment sandbox unless PAYMENTS_SANDBOX=true', () => {
    const { STRIPE_SECRET_KEY: _, ...withoutStripe } = PRODUCTION;
    expect(() => loadConfig(withoutStripe)).toThrow(ConfigError);
    expect(() => loadConfig(withoutStripe)).toThrow(/PAYMENTS_SANDBOX=true/);
    expect(loadConfig({ ...withoutStripe, PAYMENTS_SANDBOX: 'true' }).paymentProvider).toBe('sandbox');
    expect(loadConfig(PRODUCTION).paymentProvider).toBe('stripe');
    expect(() => loadConfig({ ...PRODUCTION, PAYMENTS_SANDBOX: 'true' })).toThrow(/choose one/);
    expect(loadConfig({}).paymentProvider).toBe('sandbox'); // development needs nothing
  });

  it('takes OUTBOUND_PROXY_URL as an http(s) proxy address without a path, empty meaning direct', () => {
    expect(loadConfig({}).webhooks.outboundProxyUrl).toBeNull();
    expect(loadConfig({ OUTBOUND_PROXY_URL: 'http://egress.internal:3128' }).webhooks.outboundProxyUrl).toBe(
      'http://egress.internal:3128/',
    );
    expect(loadConfig({ OUTBOUND_PROXY_URL: 'https://u:p@10.0.0.2:8443' }).webhooks.outboundProxyUrl).toBe(
      'https://u:p@10.0.0.2:8443/',
    );
    for (const bad of ['socks5://10.0.0.2:1080', 'egress.internal:3128', 'http://egress.internal:3128/forward']) {
      expect(() => loadConfig({ OUTBOUND_PROXY_URL: bad }), bad).toThrow(/OUTBOUND_PROXY_URL/);
    }
  });

  it('takes SSO_ENCRYPTION_KEY as 32 bytes in base64, empty meaning a key generated under DATA_DIR (production too)', () => {
    expect(loadConfig({}).ssoEncryptionKey).toBeNull();
    expect(loadConfig(PRODUCTION).ssoEncryptionKey).toBeNull();
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ SSO_ENCRYPTION_KEY: key }).ssoEncryptionKey).toBe(key);
    for (const bad of ['short', Buffer.alloc(16).toString('base64'), `${key.slice(0, -2)}!=`]) {
      expect(() => loadConfig({ SSO_ENCRYPTION_KEY: bad }), bad).toThrow(/SSO_ENCRYPTION_KEY must be 32 random bytes/);
    }
  });

  it('refuses to start production on the log mailer unless MAIL_TRANSPORT=log', () => {
    const { SMTP_URL: _, ...withoutSmtp } = PRODUCTION;
    expect(() => loadConfig(withoutSmtp)).toThrow(/MAIL_TRANSPORT=log/);
    expect(loadConfig({ ...withoutSmtp, MAIL_TRANSPORT: 'log' }).dashboard.smtpUrl).toBeNull();
    expect(() => loadConfig({ ...PRODUCTION, MAIL_TRANSPORT: 'log' })).toThrow(/choose one/);
    expect(() => loadConfig({ MAIL_TRANSPORT: 'smtp' })).toThrow(/SMTP_URL/);
    expect(() => loadConfig({ MAIL_TRANSPORT: 'pigeon' })).toThrow(/MAIL_TRANSPORT/);
  });

  it('takes TWITTER_SITE as an @handle of 1 to 15 word characters, and IMAGE_RATE_LIMIT_PER_MINUTE from 1', () => {
    expect(loadConfig({}).twitterSite).toBeNull();
    expect(loadConfig({ TWITTER_SITE: '@voicename' }).twitterSite).toBe('@voicename');
    expect(loadConfig({ TWITTER_SITE: `@${'a'.repeat(15)}` }).twitterSite).toBe(`@${'a'.repeat(15)}`);
    for (const bad of ['voicename', `@${'a'.repeat(16)}`, '@', '@voice-name', '@"><script>']) {
      expect(() => loadConfig({ TWITTER_SITE: bad }), bad).toThrow(/TWITTER_SITE/);
    }
    expect(loadConfig({}).imageRateLimitPerMinute).toBe(120);
    expect(loadConfig({ IMAGE_RATE_LIMIT_PER_MINUTE: '1' }).imageRateLimitPerMinute).toBe(1);
    expect(() => loadConfig({ IMAGE_RATE_LIMIT_PER_MINUTE: '0' })).toThrow(/IMAGE_RATE_LIMIT_PER_MINUTE/);
  });

  it('lists every missing or refused setting in one error, so one restart fixes them all', () => {
    let error: unknown;
    try {
      loadConfig({ NODE_ENV: 'production', PORT: 'eighty', WEBHOOK_TIMEOUT_MS: '5' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems, message } = error as ConfigError;
    expect(problems).toHaveLength(5);
    for (const name of ['PORT', 'BASE_URL', 'WEBHOOK_TIMEOUT_MS', 'PAYMENTS_SANDBOX=true', 'MAIL_TRANSPORT=log']) {
      expect(message, name).toContain(name);
    }
    expect(message.startsWith('5 settings need fixing:\n  - ')).toBe(true);
  });

  it('requires BASE_URL in production: links built on localhost reach no one', () => {
    const { BASE_URL: _, ...withoutBaseUrl } = PRODUCTION;
    expect(() => loadConfig(withoutBaseUrl)).toThrow(/NODE_ENV=production needs BASE_URL/);
    expect(loadConfig(PRODUCTION).baseUrl).toBe('https://names.example.org');
    expect(loadConfig({}).baseUrl).toBe('http://localhost:3000'); // development needs nothing
  });

  it('names every risky setting in force, one line each', () => {
    expect(riskySettings(loadConfig(PRODUCTION))).toEqual([]);
    const risky = riskySettings(loadConfig({ NODE_ENV: 'development', HOST: '0.0.0.0', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }));
    expect(risky).toHaveLength(4);
    expect(risky.join('\n')).toMatch(/sandbox/);
    expect(risky.join('\n')).toMatch(/development mailbox/);
    expect(risky.join('\n')).toMatch(/WEBHOOK_ALLOW_PRIVATE_URLS/);
    expect(risky.join('\n')).toMatch(/HOST=0\.0\.0\.0/);
    expect(riskySettings(loadConfig({ ...PRODUCTION, STRIPE_SECRET_KEY: '', PAYMENTS_SANDBOX: 'true' }))).toHaveLength(1);
  });
});
