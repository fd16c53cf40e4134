import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { runCliCaptured } from './helpers/cli.js';

const run = promisify(execFile);
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** The CLI in-process against this app's database (see helpers/cli.ts). */
const cli = (...args: string[]) => runCliCaptured(t.childEnv(), args);

describe('npm run cli -- keys', () => {
  it('creates a key as one JSON object on stdout, lists it without the secret, and revokes it', async () => {
    const created = await cli('keys', 'create', '--account', 'Ops@Example.com', '--json');
    expect(created.code, created.stderr).toBe(0);
    const body = JSON.parse(created.stdout);
    expect(Object.keys(body)).toEqual(expect.arrayContaining(['id', 'key', 'account']));
    expect(body.key).toMatch(/^vn_[A-Za-z0-9_-]{44}$/);
    expect(body.account).toBe('ops@example.com');

    const ok = await t.request({ method: 'GET', url: '/v1/collections', key: body.key });
    expect(ok.statusCode).toBe(200);

    const listed = await cli('keys', 'list', '--account', 'ops@example.com', '--json');
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(body.key);
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id: body.id, revoked_at: null })]);

    const revoked = await cli('keys', 'revoke', body.id);
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toContain(`Revoked ${body.id}`);
    const denied = await t.request({ method: 'GET', url: '/v1/collections', key: body.key });
    expect(denied.statusCode).toBe(401);
    expect((await cli('keys', 'revoke', body.id)).code).toBe(2);
  });

  it('explains usage errors on stderr with exit code 2', async () => {
    const missing = await cli('keys', 'create', '--json');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--account');
    expect(missing.stdout).toBe('');
    const badEmail = await cli('keys', 'create', '--account', 'not-an-email');
    expect(badEmail.code).toBe(2);
    const nonsense = await cli('nonsense');
    expect(nonsense.code).toBe(2);
    expect(nonsense.stderr).toContain('Usage:');
    const badConfig = await runCliCaptured({ ...t.childEnv(), NODE_ENV: 'staging' }, ['migrate']);
    expect(badConfig).toMatchObject({ code: 2, stdout: '' });
    expect(badConfig.stderr).toContain('NODE_ENV');
  });
});

describe('the real CLI process', () => {
  // One run exactly as the README shows, so the entry point, npm script and exit code stay covered.
  it('`npm run --silent cli -- keys create --json` prints only the JSON document and exits 0', async () => {
    const { stdout } = await run(
      'npm',
      ['run', '--silent', 'cli', '--', 'keys', 'create', '--account', 'cli@example.com', '--json'],
      {
        env: t.childEnv(),
      },
    );
    const body = JSON.parse(stdout);
    expect(body.account).toBe('cli@example.com');
    expect((await t.request({ method: 'GET', url: '/v1/collections', key: body.key })).statusCode).toBe(200);
  }, 60_000);
});
