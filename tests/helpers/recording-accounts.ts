/**
 * Apps with their own settings, closed after each test, and accounts with users to record for:
 * the recording-fairness tests (bounded queue, hostile load) share these.
 */
import { afterEach, expect } from 'vitest';
import { createTestApp, type TestApp } from './app.js';

const apps: TestApp[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

export async function appWith(env: Record<string, string>): Promise<TestApp> {
  const t = await createTestApp({ env });
  apps.push(t);
  return t;
}

/** A new account with a collection of `count` users: its API key and the users. */
export async function accountWithUsers(t: TestApp, count: number) {
  const { key } = await t.newAccount();
  const collection = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'Class' } })).json();
  const users: { id: string; record_url: string }[] = [];
  for (let i = 0; i < count; i++) {
    const res = await t.request({
      method: 'POST',
      url: `/v1/collections/${collection.id}/users`,
      key,
      json: { email: `p${i}@example.com`, first_name: 'Ana', last_name: `Diaz ${i}` },
    });
    expect(res.statusCode).toBe(201);
    users.push(res.json());
  }
  const put = (user: { id: string }, body: Buffer) =>
    t.request({
      method: 'PUT',
      url: `/v1/collections/${collection.id}/users/${user.id}/recording`,
      key,
      headers: { 'content-type': 'application/octet-stream' },
      payload: body,
    });
  const record = (user: { record_url: string }, body: Buffer) =>
    t.request({
      method: 'POST',
      url: `${new URL(user.record_url).pathname}/recording`,
      headers: { 'content-type': 'audio/webm' },
      payload: body,
    });
  return { key, users, put, record };
}
