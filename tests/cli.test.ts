import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';

const run = promisify(execFile);
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** Runs the CLI exactly as the README shows (`npm run --silent cli -- …`). */
async function cli(...args: string[]) {
  try {
    const { stdout, stderr } = await run('npm', ['run', '--silent', 'cli', '--', ...args], {
      env: t.childEnv(),
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const failed = err as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

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
    const denied = await t.request({ method: 'GET', url: '/v1/collections', key: body.key });
    expect(denied.statusCode).toBe(401);
    expect((await cli('keys', 'revoke', body.id)).code).toBe(2);
  }, 60_000);

  it('explains usage errors on stderr with exit code 2', async () => {
    const missing = await cli('keys', 'create', '--json');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--account');
    const badEmail = await cli('keys', 'create', '--account', 'not-an-email');
    expect(badEmail.code).toBe(2);
    expect((await cli('nonsense')).code).toBe(2);
  }, 60_000);
});
