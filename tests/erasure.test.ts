/**
 * Erasure that reaches every copy, on both databases and both blob stores: after
 * `DELETE /v1/collections/{id}?erase=true` (or the retention window) no row holds the person's
 * e-mail address and no blob their audio; every public URL of their play link answers 410 in
 * every process; an erasure record without personal data proves it happened; restore within
 * the window brings everything back.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/lib/clock.js';
import { eraseExpiredCollections } from '../src/features/erasure/service.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { get, signIn } from './helpers/dashboard.js';
import { usingPostgres } from './helpers/database.js';
import { startTestS3, type TestS3 } from './helpers/s3.js';
import { AFTER_AUDIO_DELETE_DELAY_MS, runJobsLater } from './helpers/jobs.js';
import { within } from './helpers/within.js';

// On PostgreSQL another process hears of the erasure by LISTEN/NOTIFY at once. SQLite is one
// process by design: a second instance sees it when its cache entry expires (short here).
const SQLITE_CACHE_TTL_MS = 300;

/** Every text value in every table of the database, as one string per table (to search for a person). */
async function everyText(t: TestApp): Promise<string> {
  const db = t.deps.db;
  const tables =
    db.dialect === 'sqlite'
      ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db.kysely)).rows.map(
          (r) => r.name,
        )
      : (
          await sql<{
            table_name: string;
          }>`select table_name from information_schema.tables where table_schema = current_schema()`.execute(db.kysely)
        ).rows.map((r) => r.table_name);
  const dumps: string[] = [];
  for (const table of tables) {
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db.kysely);
    dumps.push(`${table}: ${JSON.stringify(rows.rows)}`);
  }
  return dumps.join('\n');
}

/** The SHA-256 of every stored audio file. */
async function audioHashes(t: TestApp, prefix = 'recordings/'): Promise<string[]> {
  const keys = await t.deps.blobs.list(prefix);
  const bodies = await Promise.all(keys.map((key) => t.deps.blobs.get(key)));
  return bodies.filter((body): body is Buffer => body !== null).map((body) => createHash('sha256').update(body).digest('hex'));
}

const PUBLIC_URLS = (token: string, baseUrl: string) => [
  `/p/${token}`,
  `/p/${token}.mp3`,
  `/p/${token}/embed`,
  `/p/${token}/meta`,
  `/p/${token}/qr.svg`,
  `/p/${token}/card.png`,
  `/p/${token}/badge.png`,
  `/oembed?url=${encodeURIComponent(`${baseUrl}/p/${token}`)}`,
];

for (const store of ['disk', 's3'] as const) {
  describe(`erasure with ${store} storage`, () => {
    let s3: TestS3 | undefined;
    let a: TestApp;
    let b: TestApp;
    let key: string;
    let ownerEmail: string;
    const clock = new ManualClock(new Date().toISOString());

    beforeAll(async () => {
      s3 = store === 's3' ? await startTestS3() : undefined;
      const cacheTtl: Record<string, string> = usingPostgres() ? {} : { PLAY_LINK_CACHE_TTL_MS: String(SQLITE_CACHE_TTL_MS) };
      const env: Record<string, string> = s3
        ? {
            ...cacheTtl,
            BLOB_STORE: 's3',
            S3_BUCKET: s3.bucket,
            S3_ENDPOINT: s3.endpoint,
            S3_ACCESS_KEY_ID: s3.accessKeyId,
            S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
            S3_REGION: s3.region,
          }
        : cacheTtl;
      a = await createTestApp({ env, clock });
      b = await createTestApp({ env, clock, database: a.database });
      ({ key, email: ownerEmail } = await a.newAccount());
    });
    afterAll(async () => {
      await b.app.close();
      await b.deps.notifications.close();
      await b.deps.rateLimits.close();
      await b.deps.cards.renderer.close();
      await a.close();
      await s3?.close();
    });

    const api = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, json?: unknown) =>
      a.request({ method, url, key, ...(json === undefined ? {} : { json }) });

    /** A collection with one recorded person; returns ids, the token and the audio's hash. */
    async function recordedPerson(email: string) {
      const collection = (await api('POST', '/v1/collections', { name: 'Erasure test' })).json<{ id: string }>();
      const user = (
        await api('POST', `/v1/collections/${collection.id}/users`, { email, first_name: 'Siobhán', last_name: 'Ní Bhriain' })
      ).json<{
        id: string;
      }>();
      const upload = await a.request({
        method: 'PUT',
        url: `/v1/collections/${collection.id}/users/${user.id}/recording`,
        key,
        headers: { 'content-type': 'audio/wav' },
        payload: fs.readFileSync(speechWav()),
      });
      expect(upload.statusCode, upload.body).toBe(200);
      const token = new URL(upload.json<{ play_link: string }>().play_link).pathname.split('/')[2] as string;
      const [audioHash] = await audioHashes(a, `recordings/${user.id}/`);
      expect(audioHash).toMatch(/^[0-9a-f]{64}$/);
      return { collectionId: collection.id, userId: user.id, token, audioHash };
    }

    it('erases at once with ?erase=true: no row with the e-mail address, no audio, 410 on every public URL in every process', async () => {
      const email = `erase-me-${store}@example.com`;
      const person = await recordedPerson(email);
      for (const t of [a, b])
        expect((await t.app.inject({ method: 'GET', url: `/p/${person.token}/meta` })).statusCode).toBe(200);
      expect(await everyText(a)).toContain(email);

      const res = await api('DELETE', `/v1/collections/${person.collectionId}?erase=true`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ deleted: true, id: person.collectionId, erased: true });

      const text = await everyText(a);
      expect(text).not.toContain(email);
      expect(text).not.toContain('Ní Bhriain');
      expect(text).not.toContain(person.token);
      expect(await audioHashes(a)).not.toContain(person.audioHash);

      // SQLite: the other process sees the erasure once its cached play link expires.
      const everyUrlGone = async () => {
        for (const t of [a, b])
          for (const url of PUBLIC_URLS(person.token, a.config.baseUrl))
            if ((await t.app.inject({ method: 'GET', url })).statusCode !== 410) return false;
        return true;
      };
      if (!usingPostgres()) await within(SQLITE_CACHE_TTL_MS + 2_000, everyUrlGone);
      for (const t of [a, b]) {
        for (const url of PUBLIC_URLS(person.token, a.config.baseUrl)) {
          const answer = await t.app.inject({ method: 'GET', url });
          expect(answer.statusCode, `${url}`).toBe(410);
        }
      }
      expect((await a.app.inject({ method: 'GET', url: `/p/${person.token}/meta` })).json().error.code).toBe('resource_gone');
      // An unknown token stays 404.
      expect((await a.app.inject({ method: 'GET', url: '/p/neverexisted1/meta' })).statusCode).toBe(404);
      expect((await api('GET', `/v1/collections/${person.collectionId}`)).statusCode).toBe(404);
      expect((await api('POST', `/v1/collections/${person.collectionId}/restore`)).statusCode).toBe(404);
    });

    it('leaves an erasure record without personal data, and reports collection.erased', async () => {
      const list = (await api('GET', '/v1/erasures')).json<{ data: Array<Record<string, unknown>> }>();
      const record = list.data[0] as { kind: string; actor: { type: string }; counts: Record<string, number> };
      expect(record).toMatchObject({ kind: 'collection', actor: { type: 'api_key' } });
      expect(record.counts).toMatchObject({ users: 1, recordings: 1, play_links: 1 });
      expect(JSON.stringify(list)).not.toContain('@example.com');
      const events = await a.deps.db.kysely
        .selectFrom('events')
        .select(['type', 'data'])
        .where('type', '=', 'collection.erased')
        .execute();
      expect(events.length).toBeGreaterThan(0);
      expect(events.map((e) => e.data).join()).not.toContain('@example.com');
      // Owners see the same proof on the dashboard's audit page.
      const owner = await signIn(a, ownerEmail, '203.0.113.71');
      const page = await get(a, owner, '/dashboard/audit');
      expect(page.statusCode).toBe(200);
      expect(page.body).toMatch(new RegExp(`id="erasures"[\\s\\S]*${(list.data[0] as { subject_id: string }).subject_id}`));
    });

    it('restores an archived collection within the window, with its people and play links', async () => {
      const person = await recordedPerson(`restore-me-${store}@example.com`);
      expect((await api('DELETE', `/v1/collections/${person.collectionId}`)).statusCode).toBe(200);
      expect((await a.app.inject({ method: 'GET', url: `/p/${person.token}/meta` })).statusCode).toBe(404);
      const restored = await api('POST', `/v1/collections/${person.collectionId}/restore`);
      expect(restored.statusCode, restored.body).toBe(200);
      expect(restored.json()).toMatchObject({ id: person.collectionId, member_count: 1, recorded_count: 1 });
      expect((await a.app.inject({ method: 'GET', url: `/p/${person.token}/meta` })).statusCode).toBe(200);
      expect((await api('GET', `/v1/collections/${person.collectionId}/users/${person.userId}`)).statusCode).toBe(200);
      // Restoring a live collection answers it as it is.
      expect((await api('POST', `/v1/collections/${person.collectionId}/restore`)).statusCode).toBe(200);
    });

    it('erases an archived collection once its retention window closes, not before', async () => {
      const email = `retention-${store}@example.com`;
      const person = await recordedPerson(email);
      expect((await api('DELETE', `/v1/collections/${person.collectionId}`)).statusCode).toBe(200);
      clock.advance(29 * 86_400_000);
      expect(await eraseExpiredCollections(a.deps, 30)).toBe(0);
      expect(await everyText(a)).toContain(email);
      clock.advance(2 * 86_400_000);
      expect(await eraseExpiredCollections(a.deps, 30)).toBe(1);
      expect(await everyText(a)).not.toContain(email);
      expect((await a.app.inject({ method: 'GET', url: `/p/${person.token}` })).statusCode).toBe(410);
      const records = (await api('GET', '/v1/erasures')).json<{ data: Array<{ actor: { type: string; id: string | null } }> }>();
      expect(records.data[0]?.actor).toEqual({ type: 'retention', id: null });
    });
  });
}

describe('deleting one person', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp();
    ({ key } = await t.newAccount());
  });
  afterAll(() => t.close());

  it('leaves 410 on their play link, user.deleted, and no older event that names them', async () => {
    const collection = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'One person' } })).json<{
      id: string;
    }>();
    const user = (
      await t.request({
        method: 'POST',
        url: `/v1/collections/${collection.id}/users`,
        key,
        json: { email: 'gone@example.com', first_name: 'Gone' },
      })
    ).json<{ id: string }>();
    const upload = await t.request({
      method: 'PUT',
      url: `/v1/collections/${collection.id}/users/${user.id}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    const token = new URL(upload.json<{ play_link: string }>().play_link).pathname.split('/')[2] as string;
    expect(
      (await t.request({ method: 'DELETE', url: `/v1/collections/${collection.id}/users/${user.id}`, key })).statusCode,
    ).toBe(200);

    expect((await t.app.inject({ method: 'GET', url: `/p/${token}` })).statusCode).toBe(410);
    const events = await t.deps.db.kysely
      .selectFrom('events')
      .select(['type', 'data'])
      .where('data', 'like', `%${user.id}%`)
      .execute();
    // recording.completed is gone; what is left is the deletion's own report.
    expect(events.map((e) => e.type).sort()).toEqual(['recording.deleted', 'user.deleted']);
    const deleted = JSON.parse(events.find((e) => e.type === 'user.deleted')!.data);
    expect(deleted).toEqual({ collection_id: collection.id, user_id: user.id, deleted_at: expect.any(String) });
    await runJobsLater(t.deps, AFTER_AUDIO_DELETE_DELAY_MS); // the audio goes a cache lifetime later
    expect(await t.deps.blobs.list(`recordings/${user.id}/`)).toEqual([]);
  });
});

describe('with a CDN in front of the audio (AUDIO_PUBLIC_BASE_URL)', () => {
  it('logs the URLs to purge there when a person or a recording is deleted, or a collection erased', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const t = await createTestApp({ env: { AUDIO_PUBLIC_BASE_URL: 'https://cdn.example.com/audio/' }, overrides: { logger } });
    try {
      const { key } = await t.newAccount();
      const collection = (await t.request({ method: 'POST', url: '/v1/collections', key, json: { name: 'CDN' } })).json<{
        id: string;
      }>();
      const purgesAfter = async (remove: (userId: string) => Promise<unknown>) => {
        const user = (
          await t.request({
            method: 'POST',
            url: `/v1/collections/${collection.id}/users`,
            key,
            json: { email: `cdn${lines.length}@example.com`, first_name: 'C' },
          })
        ).json<{ id: string }>();
        await t.request({
          method: 'PUT',
          url: `/v1/collections/${collection.id}/users/${user.id}/recording`,
          key,
          headers: { 'content-type': 'audio/wav' },
          payload: fs.readFileSync(speechWav()),
        });
        lines.length = 0;
        await remove(user.id);
        await runJobsLater(t.deps, AFTER_AUDIO_DELETE_DELAY_MS); // a deletion's audio goes by a job
        const purge = lines.map((l) => JSON.parse(l)).find((entry) => Array.isArray(entry.purge));
        return { userId: user.id, purge: (purge?.purge ?? []) as string[] };
      };
      const recording = await purgesAfter((id) =>
        t.request({ method: 'DELETE', url: `/v1/collections/${collection.id}/users/${id}/recording`, key }),
      );
      expect(recording.purge).toEqual([
        expect.stringMatching(
          new RegExp(`^https://cdn\\.example\\.com/audio/recordings/${recording.userId}/[0-9a-f]{64}\\.mp3$`),
        ),
      ]);
      const person = await purgesAfter((id) =>
        t.request({ method: 'DELETE', url: `/v1/collections/${collection.id}/users/${id}`, key }),
      );
      expect(person.purge).toEqual([`https://cdn.example.com/audio/recordings/${person.userId}/`]);
      const erased = await purgesAfter(() =>
        t.request({ method: 'DELETE', url: `/v1/collections/${collection.id}?erase=true`, key }),
      );
      // Everyone left in the collection: the first person (recording deleted, still a member) and this one.
      expect(erased.purge).toEqual(
        expect.arrayContaining([
          `https://cdn.example.com/audio/recordings/${recording.userId}/`,
          `https://cdn.example.com/audio/recordings/${erased.userId}/`,
        ]),
      );
      expect(erased.purge).toHaveLength(2);
    } finally {
      await t.close();
    }
  });
});
