/**
 * Users, recordings and play links written straight into the database (and a real MP3 into the
 * blob store), the way the recordings feature stores them, so play-link tests do not depend on
 * the upload pipeline.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { newId, randomToken } from '../../src/lib/ids.js';
import type { TestApp } from './app.js';

const made = new Map<string, { mp3: Buffer; durationMs: number }>();

/** A real MP3 (mono, 44.1 kHz) of espeak-ng saying `text`, made with ffmpeg; cached per text. */
export function spokenMp3(text: string): { mp3: Buffer; durationMs: number } {
  const hit = made.get(text);
  if (hit) return hit;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'voicename-mp3-'));
  const wav = path.join(dir, 'name.wav');
  const mp3 = path.join(dir, 'name.mp3');
  execFileSync('espeak-ng', ['-w', wav, text]);
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', wav, '-ac', '1', '-ar', '44100', '-b:a', '64k', mp3]);
  const seconds = Number(
    execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', mp3]).toString().trim(),
  );
  const result = { mp3: fs.readFileSync(mp3), durationMs: Math.round(seconds * 1000) };
  fs.rmSync(dir, { recursive: true, force: true });
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
