/**
 * Two API processes' worth of state (two app instances, each with its own caches and worker
 * wake-up) on one database. On PostgreSQL a change committed through one reaches the other by
 * LISTEN/NOTIFY within milliseconds: a re-recording is served by the other instance at once, a
 * rotated token is retired everywhere, and a job committed through one wakes the other's worker.
 * On SQLite (one process by design) the same test shows the fallback: the cache lifetime.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.js';
import { usingPostgres } from './helpers/database.js';
import { addRecordedUser, addRecording, createCollection } from './helpers/play-link-fixtures.js';
import { within } from './helpers/within.js';

const onPostgres = usingPostgres();
let a: TestApp;
let b: TestApp;
let key: string;
let collectionId: string;

beforeAll(async () => {
  a = await createTestApp();
  b = await createTestApp({ database: a.database });
  ({ key } = await a.newAccount());
  collectionId = await createCollection(a, key);
});
afterAll(async () => {
  await b.app.close();
  await b.deps.notifications.close();
  await b.deps.rateLimits.close();
  await a.close();
});

/** The link's `/meta` as one instance serves it, without the play count (which moves on every read). */
const meta = async (t: TestApp, token: string): Promise<string> => {
  const { play_count: _plays, ...rest } = (await t.app.inject({ method: 'GET', url: `/p/${token}/meta` })).json<
    Record<string, unknown>
  >();
  return JSON.stringify(rest);
};

describe.skipIf(!onPostgres)('on PostgreSQL, changes reach the other process by LISTEN/NOTIFY', () => {
  it('a re-recording through A is served by B within 100 ms', async () => {
    const { userId, token } = await addRecordedUser(a, collectionId, { text: 'first take' });
    const before = await meta(b, token); // B caches the link
    expect(before).toContain(token);
    // A new recording of another length, committed through A's service (the fixture writes rows;
    // the invalidation is what the recordings service announces after its commit).
    await addRecording(a, userId, { text: 'a much longer second take of the same name, spoken slowly' });
    const { invalidatePlayLinksOfUser } = await import('../src/features/play-links/invalidation.js');
    invalidatePlayLinksOfUser(a.deps, userId);
    const took = await within(100, async () => (await meta(b, token)) !== before);
    expect(took).toBeLessThan(100);
  });

  it('a rotation through A retires the old token in B at once', async () => {
    const { userId, token } = await addRecordedUser(a, collectionId);
    expect((await b.app.inject({ method: 'GET', url: `/p/${token}/meta` })).statusCode).toBe(200);
    const rotated = await a.request({
      method: 'POST',
      url: `/v1/collections/${collectionId}/users/${userId}/play-link/rotate`,
      key,
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    await within(100, async () => (await b.app.inject({ method: 'GET', url: `/p/${token}/meta` })).statusCode === 404);
  });

  it("a job committed through A wakes B's worker without waiting for its poll", async () => {
    let woken = 0;
    const unsubscribe = b.deps.jobsWakeup.subscribe(() => woken++);
    try {
      a.deps.jobsWakeup.notify();
      await within(200, async () => woken > 0);
    } finally {
      unsubscribe();
    }
  });
  it('a process that has just started hears the others once it says it is listening', async () => {
    const c = await createTestApp({ database: a.database });
    const heard: string[] = [];
    try {
      await c.deps.notifications.listening();
      const unsubscribe = c.deps.notifications.subscribe('stage', (payload) => heard.push(payload));
      a.deps.notifications.publish('stage', 'first message after the start');
      await within(200, async () => heard.length > 0);
      unsubscribe();
      expect(heard).toEqual(['first message after the start']);
    } finally {
      await c.app.close();
      await c.deps.notifications.close();
      await c.deps.rateLimits.close();
    }
  });
});

describe.skipIf(onPostgres)('on SQLite (one process by design)', () => {
  it('another instance sees a change once its cache entry expires, not by notification', async () => {
    const { userId, token } = await addRecordedUser(a, collectionId);
    expect((await b.app.inject({ method: 'GET', url: `/p/${token}/meta` })).statusCode).toBe(200);
    await a.request({ method: 'DELETE', url: `/v1/collections/${collectionId}/users/${userId}`, key });
    // B still answers from its cache: only this process's cache was told. A answers 410: the person was deleted.
    expect((await b.app.inject({ method: 'GET', url: `/p/${token}/meta` })).statusCode).toBe(200);
    expect((await a.app.inject({ method: 'GET', url: `/p/${token}/meta` })).statusCode).toBe(410);
  });
});
