/**
 * A webhook receiver for trying webhooks on your own machine (docs/quick-start.md, docs/webhooks.md):
 *
 *   WEBHOOK_SECRET=whsec_… npm run --silent webhook-receiver     # listens on http://127.0.0.1:4000/
 *
 * It checks every POST with the secret, with both signature schemes the service sends (Standard
 * Webhooks `webhook-*` headers and `X-Service-Signature`), through the SDK's verifyWebhook, and
 * prints one line per delivery: `verified <event> <webhook-id> (<schemes>)`, answered 204, or
 * `refused: <reason>`, answered 401. A GET answers 200, so a script can wait until it listens.
 * Settings: `--port` or WEBHOOK_RECEIVER_PORT (4000), `--secret` or WEBHOOK_SECRET (a rotation's
 * old and new secret separated by a comma). It listens on loopback only: the service delivers to
 * it only when started with WEBHOOK_ALLOW_PRIVATE_URLS=true, a development setting.
 */
import http from 'node:http';
import { parseArgs } from 'node:util';
import { verifyWebhook, WebhookVerificationError } from '../packages/sdk/src/webhooks.js';

/** Deliveries are small JSON documents; anything larger is not one of ours. */
const MAX_BODY_BYTES = 1024 * 1024;

const { values } = parseArgs({
  options: { port: { type: 'string' }, secret: { type: 'string' } },
  strict: true,
});
const port = Number(values.port ?? process.env.WEBHOOK_RECEIVER_PORT ?? 4000);
const secrets = (values.secret ?? process.env.WEBHOOK_SECRET ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);

if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`webhook-receiver: the port must be a number from 0 to 65535 (--port or WEBHOOK_RECEIVER_PORT)`);
  process.exit(1);
}
if (secrets.length === 0) {
  console.error("webhook-receiver: no secret: set WEBHOOK_SECRET (or --secret) to the webhook's whsec_… secret");
  process.exit(1);
}

function schemes(headers: http.IncomingHttpHeaders): string {
  const names = [];
  if (headers['webhook-signature'] !== undefined) names.push('Standard Webhooks');
  if (headers['x-service-signature'] !== undefined || headers['x-service-signature-next'] !== undefined)
    names.push('X-Service-Signature');
  return names.join(' + ');
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('voicename webhook receiver: POST deliveries here\n');
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > MAX_BODY_BYTES) {
      console.log(`refused: body larger than ${MAX_BODY_BYTES} bytes`);
      res.writeHead(413).end();
      return;
    }
    try {
      // The raw bytes as received: a re-serialised body would not match its signature.
      const { id, event } = verifyWebhook({ secret: secrets, headers: req.headers, body: Buffer.concat(chunks) });
      // Printed before answering, so the line is there when the sender learns it was accepted.
      console.log(`verified ${event.event} ${id ?? '(no webhook-id)'} (${schemes(req.headers)})`);
      res.writeHead(204).end();
    } catch (error) {
      const reason = error instanceof WebhookVerificationError ? error.message : String(error);
      console.log(`refused: ${reason}`);
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`${reason}\n`);
    }
  });
});

server.once('error', (error: NodeJS.ErrnoException) => {
  const why =
    error.code === 'EADDRINUSE' ? `port ${port} is in use: choose another with --port or WEBHOOK_RECEIVER_PORT` : error.message;
  console.error(`webhook-receiver: ${why}`);
  process.exit(1);
});
server.listen(port, '127.0.0.1', () => {
  const address = server.address();
  const listening = typeof address === 'object' && address ? address.port : port;
  console.log(`webhook receiver listening on http://127.0.0.1:${listening}/`);
});

const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
