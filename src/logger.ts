import { createRequire } from 'node:module';
import pino, { type Logger } from 'pino';

/** pino-pretty is for development on a terminal: loaded only when LOG_FORMAT asks for it. */
const loadPretty = () => createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty');

/**
 * Secrets never reach the logs: credentials and tokens are redacted wherever they appear in
 * logged request headers, and capability tokens in URLs (recorder links) are masked.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["payment-authorization"]',
  'req.headers["payment-signature"]',
  'req.headers["deletion-token"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["payment-authorization"]',
  // x402: a signed authorization of one transfer, usable by whoever holds it until settled.
  'headers["payment-signature"]',
  'headers["deletion-token"]',
  '*.key',
  '*.secret',
  '*.client_secret',
  '*.deletion_token',
];

export function createLogger(level: string, destination?: pino.DestinationStream, format: 'json' | 'pretty' = 'json'): Logger {
  const options: pino.LoggerOptions = {
    level,
    redact: { paths: REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      // Fastify's default request serializer, with capability tokens masked in the URL.
      req: (req: { method?: string; url?: string; ip?: string }) => ({
        method: req.method,
        url: req.url === undefined ? undefined : maskUrl(req.url),
        remote_address: req.ip,
      }),
      err: pino.stdSerializers.err,
    },
  };
  // Pretty lines are formatted in this process (no transport thread): they are for development only.
  const stream =
    destination ??
    (format === 'pretty'
      ? loadPretty()({ colorize: process.stdout.isTTY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true })
      : undefined);
  return stream ? pino(options, stream) : pino(options);
}

/**
 * Masks path segments that are bearer capabilities (recorder tokens, dashboard sign-in links, LTI
 * registration URLs) and the platform's registration token in an LTI registration's query.
 */
export const maskUrl = (url: string): string =>
  url
    .replace(/\/r\/[^/?#]+/, '/r/[redacted]')
    .replace(/^\/dashboard\/sign-in\/[^/?#]+/, '/dashboard/sign-in/[redacted]')
    .replace(/^\/dashboard\/invitations\/[^/?#]+/, '/dashboard/invitations/[redacted]')
    .replace(/^\/lti\/register\/[^/?#]+/, '/lti/register/[redacted]')
    .replace(/([?&]registration_token=)[^&#]*/, '$1[redacted]');
