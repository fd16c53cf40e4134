/**
 * Users, recordings and play links written straight into the database (and a real MP3 into the
 * blob store), the way the recordings feature stores them, so play-link tests do not depend on
 * the upload pipeline.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { newId, randomToken } from '../../src/lib/ids.js';
import type { TestApp } from './app.js';
import { convert, decodeAudio, speechWav } from './audio.js';

const made = new Map<string, { mp3: Buffer; durationMs: number }>();

/**
 * A real MP3 (mono, 44.1 kHz, 64 kb/s) of eSpeak NG saying `text`, made with ffmpeg; cached per
 * text. The duration is measured by decoding it, as the recordings pipeline does.
 */
export function spokenMp3(text: string): { mp3: Buffer; durationMs: number } {
  const hit = made.get(text);
  if (hit) return hit;
  const name = `spoken-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  const file = convert(speechWav(text, name), 'mp3', { name, encode: ['-ac', '1', '-ar', '44100', '-b:a', '64k'] });
  const mp3 = fs.readFileSync(file);
  const result = { mp3, durationMs: Math.round(decodeAudio(mp3).durationMs) };
  made.set(text, result);
  return result;
}

export async function createCollection(t: TestApp, key: string, name = 'Class of 2027'): Promise<string> {
  const res = await t.request({ method: 'POST', url: '/v1/collections', key, json: { name } });
  if (res.statusCode !== 201) throw new Error(`collection not created: ${res.body}`);
  return res.json().id;
}

export interface UserInput {
  firstName?: string;
  lastName?: string;
  displayName?: string;
  phoneticSpelling?: string | null;
}

export async function addUser(t: TestApp, collectionId: string, input: UserInput = {}): Promise<string> {
  const id = newId();
  const firstName = input.firstName ?? 'Siobhan';
  const lastName = input.lastName ?? "O'Sullivan";
  const email = `${randomToken(6).toLowerCase()}@example.com`;
  const now = new Date().toISOString();
  await t.deps.db.kysely
    .insertInto('users')
    .values({
      id,
      collection_id: collectionId,
      email,
      email_normalized: email,
      first_name: firstName,
      last_name: lastName,
      display_name: input.displayName ?? `${firstName} ${lastName}`,
      external_id: null,
      phonetic_spelling: input.phoneticSpelling === undefined ? 'shi-VAWN oh-SULL-ih-vun' : input.phoneticSpelling,
      custom_fields: '{}',
      record_token: randomToken(12),
      recording_status: 'none',
      review_note: null,
      import_position: 0,
      field_sources: '{}',
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

/**
 * Stores a recording for the user (replacing any earlier one, as a re-record does) and makes
 * sure the user has an active play link; returns the link's token.
 */
export async function addRecording(
  t: TestApp,
  userId: string,
  options: { text?: string; recordedAt?: string } = {},
): Promise<string> {
  const { mp3, durationMs } = spokenMp3(options.text ?? "Siobhan O'Sullivan");
  const sha = createHash('sha256').update(mp3).digest('hex');
  const blobKey = `recordings/${userId}/${sha}.mp3`;
  await t.deps.blobs.put(blobKey, mp3, 'audio/mpeg');
  const recordedAt = options.recordedAt ?? new Date().toISOString();
  const db = t.deps.db.kysely;
  await db.deleteFrom('recordings').where('user_id', '=', userId).execute();
  await db
    .insertInto('recordings')
    .values({
      user_id: userId,
      blob_key: blobKey,
      mime_type: 'audio/mpeg',
      byte_size: mp3.length,
      duration_ms: durationMs,
      recorded_at: recordedAt,
    })
    .execute();
  await db.updateTable('users').set({ recording_status: 'recorded', review_note: null }).where('id', '=', userId).execute();
  const active = await db
    .selectFrom('play_links')
    .select('token')
    .where('user_id', '=', userId)
    .where('status', '=', 'active')
    .executeTakeFirst();
  if (active) return active.token;
  const token = randomToken(12);
  await db
    .insertInto('play_links')
    .values({ token, user_id: userId, status: 'active', created_at: recordedAt, retired_at: null })
    .execute();
  return token;
}

/** A user with a recording in one step. */
export async function addRecordedUser(t: TestApp, collectionId: string, input: UserInput & { text?: string } = {}) {
  const userId = await addUser(t, collectionId, input);
  const token = await addRecording(t, userId, input.text === undefined ? {} : { text: input.text });
  return { userId, token };
}
