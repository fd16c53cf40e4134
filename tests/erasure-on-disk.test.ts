/**
 * Erasure reaches the disk: after a person and a collection are erased (through the API, then
 * the erasure jobs), the SQLite database file and its write-ahead log hold none of their
 * e-mail addresses, names, play-link tokens or `recording.completed` payloads, even in pages
 * SQLite has freed (secure_delete). The subject is SQLite's files, so this test opens a SQLite
 * database whatever DATABASE_URL says; what PostgreSQL keeps is described in docs/privacy.md.
 */
import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomToken } from '../src/lib/ids.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { speechWav } from './helpers/audio.js';
import { createTestDatabase } from './helpers/database.js';
import { AFTER_AUDIO_DELETE_DELAY_MS, runJobsLater } from './helpers/jobs.js';

let t: TestApp;
let key: string;
let file: string;
beforeAll(async () => {
  const database = await createTestDatabase({ dialect: 'sqlite' });
  if (database.config.dialect !== 'sqlite') throw new Error('expected a SQLite database');
  file = database.config.file;
  t = await createTestApp({ database });
  ({ key } = await t.newAccount());
});
afterAll(() => t.close());

const api = (method: 'POST' | 'PUT' | 'DELETE', url: string, json?: unknown) =>
  t.request({ method, url, key, ...(json === undefined ? {} : { json }) });

/**
 * A person in a new collection, with a recording when `record` is set; what identifies them
 * (e-mail, last name, recorder token, play-link token, `recording.completed` payload).
 */
async function person(email: string, lastName: string, record: boolean) {
  const collection = (await api('POST', '/v1/collections', { name: `Ceremony ${randomToken(6)}` })).json<{ id: string }>();
  const user = (
    await api('POST', `/v1/collections/${collection.id}/users`, { email, first_name: 'Aoife', last_name: lastName })
  ).json<{ id: string; record_url: string }>();
  const recordToken = new URL(user.record_url).pathname.split('/')[2] as string;
  const secrets = [email, lastName, recordToken];
  if (record) {
    const upload = await t.request({
      method: 'PUT',
      url: `/v1/collections/${collection.id}/users/${user.id}/recording`,
      key,
      headers: { 'content-type': 'audio/wav' },
      payload: fs.readFileSync(speechWav()),
    });
    expect(upload.statusCode, upload.body).toBe(200);
    const completed = await t.deps.db.kysely
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'recording.completed')
      .where('data', 'like', `%${user.id}%`)
      .executeTakeFirstOrThrow();
    secrets.push(new URL(upload.json<{ play_link: string }>().play_link).pathname.split('/')[2] as string, completed.data);
  }
  return { collectionId: collection.id, userId: user.id, secrets };
}

/** Which of `secrets` appear anywhere in the bytes of the database file or its write-ahead log. */
function foundOnDisk(secrets: string[]): string[] {
  const bytes = [file, `${file}-wal`].map((name) => fs.readFileSync(name, { flag: 'r' }).toString('latin1'));
  // Names are stored as UTF-8; compare byte for byte.
  return secrets.filter((secret) => bytes.some((text) => text.includes(Buffer.from(secret).toString('latin1'))));
}

describe('erasure on a SQLite database', () => {
  it('leaves no e-mail, name, token or recording payload of an erased person or collection in the files', async () => {
    // A deleted person's `recording.deleted` event names them until the delivery logs go
    // (docs/privacy.md), so the person deleted here has not recorded; the erased collection's has.
    const deleted = await person('deleted-person@example.com', 'Uí Dhubhda', false);
    const member = await person('erased-collection@example.com', 'Ó Laoghaire', true);
    const secrets = [...deleted.secrets, ...member.secrets];
    expect(foundOnDisk(secrets).length).toBeGreaterThan(0);

    expect((await api('DELETE', `/v1/collections/${deleted.collectionId}/users/${deleted.userId}`)).statusCode).toBe(200);
    expect((await api('DELETE', `/v1/collections/${member.collectionId}?erase=true`)).statusCode).toBe(200);
    await runJobsLater(t.deps, AFTER_AUDIO_DELETE_DELAY_MS);
    // … and from its files, once the log has been copied into the database (by the background
    // checkpoint thread, or an operator's FULL checkpoint as here) and the server has written again.
    const operator = new SQLite(file);
    operator.pragma('wal_checkpoint(FULL)');
    operator.close();
    expect((await api('POST', '/v1/collections', { name: 'Written after the checkpoint' })).statusCode).toBe(201);
    expect(foundOnDisk(secrets)).toEqual([]);
  });
});
