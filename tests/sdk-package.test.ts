/**
 * The SDK as a user gets it: `npm pack` of packages/sdk (its `prepare` script compiles dist/ on the
 * way), the tarball installed into a clean project outside the checkout, and the README's webhook
 * receiver run from there with plain `node`, as written. The other SDK tests import its TypeScript
 * source through an alias; this one proves the published JavaScript and types exist and work.
 * Only node and npm are used (the SQLite pass of CI has nothing else on PATH); the tarball's one
 * dependency, openapi-fetch, comes from the npm cache the workspace's own install filled.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWebhookSecret, signatureHeaders } from '../src/features/webhooks/signing.js';
import { freePort } from './helpers/app.js';
import { recordingData } from './helpers/webhooks.js';

const root = path.resolve('.');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-sdk-package-'));
const app = path.join(dir, 'app');

// npm's own variables from `npm test` (this package's name, its lifecycle, its prefix) must not
// leak into the clean project's install; NODE_OPTIONS would make `node` less plain.
const env = Object.fromEntries(
  Object.entries(process.env).filter(
    ([name]) => !/^npm_(package_|lifecycle_|config_local_prefix$)/.test(name) && name !== 'NODE_OPTIONS',
  ),
);

function npm(args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('npm', args, { cwd, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`npm ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** The README's receiver: the fenced `js` block after "Verify webhooks in Node". */
function readmeReceiver(): string {
  const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('Verify webhooks in Node'));
  const block = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block?.includes('verifyWebhook')) throw new Error('no webhook receiver in README.md');
  return block;
}

let receiver: ChildProcess | undefined;
let receiverOutput = '';

beforeAll(async () => {
  await npm(['pack', '--workspace', '@voicename/sdk', '--pack-destination', dir, '--silent'], root);
  const tarball = fs.readdirSync(dir).find((name) => name.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${dir}`);
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'receiver', private: true, type: 'module' }));
  await npm(['install', path.join(dir, tarball), '--prefer-offline', '--no-audit', '--no-fund'], app);
}, 180_000);

afterAll(async () => {
  if (receiver && receiver.exitCode === null) {
    const exited = new Promise((resolve) => receiver?.once('exit', resolve));
    receiver.kill('SIGTERM');
    await exited;
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the packed SDK', () => {
  it('ships its JavaScript and its types', () => {
    const installed = path.join(app, 'node_modules', '@voicename', 'sdk');
    for (const file of ['dist/index.js', 'dist/index.d.ts', 'dist/webhooks.js', 'dist/webhooks.d.ts']) {
      expect(fs.existsSync(path.join(installed, file)), file).toBe(true);
    }
  });

  it("runs the README's webhook receiver with plain node: a delivery the service signed is accepted, a tampered one refused", async () => {
    fs.writeFileSync(path.join(app, 'receiver.mjs'), readmeReceiver());
    const secret = newWebhookSecret();
    const port = await freePort();
    receiver = spawn(process.execPath, ['receiver.mjs'], {
      cwd: app,
      env: { ...env, VOICENAME_WEBHOOK_SECRET: secret, PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    receiver.stdout?.on('data', (chunk) => (receiverOutput += chunk));
    receiver.stderr?.on('data', (chunk) => (receiverOutput += chunk));

    const id = `msg_${randomUUID()}`;
    const body = JSON.stringify({ event: 'recording.completed', timestamp: new Date().toISOString(), data: recordingData() });
    const headers = signatureHeaders(
      { current: secret, previous: null },
      { id, timestampSeconds: Math.floor(Date.now() / 1000), body },
    );
    const deliver = async (payload: string): Promise<number> => {
      const deadline = Date.now() + 20_000;
      for (;;) {
        if (receiver?.exitCode !== null) throw new Error(`the receiver exited: ${receiverOutput}`);
        try {
          const answer = await fetch(`http://127.0.0.1:${port}/`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: payload,
          });
          return answer.status;
        } catch (error) {
          // Not listening yet: poll until it is.
          if (Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    };

    expect(await deliver(body)).toBe(204);
    await expect.poll(() => receiverOutput).toContain(`${id} recording.completed`);
    expect(await deliver(body.replace('Lovelace', 'Lovelacf'))).toBe(401);
  }, 60_000);
});
