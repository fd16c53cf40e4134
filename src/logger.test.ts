import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { createLogger } from './logger.js';

describe('log format', () => {
  it('is JSON unless asked for pretty, and only json or pretty are accepted', () => {
    expect(
      loadConfig({
        NODE_ENV: 'production',
        BASE_URL: 'https://names.example.org',
        MAIL_TRANSPORT: 'log',
        PAYMENTS_SANDBOX: 'true',
      }).logFormat,
    ).toBe('json');
    expect(loadConfig({ NODE_ENV: 'test' }).logFormat).toBe('json');
    expect(loadConfig({ NODE_ENV: 'development', LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(() => loadConfig({ NODE_ENV: 'development', LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT/);
  });

  it('pretty lines are readable text, still with secrets redacted', async () => {
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        out += chunk.toString();
        done();
      },
    });
    const pretty = (await import('pino-pretty')).default({ destination: sink, colorize: false, sync: true });
    const logger = createLogger('info', pretty);
    logger.info({ headers: { authorization: 'Bearer vn_secret' } }, 'request completed');
    expect(out).toContain('INFO');
    expect(out).toContain('request completed');
    expect(out).not.toContain('vn_secret');
    expect(() => JSON.parse(out)).toThrow();
  });

  it('masks the secret of an LTI registration URL and the platform’s registration token in logged URLs', () => {
    let out = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        out += chunk.toString();
        done();
      },
    });
    const logger = createLogger('info', sink);
    const url =
      '/lti/register/vnltireg_abcdefghijklSECRETSECRET?openid_configuration=https%3A%2F%2Flms.example&registration_token=platform-bearer';
    logger.info({ req: { method: 'GET', url } }, 'incoming request');
    expect(out).toContain(
      '/lti/register/[redacted]?openid_configuration=https%3A%2F%2Flms.example&registration_token=[redacted]',
    );
    expect(out).not.toContain('SECRET');
    expect(out).not.toContain('platform-bearer');
  });
});
