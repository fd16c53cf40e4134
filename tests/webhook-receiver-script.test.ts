/**
 * `npm run --silent webhook-receiver`, the receiver the quick start and docs/webhooks.md start:
 * deliveries signed as the service signs them (both schemes, or either alone) are printed as
 * verified and answered 204; anything else is answered 401 with the reason printed.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceSignature, signatureHeaders } from '../src/features/webhooks/signing.js';
import { freePort } from './helpers/app.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
let receiver: ChildProcess;
let output = '';
let url = '';

const env = (extra: Record<string, string>) => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...extra });

/** Waits until the receiver's output holds `count` lines matching `pattern`. */
async function lines(pattern: RegExp, count: number): Promise<string[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = output.split('\n').filter((line) => pattern.test(line));
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  const port = await freePort();
  receiver = spawn('npm', ['run', '--silent', 'webhook-receiver'], {
    env: env({ WEBHOOK_SECRET: SECRET, WEBHOOK_RECEIVER_PORT: String(port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  receiver.stdout?.on('data', (chunk) => (output += chunk));
  receiver.stderr?.on('data', (chunk) => (output += chunk));
  const [listening] = await lines(/^webhook receiver listening on /, 1);
  expect(listening, output).toBe(`webhook receiver listening on http://127.0.0.1:${port}/`);
  url = `http://127.0.0.1:${port}/voicename`;
}, 30_000);
afterAll(() => {
  receiver?.kill('SIGTERM');
});

const body = JSON.stringify({ event: 'recording.completed', timestamp: new Date().toISOString(), data: { user_id: 'usr_1' } });
const post = (headers: Record<string, string>, payload = body) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: payload });

describe('the webhook receiver script', () => {
  it('verifies both signature schemes the service sends and prints the delivery', async () => {
    const headers = signatureHeaders(
      { current: SECRET, previous: null },
      { id: 'whd_both', timestampSeconds: Math.floor(Date.now() / 1000), body },
    );
    expect((await post(headers)).status).toBe(204);
    expect(await lines(/whd_both/, 1)).toEqual([
      'verified recording.completed whd_both (Standard Webhooks + X-Service-Signature)',
    ]);
  });

  it('verifies X-Service-Signature alone', async () => {
    expect((await post({ 'x-service-signature': serviceSignature(SECRET, body) })).status).toBe(204);
    expect(await lines(/X-Service-Signature\)$/, 2)).toContain(
      'verified recording.completed (no webhook-id) (X-Service-Signature)',
    );
  });

  it('refuses a wrong signature, a changed body and an unsigned request with 401 and prints why', async () => {
    const now = Math.floor(Date.now() / 1000);
    const other = signatureHeaders(
      { current: 'whsec_b3RoZXI=', previous: null },
      { id: 'whd_other', timestampSeconds: now, body },
    );
    expect((await post(other)).status).toBe(401);
    const signed = signatureHeaders({ current: SECRET, previous: null }, { id: 'whd_changed', timestampSeconds: now, body });
    expect((await post(signed, body.replace('usr_1', 'usr_2'))).status).toBe(401);
    const unsigned = await post({});
    expect(unsigned.status).toBe(401);
    expect(await unsigned.text()).toBe('No signature headers.\n');
    expect(await lines(/^refused: /, 3)).toEqual([
      'refused: No matching webhook-signature.',
      'refused: No matching webhook-signature.',
      'refused: No signature headers.',
    ]);
    expect(output).not.toMatch(/verified \S+ whd_(other|changed)/);
  });

  it('answers GET, so a script can wait until it listens', async () => {
    expect((await fetch(url)).status).toBe(200);
  });

  it('will not start without a secret, and says which setting to give', () => {
    const result = spawnSync('npm', ['run', '--silent', 'webhook-receiver'], { env: env({}), encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('set WEBHOOK_SECRET (or --secret)');
  });
});
